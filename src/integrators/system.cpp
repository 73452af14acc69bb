#include "catenary/integrators/system.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "catenary/assembly/vector_kernels.hpp"
#include "catenary/multibody/kinematic_analysis.hpp"

namespace catenary {

System::System(const Model& m, Backend& backend)
    : model_(m),
      backend_(backend),
      block_(m),
      loads_(build_load_patterns(m)),
      velocity_in_residual_(!block_.empty() || m.elements.damped()),
      coordinate_scales_(coordinate_scales(m).cast<float>()),
      gravity_(gravity_vector(m)) {
  for (int k = 0; k < block_.layout().rows; ++k) block_rows_.push_back(block_.layout().first_row + k);
  for (const Eigen::VectorXd& g : loads_.vectors) {
    load_vectors_.push_back(backend.make_vector(dofs()));
    backend.upload(g, load_vectors_.back());
  }
}

Eigen::VectorXd System::pick(const Vector& x, const std::vector<int>& index) {
  std::vector<double> local;
  backend_.gather(x, index, local);
  return Eigen::Map<const Eigen::VectorXd>(local.data(), static_cast<Eigen::Index>(local.size()));
}

void System::add_at(const std::vector<int>& index, const Eigen::VectorXd& local, Vector& x) {
  backend_.scatter_add(index, std::vector<double>(local.data(), local.data() + local.size()), x);
}

void System::external_force(double t, Vector& g) {
  const std::vector<double> s = loads_.scales_at(t);
  std::vector<Scaled> terms;
  for (size_t k = 0; k < s.size(); ++k) terms.push_back({s[k], &load_vectors_[k]});
  if (terms.empty())
    backend_.axpby(0.0, g, 0.0, g);
  else
    backend_.combine(terms, g);
}

void System::constraint_rhs(double t, Eigen::VectorXd& b, int derivative) const {
  b.setZero(constraints());
  for (int r = 0; r < model_.linear_constraint_count(); ++r) {
    const ConstraintRow& row = model_.constraint_rows[r];
    if (derivative == 0) b[r] = row.offset + (row.has_motion ? row.motion.value(t) : 0.0);
    if (derivative == 1) b[r] = row.has_motion ? row.motion.first_derivative(t) : 0.0;
    if (derivative == 2) b[r] = row.has_motion ? row.motion.second_derivative(t) : 0.0;
  }
}

void System::constraint_acceleration_rhs(const Vector& q, const Vector& v, double t, Vector& gamma) {
  Eigen::VectorXd b;
  constraint_rhs(t, b, 2);
  backend_.upload(b, gamma);
  if (block_.empty()) return;
  const std::vector<int>& dofs = block_.layout().dofs;
  add_at(block_rows_, evaluate_constraints(block_.mechanism(), pick(q, dofs), pick(v, dofs), t).gamma, gamma);
}

void System::newton_terms(const Vector& q, const Vector& v, double t, const ForceTerms& terms, const Vector& mu,
                          const NewtonMatrixCoefficients& c, Vector& y, Vector& phi, const NewtonTermsForm& form) {
  ForceTerms at_t = terms;
  at_t.time = t;
  if (form.matrix) {
    backend_.assemble_newton_matrix(q, v, c, at_t, y);
    matrix_norm_ = backend_.newton_matrix_norm();
  } else {
    backend_.internal_force(q, v, at_t, y);
  }
  const double sign = terms.from ? -1.0 : 1.0;  // y = from - (...) (ForceTerms::from)
  backend_.add_constraint_transpose_product(sign, mu, y);
  backend_.constraint_product(form.velocity_level ? v : q, phi);
  if (block_.empty()) return;
  const std::vector<int>& dofs = block_.layout().dofs;
  // The block's mass term with its scale in w: the matrix's d(M(q) w)/dq needs the w of M(q) w.
  const Eigen::VectorXd x = pick(q, dofs), xv = pick(v, dofs),
                        xw = terms.mass_scale * (x - pick(*terms.origin, dofs)),
                        xmu = pick(mu, block_rows_);
  ConstraintState cs;
  if (form.matrix) {
    std::vector<double> values;
    matrix_norm_ =
        std::max(matrix_norm_, block_.newton_matrix(x, xv, t, xw, xmu, c, values, form.assembly_weights, &cs));
    backend_.add_block_entries(values);
  } else {
    cs = evaluate_constraints(block_.mechanism(), x, xv, t);
  }
  Eigen::VectorXd fb, Mwb;
  block_.internal_force(x, xv, t, fb);
  block_.mass_product(x, xw, Mwb);
  add_at(dofs, sign * (terms.force_scale * fb + Mwb + cs.jacobian.transpose() * xmu), y);
  add_at(block_rows_, form.velocity_level ? Eigen::VectorXd(cs.jacobian * xv - cs.nu) : cs.phi, phi);
}

void System::constraint_residual(const Vector& q, const Vector& v, const Vector& b, double t, bool velocity_level,
                                 Vector& phi) {
  backend_.constraint_product(velocity_level ? v : q, phi);
  backend_.axpby(-1.0, b, 1.0, phi);
  if (block_.empty()) return;
  const Eigen::VectorXd x = pick(q, block_.layout().dofs), xv = pick(v, block_.layout().dofs);
  const ConstraintState cs = evaluate_constraints(block_.mechanism(), x, xv, t);
  add_at(block_rows_, velocity_level ? Eigen::VectorXd(cs.jacobian * xv - cs.nu) : cs.phi, phi);
}

void System::mass_product(const Vector& q, double t, const Vector& x, Vector& y, double scale, const Scaled& plus) {
  backend_.mass_product(x, y, scale, plus, {&q, t});
  if (block_.empty()) return;
  const std::vector<int>& dofs = block_.layout().dofs;
  Eigen::VectorXd yb;
  block_.mass_product(pick(q, dofs), pick(x, dofs), yb);
  add_at(dofs, scale * yb, y);
}

double System::weighted_norm(const Eigen::VectorXd& dx, const Eigen::VectorXd& x, double tol,
                             int* worst_dof) const {
  const WeightedEntry worst =
      largest_weighted_entry(WeightedEntryAt{dx.data(), x.data(), coordinate_scales_.data(), tol}, dofs());
  if (worst_dof && worst.value > 0.0) *worst_dof = worst.index;  // left as it was where nothing moved
  return worst.value;
}

std::vector<int> System::unsettled_coordinates(const Eigen::VectorXd& dx, const Eigen::VectorXd& x,
                                               double tol) const {
  const WeightedEntryAt entry{dx.data(), x.data(), coordinate_scales_.data(), tol};
  std::vector<int> unsettled;
  for (int i = 0; i < dofs(); ++i)
    if (!(entry(i).value <= 1.0)) unsettled.push_back(i);
  return unsettled;
}

double System::residual_floor(double matrix_norm, double q_max_abs) const {
  constexpr double kRoundoffFactor = 64.0 * 2.220446049250313e-16;
  return kRoundoffFactor * matrix_norm * (model_.characteristic_length + q_max_abs);
}

std::string System::describe_dof(int dof) const { return describe_coordinate(model_, dof); }

std::string System::singularity_note(const Vector& q, double t) {
  if (block_.empty()) return "";
  return "at the last accepted step, " + describe_singularity(block_.mechanism(), pick(q, block_.layout().dofs), t);
}

void System::energies(const Vector& q, const Vector& v, const Eigen::VectorXd& q_host, const Eigen::VectorXd& v_host,
                      Energies& E) {
  E.elastic = backend_.strain_energy_and_momentum(q, v, E.mass_times_v);
  if (!block_.empty()) {
    const std::vector<int>& dofs = block_.layout().dofs;
    const Eigen::VectorXd x = q_host(dofs);
    Eigen::VectorXd yb, fb;
    block_.mass_product(x, v_host(dofs), yb);
    E.mass_times_v(dofs) += yb;
    E.elastic += block_.internal_force(x, Eigen::VectorXd::Zero(x.size()), 0.0, fb);
  }
  E.kinetic = 0.5 * v_host.dot(E.mass_times_v);
  E.gravitational = -q_host.dot(gravity_);
}

}  // namespace catenary
