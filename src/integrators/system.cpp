#include "catenary/integrators/system.hpp"

#include <cmath>
#include <string>

namespace catenary {

void System::gravity_force(Eigen::VectorXd& g) const {
  const ElementBlock& el = model_.elements;
  const int D = model_.dimension;
  g.setZero(dofs());
  for (int e = 0; e < el.size(); ++e) {
    const double rhoA = el.properties[e].rhoA;
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < D; ++i)
        g[element_global_dof(model_, e, k * D + i)] += rhoA * el.shape_integrals[4 * e + k] * model_.gravity[i];
  }
}

void System::external_force(double t, Eigen::VectorXd& g) const {
  gravity_force(g);
  const ElementBlock& el = model_.elements;
  const int D = model_.dimension;
  for (const DistributedLoad& d : model_.distributed_loads) {
    const double s = d.scale.value(t);
    for (int e = d.first_element; e < d.first_element + d.element_count; ++e)
      for (int k = 0; k < 4; ++k)
        for (int i = 0; i < D; ++i)
          g[element_global_dof(model_, e, k * D + i)] += s * el.shape_integrals[4 * e + k] * d.force[i];
  }
  for (const PointLoad& p : model_.point_loads) g[p.dof] += p.value * p.scale.value(t);
}

void System::constraint_residual(const Eigen::VectorXd& q, double t, Eigen::VectorXd& phi) const {
  phi.resize(constraints());
  for (int r = 0; r < constraints(); ++r) {
    const ConstraintRow& row = model_.constraint_rows[r];
    double s = -row.offset - (row.has_motion ? row.motion.value(t) : 0.0);
    for (size_t k = 0; k < row.dofs.size(); ++k) s += row.coefficients[k] * q[row.dofs[k]];
    phi[r] = s;
  }
}

void System::constraint_velocity_rhs(double t, Eigen::VectorXd& bdot) const {
  bdot.resize(constraints());
  for (int r = 0; r < constraints(); ++r) {
    const ConstraintRow& row = model_.constraint_rows[r];
    bdot[r] = row.has_motion ? row.motion.first_derivative(t) : 0.0;
  }
}

void System::constraint_acceleration_rhs(double t, Eigen::VectorXd& bddot) const {
  bddot.resize(constraints());
  for (int r = 0; r < constraints(); ++r) {
    const ConstraintRow& row = model_.constraint_rows[r];
    bddot[r] = row.has_motion ? row.motion.second_derivative(t) : 0.0;
  }
}

void System::constraint_product(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  y.resize(constraints());
  for (int r = 0; r < constraints(); ++r) {
    const ConstraintRow& row = model_.constraint_rows[r];
    double s = 0.0;
    for (size_t k = 0; k < row.dofs.size(); ++k) s += row.coefficients[k] * x[row.dofs[k]];
    y[r] = s;
  }
}

void System::constraint_transpose_product(const Eigen::VectorXd& mu, Eigen::VectorXd& y) const {
  y.setZero(dofs());
  for (int r = 0; r < constraints(); ++r) {
    const ConstraintRow& row = model_.constraint_rows[r];
    for (size_t k = 0; k < row.dofs.size(); ++k) y[row.dofs[k]] += row.coefficients[k] * mu[r];
  }
}

double System::weighted_norm(const Eigen::VectorXd& dx, const Eigen::VectorXd& x, double tol,
                             int* worst_dof) const {
  const double L = model_.characteristic_length;
  double worst = 0.0;
  for (int i = 0; i < dofs(); ++i) {
    const double scale = model_.is_slope(i) ? 1.0 : L;
    const double value = std::fabs(dx[i]) / (tol * (scale + std::fabs(x[i])));
    if (!(value <= worst)) {  // also catches NaN
      worst = value;
      if (worst_dof) *worst_dof = i;
    }
  }
  return std::isfinite(worst) ? worst : INFINITY;
}

double System::residual_floor(double matrix_norm, const Eigen::VectorXd& q) const {
  constexpr double kRoundoffFactor = 64.0 * 2.220446049250313e-16;
  return kRoundoffFactor * matrix_norm * (model_.characteristic_length + q.lpNorm<Eigen::Infinity>());
}

std::string System::describe_dof(int dof) const {
  const int n = model_.coordinates_per_node(), node = dof / n, k = dof % n;
  static const char* axes = "xyz";
  const std::string coord = k < model_.dimension ? std::string(1, axes[k])
                                                 : std::string("slope_") + axes[k - model_.dimension];
  for (const Body& b : model_.bodies)
    if (node >= b.first_node && node < b.first_node + b.node_count)
      return "body '" + b.name + "' node " + std::to_string(node - b.first_node) + ", coordinate " + coord;
  return "node " + std::to_string(node) + ", coordinate " + coord;
}

System::Energies System::energies(const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  Energies E;
  Eigen::VectorXd Mv, f, g;
  backend_.mass_product(v, Mv);
  E.kinetic = 0.5 * v.dot(Mv);
  gravity_force(g);
  E.gravitational = -q.dot(g);
  Eigen::VectorXd zero = Eigen::VectorXd::Zero(dofs());
  E.elastic = backend_.internal_force(q, zero, f);
  return E;
}

}  // namespace catenary
