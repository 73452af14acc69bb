#include "catenary/model/model_operators.hpp"

#include <algorithm>
#include <string>

#include "catenary/elements/gradient_deficient_math.hpp"

namespace catenary {

Eigen::SparseMatrix<double, Eigen::RowMajor> constraint_matrix(const Model& m) {
  std::vector<Eigen::Triplet<double>> terms;
  for (int r = 0; r < m.linear_constraint_count(); ++r) {
    const ConstraintRow& row = m.constraint_rows[r];
    for (size_t k = 0; k < row.dofs.size(); ++k) terms.emplace_back(r, row.dofs[k], row.coefficients[k]);
  }
  Eigen::SparseMatrix<double, Eigen::RowMajor> C(m.constraint_count(), m.dof_count());
  C.setFromTriplets(terms.begin(), terms.end());
  C.makeCompressed();
  return C;
}

ListedRows constraint_transpose_rows(const Model& m) {
  const Eigen::SparseMatrix<double, Eigen::RowMajor> Ct = constraint_matrix(m).transpose();
  ListedRows rows;
  rows.ptr.push_back(0);
  for (int r = 0; r < Ct.outerSize(); ++r) {
    if (Ct.outerIndexPtr()[r] == Ct.outerIndexPtr()[r + 1]) continue;
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(Ct, r); it; ++it) {
      rows.col.push_back(static_cast<int>(it.col()));
      rows.val.push_back(it.value());
    }
    rows.row.push_back(r);
    rows.ptr.push_back(static_cast<int>(rows.col.size()));
  }
  return rows;
}

Eigen::VectorXd gravity_vector(const Model& m) {
  const ElementBlock& el = m.elements;
  const int D = m.dimension;
  Eigen::VectorXd g = Eigen::VectorXd::Zero(m.dof_count());
  for (int e = 0; e < el.size(); ++e)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < D; ++i)
        g[element_global_dof(m, e, k * D + i)] += el.properties[e].rhoA * el.shape_integrals[4 * e + k] * m.gravity[i];
  for (size_t b = 0; b < m.mechanism.bodies.size(); ++b)
    for (int i = 0; i < 3; ++i) g[m.rigid_offset() + 7 * b + i] += m.mechanism.bodies[b].mass * m.gravity[i];
  return g;
}

namespace {

bool is_constant(const TimeFunction& f) { return f.kind == TimeFunction::Kind::Constant; }

// G of a distributed load at unit scale.
void add_distributed(const Model& m, const DistributedLoad& d, double scale, Eigen::VectorXd& g) {
  const int D = m.dimension;
  for (int e = d.first_element; e < d.first_element + d.element_count; ++e)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < D; ++i)
        g[element_global_dof(m, e, k * D + i)] += scale * m.elements.shape_integrals[4 * e + k] * d.force[i];
}

}  // namespace

std::vector<double> LoadPatterns::scales_at(double t) const {
  std::vector<double> s(scales.size());
  for (size_t k = 0; k < scales.size(); ++k) s[k] = scales[k].value(t);
  return s;
}

size_t load_pattern_count(const Model& m) {
  const auto varying = [](const auto& load) { return !is_constant(load.scale); };
  return 1 + std::count_if(m.distributed_loads.begin(), m.distributed_loads.end(), varying) +
         std::count_if(m.point_loads.begin(), m.point_loads.end(), varying);
}

LoadPatterns build_load_patterns(const Model& m) {
  LoadPatterns p;
  p.vectors.push_back(gravity_vector(m));
  p.scales.push_back(TimeFunction::constant(1.0));
  for (const DistributedLoad& d : m.distributed_loads) {
    if (is_constant(d.scale)) {
      add_distributed(m, d, d.scale.value(0.0), p.vectors.front());
      continue;
    }
    Eigen::VectorXd g = Eigen::VectorXd::Zero(m.dof_count());
    add_distributed(m, d, 1.0, g);
    p.vectors.push_back(std::move(g));
    p.scales.push_back(d.scale);
  }
  for (const PointLoad& l : m.point_loads) {
    if (is_constant(l.scale)) {
      p.vectors.front()[l.dof] += l.value * l.scale.value(0.0);
      continue;
    }
    Eigen::VectorXd g = Eigen::VectorXd::Zero(m.dof_count());
    g[l.dof] = l.value;
    p.vectors.push_back(std::move(g));
    p.scales.push_back(l.scale);
  }
  return p;
}

Eigen::VectorXd coordinate_scales(const Model& m) {
  Eigen::VectorXd s(m.dof_count());
  const int per_node = m.coordinates_per_node();
  for (int i = 0; i < m.dof_count(); ++i) {
    const bool node = i < m.node_dof_count() && !m.node_length_scale.empty();
    const double length = node ? m.node_length_scale[i / per_node] : m.characteristic_length;
    s[i] = m.is_dimensionless(i) ? 1.0 : length;
  }
  return s;
}

Eigen::VectorXd initial_coordinates(const Model& m) {
  Eigen::VectorXd q(m.dof_count());
  q << Eigen::Map<const Eigen::VectorXd>(m.initial_positions.data(), m.node_dof_count()), m.mechanism.initial_positions();
  return q;
}

Eigen::VectorXd initial_rates(const Model& m) {
  Eigen::VectorXd v(m.dof_count());
  v << Eigen::Map<const Eigen::VectorXd>(m.initial_velocities.data(), m.node_dof_count()), m.mechanism.initial_velocities();
  return v;
}

std::string describe_coordinate(const Model& m, int dof) {
  if (dof >= m.rigid_offset()) {
    static const char* rigid_names[7] = {"x", "y", "z", "e0", "e1", "e2", "e3"};
    const int b = (dof - m.rigid_offset()) / 7;
    return "rigid body '" + m.mechanism.bodies[b].name + "', coordinate " + rigid_names[(dof - m.rigid_offset()) % 7];
  }
  const int n = m.coordinates_per_node(), node = dof / n, k = dof % n;
  static const char* axes = "xyz";
  const std::string coord = k < m.dimension ? std::string(1, axes[k])
                                                 : std::string("slope_") + axes[k - m.dimension];
  for (const Body& b : m.bodies)
    if (node >= b.first_node && node < b.first_node + b.node_count)
      return "body '" + b.name + "' node " + std::to_string(node - b.first_node) + ", coordinate " + coord;
  return "node " + std::to_string(node) + ", coordinate " + coord;
}

}  // namespace catenary
