#include "catenary/multibody/multibody_block.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/rigid/joints.hpp"

namespace catenary {

namespace {

// Groups of mechanism coordinates that one joint, driver, attachment, body or spring-damper
// couples, with the rows it owns: each group's coordinates form a dense block of the Newton
// matrix.
struct Coupling {
  std::vector<int> slots;  // bodies b < body count; attachment k is slot body count + k
  int first_row = 0, rows = 0;
};

std::vector<Coupling> couplings(const Mechanism& m) {
  const int nb = static_cast<int>(m.bodies.size());
  std::vector<Coupling> out;
  auto bodies_of = [](int i, int j) {
    std::vector<int> s;
    if (i != kGround) s.push_back(i);
    if (j != kGround && j != i) s.push_back(j);
    return s;
  };
  // Rows counted along from each kind's first, as evaluate_constraints does.
  int row = m.joint_row(0);
  for (const Joint& j : m.joints) {
    out.push_back({bodies_of(j.body_i, j.body_j), row, rigid::joint_equation_count(j.type)});
    row += rigid::joint_equation_count(j.type);
  }
  row = m.driver_row(0);
  for (const Driver& d : m.drivers) {
    const Joint& j = m.joints[d.joint];
    out.push_back({bodies_of(j.body_i, j.body_j), row++, 1});
  }
  row = m.attachment_row(0);
  for (size_t k = 0; k < m.attachments.size(); ++k) {
    out.push_back({{m.attachments[k].body, nb + static_cast<int>(k)}, row, m.attachments[k].row_count()});
    row += m.attachments[k].row_count();
  }
  row = m.normalization_row(0);
  for (int b = 0; b < nb; ++b) out.push_back({{b}, row + b, 1});
  for (const Tsda& e : m.forces.tsda) out.push_back({bodies_of(e.body_i, e.body_j), 0, 0});
  for (const Rsda& e : m.forces.rsda) out.push_back({bodies_of(e.body_i, e.body_j), 0, 0});
  return out;
}

}  // namespace

MultibodyLayout multibody_layout(const Model& m) {
  const Mechanism& mech = m.mechanism;
  MultibodyLayout layout;
  if (mech.empty()) return layout;
  if (m.dimension != 3) throw ModelError("rigid bodies need a 3D model (the cables' dimension is 2)");
  const int nb = static_cast<int>(mech.bodies.size()), per_node = m.coordinates_per_node();
  for (int k = 0; k < mech.body_coordinate_count(); ++k) layout.dofs.push_back(m.rigid_offset() + k);
  std::set<int> attached;
  for (const Attachment& a : mech.attachments) {
    if (a.node < 0 || a.node >= m.node_count)
      throw ModelError("attachment '" + a.name + "': node " + std::to_string(a.node) + " is not in the model (" +
                       std::to_string(m.node_count) + " nodes)");
    if (a.body < 0 || a.body >= nb)
      throw ModelError("attachment '" + a.name + "': body " + std::to_string(a.body) + " is not in the model");
    if (!attached.insert(a.node).second)
      throw ModelError("attachment '" + a.name + "': node " + std::to_string(a.node) + " is attached twice");
    for (int c = 0; c < per_node; ++c) layout.dofs.push_back(a.node * per_node + c);
  }
  layout.first_row = m.linear_constraint_count();
  layout.rows = mech.row_count();

  const int n = mech.coordinate_count(), dofs = m.dof_count();
  auto coordinates_of = [&](int slot) {
    std::vector<int> c;
    const int first = slot < nb ? 7 * slot : mech.node_coordinate(slot - nb), count = slot < nb ? 7 : 6;
    for (int k = 0; k < count; ++k) c.push_back(first + k);
    return c;
  };
  std::set<std::pair<int, int>> local;  // (row, column), block numbering
  for (int b = 0; b < nb; ++b)
    for (int i : coordinates_of(b))
      for (int j : coordinates_of(b)) local.insert({i, j});
  for (const Coupling& c : couplings(mech)) {
    std::vector<int> coords;
    for (int s : c.slots)
      for (int i : coordinates_of(s)) coords.push_back(i);
    for (int i : coords) {
      for (int j : coords) local.insert({i, j});
      for (int r = c.first_row; r < c.first_row + c.rows; ++r) {
        local.insert({n + r, i});
        local.insert({i, n + r});
      }
    }
  }
  auto global = [&](int i) { return i < n ? layout.dofs[i] : dofs + layout.first_row + (i - n); };
  for (const auto& e : local) {
    layout.local_entries.push_back(e);
    layout.entries.push_back({global(e.first), global(e.second)});
  }
  return layout;
}

std::vector<FixedRow> attached_node_rows(const Model& m, const MultibodyLayout& layout) {
  std::map<int, int> column_of;  // model coordinate -> block column, for the attached nodes
  for (size_t k = m.mechanism.body_coordinate_count(); k < layout.dofs.size(); ++k)
    column_of[layout.dofs[k]] = static_cast<int>(k);
  std::vector<FixedRow> rows;
  for (const ConstraintGroup& g : m.constraint_groups)
    for (int k = 0; k < g.row_count; ++k) {
      const ConstraintRow& row = m.constraint_rows[g.first_row + k];
      FixedRow out;
      for (size_t t = 0; t < row.dofs.size(); ++t) {
        const auto it = column_of.find(row.dofs[t]);
        if (it == column_of.end()) break;
        out.terms.emplace_back(it->second, row.coefficients[t]);
      }
      if (out.terms.size() != row.dofs.size()) continue;  // also on coordinates outside the block
      out.owner = "constraint '" + g.name + "'";
      out.name = out.owner + " row " + (k < static_cast<int>(g.row_labels.size()) ? g.row_labels[k] : std::to_string(k));
      rows.push_back(std::move(out));
    }
  return rows;
}

MultibodyBlock::MultibodyBlock(const Model& m) : mechanism_(m.mechanism), layout_(multibody_layout(m)) {
  const int nb = static_cast<int>(mechanism_.bodies.size()), slots = nb + static_cast<int>(mechanism_.attachments.size());
  for (int s = 0; s < slots; ++s) {
    slot_first_.push_back(s < nb ? 7 * s : mechanism_.node_coordinate(s - nb));
    slot_count_.push_back(s < nb ? 7 : 6);
  }
  std::vector<std::set<int>> neighbours(slots);
  for (int s = 0; s < slots; ++s) neighbours[s].insert(s);
  for (const Coupling& c : couplings(mechanism_))
    for (int a : c.slots)
      for (int b : c.slots) neighbours[a].insert(b);
  for (const auto& n : neighbours) slot_neighbours_.emplace_back(n.begin(), n.end());
  // Greedy colouring: two slots share a colour only if no slot neighbours both.
  std::vector<int> colour(slots, -1);
  for (int s = 0; s < slots; ++s) {
    std::set<int> taken;
    for (int n : slot_neighbours_[s])
      for (int nn : slot_neighbours_[n])
        if (colour[nn] >= 0) taken.insert(colour[nn]);
    int c = 0;
    while (taken.count(c)) ++c;
    colour[s] = c;
    if (c == static_cast<int>(colours_.size())) colours_.emplace_back();
    colours_[c].push_back(s);
  }
  entry_row_start_.assign(size() + layout_.rows + 1, 0);
  for (const auto& entry : layout_.local_entries) ++entry_row_start_[entry.first + 1];
  for (size_t i = 1; i < entry_row_start_.size(); ++i) entry_row_start_[i] += entry_row_start_[i - 1];
}

int MultibodyBlock::local_entry(int i, int j) const {
  const auto& entries = layout_.local_entries;
  const auto first = entries.begin() + entry_row_start_[i], last = entries.begin() + entry_row_start_[i + 1];
  const auto it = std::lower_bound(first, last, std::make_pair(i, j));
  return it != last && it->second == j ? static_cast<int>(it - entries.begin()) : -1;
}

template <class Terms>
void MultibodyBlock::add_difference_columns(const Eigen::VectorXd& at, double scale, Terms terms,
                                            std::vector<double>& values) const {
  Eigen::VectorXd shifted = at, step = Eigen::VectorXd::Zero(at.size());
  for (const std::vector<int>& group : colours_)
    for (int offset = 0; offset < 7; ++offset) {
      bool any = false;
      for (int s : group)
        if (offset < slot_count_[s]) {
          const int k = slot_first_[s] + offset;
          step[k] = 1e-6 * (1.0 + std::fabs(at[k]));  // central differences: truncation 1e-12, round-off 1e-10
          any = true;
        }
      if (!any) continue;
      shifted = at + step;
      const Eigen::VectorXd plus = terms(shifted);
      shifted = at - step;
      const Eigen::VectorXd difference = plus - terms(shifted);
      for (int s : group) {
        if (offset >= slot_count_[s]) continue;
        const int k = slot_first_[s] + offset;
        for (int n : slot_neighbours_[s])
          for (int i = slot_first_[n]; i < slot_first_[n] + slot_count_[n]; ++i)
            if (const int e = local_entry(i, k); e >= 0) values[e] += scale * difference[i] / (2.0 * step[k]);
        step[k] = 0.0;
      }
    }
}

double MultibodyBlock::internal_force(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t, Eigen::VectorXd& f) const {
  Eigen::VectorXd Q = Eigen::VectorXd::Zero(size());
  add_quadratic_velocity_forces(mechanism_, x.data(), v.data(), Q.data());
  const double potential = add_force_element_forces(mechanism_.forces, x.data(), v.data(), t, Q.data());
  f = -Q;
  return potential;
}

void MultibodyBlock::mass_product(const Eigen::VectorXd& x, const Eigen::VectorXd& w, Eigen::VectorXd& y) const {
  y.setZero(size());
  add_mass_product(mechanism_, x.data(), w.data(), y.data());
}

Eigen::VectorXd MultibodyBlock::force_terms(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t,
                                            const Eigen::VectorXd& w, const Eigen::VectorXd& mu, double mass,
                                            double stiffness) const {
  Eigen::VectorXd out, f;
  mass_product(x, w, out);
  out *= mass;
  internal_force(x, v, t, f);
  out += stiffness * f;
  out += constraint_jacobian_transpose_product(mechanism_, x, v, t, mu);
  return out;
}

double MultibodyBlock::newton_matrix(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t,
                                     const Eigen::VectorXd& w, const Eigen::VectorXd& mu,
                                     const NewtonMatrixCoefficients& c, std::vector<double>& values,
                                     bool assembly_weights, ConstraintState* constraints) const {
  const int n = size();
  values.assign(layout_.local_entries.size(), 0.0);
  for (size_t b = 0; b < mechanism_.bodies.size(); ++b) {
    const int o = 7 * static_cast<int>(b);
    const double weight = c.mass * (assembly_weights ? mechanism_.bodies[b].assembly_weight : 1.0);
    const Eigen::Matrix<double, 7, 7> M = body_mass_block(mechanism_.bodies[b], x.data() + o);
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 7; ++j) values[local_entry(o + i, o + j)] += weight * M(i, j);
  }
  add_difference_columns(
      x, 1.0, [&](const Eigen::VectorXd& xs) { return force_terms(xs, v, t, w, mu, c.mass, c.stiffness); }, values);
  if (c.damping != 0.0)
    add_difference_columns(
        v, c.damping,
        [&](const Eigen::VectorXd& vs) {
          Eigen::VectorXd f;
          internal_force(x, vs, t, f);
          return f;
        },
        values);
  ConstraintState state = evaluate_constraints(mechanism_, x, v, t);
  const Eigen::SparseMatrix<double>& jacobian = state.jacobian;
  for (int col = 0; col < jacobian.outerSize(); ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(jacobian, col); it; ++it) {
      const int row = n + static_cast<int>(it.row());
      for (const int e : {local_entry(row, col), local_entry(col, row)})
        if (e >= 0) values[e] += c.constraint * it.value();
    }
  if (constraints) *constraints = std::move(state);
  Eigen::VectorXd row_sum = Eigen::VectorXd::Zero(n);
  for (size_t e = 0; e < values.size(); ++e)
    if (layout_.local_entries[e].first < n) row_sum[layout_.local_entries[e].first] += std::fabs(values[e]);
  return n > 0 ? row_sum.maxCoeff() : 0.0;
}

}  // namespace catenary
