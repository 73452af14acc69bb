// The Newton problem of one implicit step (NewtonSolver iterates it): NewmarkNewton, which
// HHT-alpha, generalized-alpha, BDF and SDIRK share, with the design sensitivities' hooks on it and
// TimeStepper's defaults for methods without them (see time_stepper.hpp).
#include "time_stepper.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "catenary/core/errors.hpp"

namespace catenary {

namespace {

// The update test with the rate estimate (full Newton's second update ends most steps), the
// divergence test (the step control then retries a smaller step, or the run stops naming the
// place), modified Newton where the settings ask for it.
NewtonOptions dynamic_newton_options(const DynamicSettings& s) {
  NewtonOptions o;
  o.max_iterations = s.max_iterations;
  o.modified = s.newton == DynamicSettings::Newton::Modified;
  o.update_test = NewtonOptions::UpdateTest::Estimated;
  o.diverging_updates = 3;
  return o;
}

}  // namespace

// One step's Newton iteration on (q1, mu) in NewmarkNewton's backend vectors. Per iteration: the
// residual and, where the iteration refreshes it, the Newton matrix in one pass (newton_terms),
// the constraint residual, one reduction for both maxima; the solve; one pass that updates q1
// (and v1 where the iteration reads it) and measures the update. Only those scalars reach the host.
class NewmarkNewton::Iteration final : public NewtonProblem {
 public:
  Iteration(NewmarkNewton& n, const NewmarkParameters& p, double t1, double bh2, double gamma_h, const Vector& lambda0,
            const Vector* memory, bool kinematics_set, StepState& to, const std::function<void()>& first_guess)
      : n_(n), vectors_(n.vectors_), factorization_(n.factorization_), p_(p), t1_(t1), bh2_(bh2), gamma_h_(gamma_h), lambda0_(lambda0), memory_(memory),
        kinematics_set_(kinematics_set), to_(to), first_guess_(first_guess),
        index2_(n.s_.formulation == DynamicSettings::Formulation::StabilizedIndex2),
        rc_scale_(index2_ ? bh2 / gamma_h : 1.0) {}

  void start(bool again) override {
    if (again) first_guess_();
    vectors_.combine({{p_.c.stiffness, &lambda0_}}, n_.mu_);
    // v1 from q1 here (unless given) where the residual reads it, then by the updates of q1
    // (apply): the kinematics are affine. a1 is not kept during the iteration (kinematics).
    if (!kinematics_set_ && n_.velocity_in_iteration_) n_.kinematics(to_.q, bh2_, gamma_h_, to_, false);
    // r = -(M (q1 - qhat + k m) + s (f - g) + C^T mu)   (memory in coordinates), or
    // r = -(M (q1 - qhat) + s (f - g) + k m + C^T mu)   (memory as a force);  rc = -(Phi(q1, t1)).
    // newton_terms returns r = fixed_terms - (s f + M (q1 - origin) + C^T mu) (ForceTerms), origin =
    // qhat, or qhat - k m for the memory in coordinates (formed once a step).
    const Vector* origin = &n_.qhat_;
    if (memory_ && p_.memory_in_coordinates) {
      if (n_.mass_origin_.size() == 0) n_.mass_origin_ = vectors_.make_vector(n_.sys_.dofs());
      vectors_.combine({{1.0, &n_.qhat_}, {-p_.memory_scale, memory_}}, n_.mass_origin_);
      origin = &n_.mass_origin_;
    }
    terms_ = ForceTerms{p_.c.stiffness, 1.0, origin, &n_.fixed_terms_};
    largest_q_ = 0.0;
  }

  NewtonResidual evaluate(bool matrix) override {
    n_.sys_.newton_terms(to_.q, to_.v, t1_, terms_, n_.mu_, p_.c, n_.r_, n_.phi_, NewtonTermsForm{matrix, index2_});
    vectors_.combine({{rc_scale_, &n_.b_}, {-rc_scale_, &n_.phi_}}, n_.rc_);
    double maxima[2];  // |r|, |rc|
    vectors_.max_abs_each({&n_.r_, &n_.rc_}, maxima);
    return {std::max(maxima[0], maxima[1]), maxima[0] / p_.residual_unit};
  }

