#include "catenary/assembly/multibody_block.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/rigid/joints.hpp"

namespace catenary {

MultibodyBlock::MultibodyBlock(const Model& m) : mechanism_(m.mechanism), layout_(multibody_layout(m)) {
  const int nb = static_cast<int>(mechanism_.bodies.size()), slots = nb + static_cast<int>(mechanism_.attachments.size());
  for (int s = 0; s < slots; ++s) {
    slot_first_.push_back(s < nb ? 7 * s : mechanism_.node_coordinate(s - nb));
    slot_count_.push_back(s < nb ? 7 : 6);
  }
  std::vector<std::set<int>> neighbours(slots);
  for (int s = 0; s < slots; ++s) neighbours[s].insert(s);
  for (const MechanismCoupling& c : mechanism_couplings(mechanism_))
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
  const double potential = add_applied_forces(mechanism_, x.data(), v.data(), t, Q.data());
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
