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
  // The coloured differences cover the bodies and attached nodes; a node that only a cable's contact
  // with a shape reads is differenced with that contact (add_cable_contact_columns).
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

double MultibodyBlock::rigid_force(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t, Eigen::VectorXd& f) const {
  Eigen::VectorXd Q = Eigen::VectorXd::Zero(size());
  add_quadratic_velocity_forces(mechanism_, x.data(), v.data(), Q.data());
  const double potential = add_applied_forces(mechanism_, x.data(), v.data(), t, Q.data());
  f = -Q;
  return potential;
}

double MultibodyBlock::internal_force(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t, Eigen::VectorXd& f) const {
  double potential = rigid_force(x, v, t, f);
  if (mechanism_.cable_contacts.empty()) return potential;
  Eigen::VectorXd Q = Eigen::VectorXd::Zero(size());
  potential += add_cable_shape_forces(mechanism_, x.data(), v.data(), Q.data());
  f -= Q;
  return potential;
}

void MultibodyBlock::add_cable_contact_columns(const Eigen::VectorXd& x, const Eigen::VectorXd& v,
                                               const NewtonMatrixCoefficients& c, std::vector<double>& values) const {
  for (const CableShapeContact& contact : mechanism_.cable_contacts)
    for (const CableShapeSpan& s : contact.spans) {
      // The span's coordinates in the block: node a's 6, node b's 6, the body's 7.
      int at[19];
      for (int k = 0; k < 6; ++k) {
        at[k] = mechanism_.node_coordinate(s.slot_a) + k;
        at[6 + k] = mechanism_.node_coordinate(s.slot_b) + k;
      }
      for (int k = 0; k < 7; ++k) at[12 + k] = 7 * contact.body + k;
      double q[19], rate[19];
      for (int k = 0; k < 19; ++k) {
        q[k] = x[at[k]];
        rate[k] = v[at[k]];
      }
      // -Q of the span at (q, rate): its internal force.
      const auto force = [&](const double* qs, const double* vs, double* f) {
        const SpanContact out = span_contact(mechanism_.contacts, contact, s, qs, vs, qs + 12, vs + 12);
        for (int k = 0; k < 12; ++k) f[k] = -out.element_force[k];
        for (int k = 0; k < 7; ++k) f[12 + k] = -out.body_force[k];
        return out.points;
      };
      double f[19];
      // Apart: no entries (a contact that starts during a step enters the next iteration's matrix).
      if (force(q, rate, f) == 0) continue;
      // Forward differences (half the evaluations of central ones; truncation 1e-8, round-off
      // 1e-8 relative: ample for Newton's matrix).
      const auto difference = [&](double* over, double weight) {
        if (weight == 0.0) return;
        for (int j = 0; j < 19; ++j) {
          const double held = over[j], step = 1e-8 * (1.0 + std::fabs(held));
          double plus[19];
          over[j] = held + step;
          force(q, rate, plus);
          over[j] = held;
          for (int i = 0; i < 19; ++i)
            if (const int e = local_entry(at[i], at[j]); e >= 0) values[e] += weight * (plus[i] - f[i]) / step;
        }
      };
      difference(q, c.stiffness);
      if (contact.reads_velocity()) difference(rate, c.damping);
    }
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
  rigid_force(x, v, t, f);
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
          rigid_force(x, vs, t, f);
          return f;
        },
        values);
  add_cable_contact_columns(x, v, c, values);
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