  // The round-off floor at max |q1| of the last update (0 before one).
  double residual_limit() override {
    return n_.sys_.residual_floor(n_.sys_.newton_matrix_norm(), largest_q_);
  }

  long factorize() override {
    const long id = factorization_.factorize();
    n_.kept_coefficients_ = p_.c;
    if (n_.solver_.options().modified) n_.keep_point(to_, *terms_.origin, t1_);
    return id;
  }

  bool holds(long factorization) override {
    return factorization == factorization_.factorization() && same_coefficients(p_.c, n_.kept_coefficients_);
  }

  void solve() override { factorization_.solve_newton_update(n_.r_, n_.rc_, n_.dq_, n_.dmu_); }

  NewtonUpdate apply(double) override {
    const double tol = n_.s_.newton_tolerance;
    const UpdateNorms u = n_.velocity_in_iteration_
                              ? vectors_.add_update(n_.dq_, to_.q, {{gamma_h_ / bh2_, &to_.v}}, tol)
                              : vectors_.add_update(n_.dq_, to_.q, {}, tol);
    vectors_.axpby(1.0, n_.dmu_, 1.0, n_.mu_);
    largest_q_ = u.max_abs;
    return {u.weighted, u.worst};
  }

  // A failed iteration's only vector download.
  std::vector<int> non_finite_entries() override {
    Eigen::VectorXd r;
    vectors_.download(n_.r_, r);
    std::vector<int> entries;
    for (int i = 0; i < r.size(); ++i)
      if (!std::isfinite(r[i])) entries.push_back(i);
    return entries;
  }

  std::string describe(int entry) override { return n_.sys_.describe_dof(entry); }

 private:
  NewmarkNewton& n_;
  BackendVectors& vectors_;
  BackendFactorization& factorization_;
  const NewmarkParameters& p_;
  const double t1_, bh2_, gamma_h_;
  const Vector& lambda0_;
  const Vector* memory_;
  const bool kinematics_set_;
  StepState& to_;
  const std::function<void()>& first_guess_;
  const bool index2_;
  const double rc_scale_;
  ForceTerms terms_;
  double largest_q_ = 0.0;  // max |q1| after the last update (the residual floor's scale)
};

namespace {

[[noreturn]] void no_tangent() {
  throw std::logic_error("this integrator has no design sensitivities (the case reader refuses them)");
}

}  // namespace

void TimeStepper::step_residual(const StepState&, double, StepState&, Vector&, Vector&) { no_tangent(); }
void TimeStepper::step_history(const StepState&, double, StepState&) { no_tangent(); }
void TimeStepper::tangent_guess(const StepState&, double, StepState&) { no_tangent(); }
void TimeStepper::tangent_solve(const StepState&, double, const Vector&, const Vector&, StepState&) { no_tangent(); }

NewmarkNewton::NewmarkNewton(System& sys, const DynamicSettings& s)
    : sys_(sys),
      vectors_(sys.backend()),
      factorization_(sys.backend()),
      s_(s),
      velocity_in_iteration_(s.formulation == DynamicSettings::Formulation::StabilizedIndex2 ||
                             sys.velocity_in_residual()),
      solver_(dynamic_newton_options(s)) {
  const int n = sys.dofs(), m = sys.constraints();
  for (Vector* x : {&qhat_, &vhat_, &fixed_terms_, &r_, &dq_}) *x = vectors_.make_vector(n);
  for (Vector* x : {&mu_, &b_, &phi_, &rc_, &dmu_}) *x = vectors_.make_vector(m);
}

StepOutcome NewmarkNewton::solve(const NewmarkParameters& p, const StepState& from, double h, const Vector& memory,
                                 StepState& to) {
  const double bh2 = p.beta * h * h, t1 = from.t + h;
  const auto attempt = [&](bool extrapolated) {
    return solve_affine(p, t1, bh2, p.gamma * h, from.lambda, &memory, to,
                        [&] { first_guess(p, from, h, extrapolated, to); }, extrapolated);
  };
  if (!extrapolate_) return attempt(false);
  // The extrapolation is the better guess for smooth motion (two full-Newton iterations a step on
  // the shipped cases, against about three from q0), but where the stiff modes dominate a step
  // (a cable of short elements: the falling cable from 1,024 elements at h = 1e-3 s) the
  // accelerations a0 hold their high frequencies, which the step damps, and Newton diverges from
  // it. A step that fails from it is tried again from q0, and where that converges the run keeps
  // q0 as its guess (docs/performance.md, "Newton under mesh refinement").
  const StepOutcome extrapolated = attempt(true);
  if (extrapolated.converged) return extrapolated;
  StepOutcome from_rest = attempt(false);
  from_rest.iterations += extrapolated.iterations;
  from_rest.updates += extrapolated.updates;
  if (from_rest.converged) extrapolate_ = false;
  return from_rest;
}

StepOutcome NewmarkNewton::solve_affine(const NewmarkParameters& p, double t1, double bh2, double gamma_h,
                                        const Vector& lambda0, const Vector* memory, StepState& to,
                                        const std::function<void()>& first_guess, bool kinematics_set) {
  first_guess();
  fixed_terms(p, t1, memory);
  const bool index2 = s_.formulation == DynamicSettings::Formulation::StabilizedIndex2;

  // Modified Newton starts from the factorization an earlier step left where the backend still
  // holds it and the coefficients are the same (NewtonSolver).
  Iteration iteration(*this, p, t1, bh2, gamma_h, lambda0, memory, kinematics_set, to, first_guess);
  StepOutcome out = solver_.solve(iteration);
  if (!out.converged) return out;
  to.t = t1;
  kinematics(to.q, bh2, gamma_h, to, true);
  if (index2) project_positions(t1, to);
  vectors_.combine({{1.0 / p.c.stiffness, &mu_}}, to.lambda);
  return out;
}

Combinations& NewmarkNewton::hats(Combinations& c, const NewmarkParameters& p, double h) {
  return c.into(qhat_, {1.0, h, h * h * (0.5 - p.beta)}).into(vhat_, {0.0, 1.0, h * (1.0 - p.gamma)});
}

// Extrapolated: the predictor a1 = a0 with its q1 = qhat + bh2 a0 and, where the iteration reads it,
// v1 = vhat + gamma h a0; else q1 = q0 (v1 then follows from q1 in the iteration's start; a1 and v1
// follow at convergence: kinematics).
void NewmarkNewton::first_guess(const NewmarkParameters& p, const StepState& from, double h, bool extrapolated,
                                StepState& to) {
  Combinations c({&from.q, &from.v, &from.a});
  hats(c, p, h);
  if (extrapolated) {
    c.into(to.q, {1.0, h, 0.5 * h * h});
    if (velocity_in_iteration_) c.into(to.v, {0.0, 1.0, h});
  } else {
    c.into(to.q, {1.0, 0.0, 0.0});
  }
  vectors_.combine(c);
}

void NewmarkNewton::fixed_terms(const NewmarkParameters& p, double t1, const Vector* memory) {
  // The residual's terms that stay fixed through the step: s g(t1), less k m for a memory force, in
  // one pass over the load patterns (and m). With none, fixed_terms_ keeps the zeros it was made
  // with (whether there are any depends on the model and the method only).
  std::vector<Scaled> fixed;
  const std::vector<double> load_scales = sys_.load_patterns().scales_at(t1);
  for (size_t k = 0; k < load_scales.size(); ++k)
    fixed.push_back({p.c.stiffness * load_scales[k], &sys_.load_vectors()[k]});
  if (memory && !p.memory_in_coordinates) fixed.push_back({-p.memory_scale, memory});
  if (!fixed.empty()) vectors_.combine(fixed, fixed_terms_);
  // Index 3: rc = -(Phi(q1, t1)). Stabilized index 2: rc = -(Phi_q v1 - nu) bh2 / gamma_h, the
  // velocity constraints scaled by dq1/dv1 so that the matrix's constraint blocks stay Phi_q.
  const bool index2 = s_.formulation == DynamicSettings::Formulation::StabilizedIndex2;
  Eigen::VectorXd b;
  sys_.constraint_rhs(t1, b, index2 ? 1 : 0);
  vectors_.upload(b, b_);
}

void NewmarkNewton::residual(const NewmarkParameters& p, const StepState& from, double h, const Vector& memory,
                             StepState& to, Vector& r, Vector& rc) {
  const double bh2 = p.beta * h * h, t1 = from.t + h;
  Combinations c({&from.q, &from.v, &from.a});
  vectors_.combine(hats(c, p, h));
  fixed_terms(p, t1, &memory);
  // The iteration's start (mu = s lambda1, v1 from q1) and one evaluation without the matrix.
  static const std::function<void()> no_guess = [] {};
  Iteration iteration(*this, p, t1, bh2, p.gamma * h, to.lambda, &memory, false, to, no_guess);
  iteration.start(false);
  iteration.evaluate(false);
  vectors_.copy(r_, r);
  vectors_.copy(rc_, rc);
}

void NewmarkNewton::tangent_guess(const NewmarkParameters& p, const StepState& dfrom, double h, StepState& dto) {
  first_guess(p, dfrom, h, true, dto);
  vectors_.copy(dfrom.lambda, dto.lambda);
}

// The unknowns are (q1, mu) with mu = s lambda1; the kinematics are linear in (q1, qhat, vhat), so
// their derivatives follow from the derivatives of q1 and of the step's start.
void NewmarkNewton::tangent_solve(const NewmarkParameters& p, const StepState& dfrom, double h, const Vector& d,
                                  const Vector& dc, StepState& dto) {
  factorization_.solve(d, dc, dq_, dmu_);
  vectors_.axpby(1.0, dq_, 1.0, dto.q);
  vectors_.axpby(1.0 / p.c.stiffness, dmu_, 1.0, dto.lambda);
  Combinations c({&dfrom.q, &dfrom.v, &dfrom.a});
  vectors_.combine(hats(c, p, h));
  kinematics(dto.q, p.beta * h * h, p.gamma * h, dto, true);
}

std::vector<int> NewmarkNewton::unsettled_coordinates(const Vector& q1) {
  Eigen::VectorXd dq, q;
  vectors_.download(dq_, dq);
  vectors_.download(q1, q);
  return sys_.unsettled_coordinates(dq, q, s_.newton_tolerance);
}

void NewmarkNewton::keep_point(const StepState& to, const Vector& origin, double t1) {
  if (kept_q_.size() == 0) {
    for (Vector* x : {&kept_q_, &kept_v_, &kept_origin_}) *x = vectors_.make_vector(sys_.dofs());
    kept_mu_ = vectors_.make_vector(sys_.constraints());
  }
  vectors_.copy(to.q, kept_q_);
  vectors_.copy(to.v, kept_v_);
  vectors_.copy(mu_, kept_mu_);
  vectors_.copy(origin, kept_origin_);
  kept_t_ = t1;
}

void NewmarkNewton::save(StateRecord& record) {
  record.set("newton.extrapolate", extrapolate_ ? 1.0 : 0.0);
  const bool kept = solver_.kept() != 0 && kept_q_.size() > 0;
  record.set("newton.kept", kept ? 1.0 : 0.0);
  if (!kept) return;
  Eigen::VectorXd x;
  const std::pair<const char*, const Vector*> vectors[] = {
      {"newton.kept.q", &kept_q_}, {"newton.kept.v", &kept_v_}, {"newton.kept.mu", &kept_mu_}, {"newton.kept.origin", &kept_origin_}};
  for (const auto& [key, vector] : vectors) {
    vectors_.download(*vector, x);
    record.set(key, x);
  }
  record.set("newton.kept.t", kept_t_);
  record.set("newton.kept.mass", kept_coefficients_.mass);
  record.set("newton.kept.stiffness", kept_coefficients_.stiffness);
  record.set("newton.kept.damping", kept_coefficients_.damping);
  record.set("newton.kept.constraint", kept_coefficients_.constraint);
}

void NewmarkNewton::restore(const StateRecord& record) {
  extrapolate_ = record.count("newton.extrapolate") != 0;
  if (record.count("newton.kept") == 0) return;
  const int n = sys_.dofs(), m = sys_.constraints();
  for (Vector* x : {&kept_q_, &kept_v_, &kept_origin_}) *x = vectors_.make_vector(n);
  kept_mu_ = vectors_.make_vector(m);
  vectors_.upload(record.vector("newton.kept.q", n), kept_q_);
  vectors_.upload(record.vector("newton.kept.v", n), kept_v_);
  vectors_.upload(record.vector("newton.kept.mu", m), kept_mu_);
  vectors_.upload(record.vector("newton.kept.origin", n), kept_origin_);
  kept_t_ = record.number("newton.kept.t");
  NewtonMatrixCoefficients c;
  c.mass = record.number("newton.kept.mass");
  c.stiffness = record.number("newton.kept.stiffness");
  c.damping = record.number("newton.kept.damping");
  c.constraint = record.number("newton.kept.constraint");
  const bool index2 = s_.formulation == DynamicSettings::Formulation::StabilizedIndex2;
  sys_.newton_terms(kept_q_, kept_v_, kept_t_, ForceTerms{c.stiffness, 1.0, &kept_origin_, &fixed_terms_}, kept_mu_, c,
                    r_, phi_, NewtonTermsForm{true, index2});
  solver_.adopt(factorization_.factorize());
  kept_coefficients_ = c;
}

bool NewmarkNewton::same_coefficients(const NewtonMatrixCoefficients& a, const NewtonMatrixCoefficients& b) {
  return a.mass == b.mass && a.stiffness == b.stiffness && a.damping == b.damping && a.constraint == b.constraint;
}

// The positions of a stabilized index-2 step, back onto Phi(q, t1) = 0: q1 += dq with
// [H Phi_q^T; Phi_q 0] [dq; eta] = [0; -Phi], the last Newton factorization (the H^-1 Phi_q^T
// direction of Gear-Gupta-Leimkuhler's multiplier eta, with the step's own metric). The step's
// velocities and accelerations are kept, as in GGL's q' = v + (...) eta; where the joints'
// Jacobian changed with the positions, the velocities are then put back on Phi_q v = nu the same
// way (a correction of the size of the position drift).
void NewmarkNewton::project_positions(double t1, StepState& to) {
  Eigen::VectorXd b;
  vectors_.axpby(0.0, r_, 0.0, r_);  // no force on the right-hand side
  auto project = [&](bool velocity_level, Vector& x) {
    sys_.constraint_rhs(t1, b, velocity_level ? 1 : 0);
    vectors_.upload(b, b_);
    sys_.constraint_residual(to.q, to.v, b_, t1, velocity_level, phi_);
    vectors_.combine({{-1.0, &phi_}}, rc_);
    factorization_.solve(r_, rc_, dq_, dmu_);
    vectors_.axpby(1.0, dq_, 1.0, x);
  };
  // Linear rows: one pass is exact; the joints' nonlinear rows take up to three.
  for (int pass = 0; pass < 3; ++pass) {
    project(false, to.q);
    if (sys_.multibody().empty() || vectors_.weighted_norm(dq_, to.q, s_.newton_tolerance, nullptr) <= 1e-3) break;
  }
  if (!sys_.multibody().empty()) project(true, to.v);
}

void NewmarkNewton::kinematics(const Vector& q1, double bh2, double gamma_h, StepState& to, bool acceleration) {
  Combinations c({&q1, &qhat_, &vhat_});
  c.into(to.v, {gamma_h / bh2, -gamma_h / bh2, 1.0});
  if (acceleration) c.into(to.a, {1.0 / bh2, -1.0 / bh2, 0.0});
  vectors_.combine(c);
}

}  // namespace catenary
