// Generalized-alpha (Chung and Hulbert 1993) for M q'' + f(q, q') + C^T lambda = g(t), C q = b(t)
// (index 3), in the form of Arnold and Bruls (Multibody Syst. Dyn. 18:185-202, 2007): the
// equations of motion hold exactly at t1,
//   M q1'' + f(q1, v1) - g(t1) + C^T lambda1 = 0,   C q1 = b(t1),
// and the Newmark formulas use an algorithmic acceleration a,
//   (1 - alpha_m) a1 + alpha_m a0 = (1 - alpha_f) q1'' + alpha_f q0'',
//   q1 = q0 + h v0 + h^2 (1/2 - beta) a0 + h^2 beta a1,  v1 = v0 + h (1 - gamma) a0 + h gamma a1,
// with the parameters from the spectral radius at infinity rho in [0, 1]:
//   alpha_m = (2 rho - 1) / (rho + 1), alpha_f = rho / (rho + 1),
//   gamma = 1/2 + alpha_f - alpha_m,   beta = (gamma + 1/2)^2 / 4.
//
// Newton on (q1, mu): eliminate q1'' = ((1 - alpha_m) a1 + alpha_m a0 - alpha_f q0'') / (1 - alpha_f),
// a1 = (q1 - qhat) / (beta h^2), and multiply the equations of motion by
// s = beta h^2 (1 - alpha_f) / (1 - alpha_m):
//   M (q1 - qhat + beta h^2 / (1 - alpha_m) (alpha_m a0 - alpha_f q0'')) + s (f - g) + C^T mu = 0,
// mu = s lambda1. Its Jacobian in q1 (dv1/dq1 = gamma / (beta h)) gives the Newton matrix
//   [ M + s K + gamma h (1 - alpha_f) / (1 - alpha_m) D    C^T ]
//   [ C                                                     0  ]
// the structure of HHT's (Negrut et al. 2007 scaling), so NewmarkNewton and the backends'
// assembly serve both. rho = 1 is the trapezoidal rule, the same method as HHT with alpha = 0.
//
// Start: a0 = q0''. (Arnold and Bruls' perturbed start a0 = q''(t0 + (alpha_m - alpha_f) h)
// only removes a transient in a that decays by (2 rho - 1) / (rho - 2) per step; the positions
// stay second order, as tests/test_generalized_alpha.cpp measures.)
//
// Error estimate for the adaptive step: a lags q'' by (alpha_m - alpha_f) h, a(t_n) =
// q''(t_n + (alpha_m - alpha_f) h) + O(h^2), so the local error of q1 is
//   e = h^3 (beta + (alpha_m - alpha_f) / 2 - 1/6) q''' = h^2 (1/12 + (alpha_m - alpha_f)^2 / 4) (a1 - a0),
// the Zienkiewicz-Xie form of HHT with beta replaced by beta + (alpha_m - alpha_f) / 2.
#include <cmath>

#include "time_stepper.hpp"

namespace catenary {

namespace {

class GeneralizedAlphaStepper : public TimeStepper {
 public:
  GeneralizedAlphaStepper(System& sys, const DynamicSettings& s) : be_(sys.backend()), s_(s), newton_(sys, s) {
    const double rho = s.rho_infinity;
    alpha_m_ = (2.0 * rho - 1.0) / (rho + 1.0);
    alpha_f_ = rho / (rho + 1.0);
    gamma_ = 0.5 + alpha_f_ - alpha_m_;
    beta_ = 0.25 * (gamma_ + 0.5) * (gamma_ + 0.5);
    lag_ = be_.make_vector(sys.dofs());
  }

  void start(StepState& state) override { be_.copy(state.a, state.history); }

  StepOutcome step(const StepState& from, double h, StepState& to) override {
    const StepOutcome out = newton_.solve(parameters(h), from, h, lag(from), to);
    if (!out.converged) return out;
    step_history(from, h, to);
    return out;
  }

  // q1'' = ((1 - alpha_m) a1 + lag) / (1 - alpha_f)
  void step_history(const StepState& from, double, StepState& to) override {
    const double f = 1.0 / (1.0 - alpha_f_);
    be_.combine({{(1.0 - alpha_m_) * f, &to.a}, {alpha_m_ * f, &from.a}, {-alpha_f_ * f, &from.history}}, to.history);
  }

  // The design sensitivities' pieces (TimeStepper): the memory is the lag of `from`.
  void step_residual(const StepState& from, double h, StepState& to, Vector& r, Vector& rc) override {
    newton_.residual(parameters(h), from, h, lag(from), to, r, rc);
  }
  void tangent_guess(const StepState& dfrom, double h, StepState& dto) override {
    newton_.tangent_guess(parameters(h), dfrom, h, dto);
  }
  void tangent_solve(const StepState& dfrom, double h, const Vector& d, const Vector& dc, StepState& dto) override {
    newton_.tangent_solve(parameters(h), dfrom, h, d, dc, dto);
  }

  // e = h^2 (1/12 + (alpha_m - alpha_f)^2 / 4) (a1 - a0), see the file header.
  double error_estimate(const StepState& from, const StepState& to, double h) override {
    const double d = alpha_m_ - alpha_f_, k = h * h * (1.0 / 12.0 + 0.25 * d * d);
    return be_.weighted_difference_norm(k, to.a, from.a, to.q, s_.error_tolerance);
  }

  std::vector<int> unsettled_coordinates(const StepState& trial) override {
    return newton_.unsettled_coordinates(trial.q);
  }

  // The method's memory is the StepState's history; modified Newton's factorization is the
  // Newton iteration's.
  void save(StateRecord& record) override { newton_.save(record); }
  void restore(const StateRecord& record) override { newton_.restore(record); }

 private:
  NewmarkParameters parameters(double h) const {
    const double bh2 = beta_ * h * h;
    NewmarkParameters p;
    p.beta = beta_;
    p.gamma = gamma_;
    p.c.mass = 1.0;
    p.c.stiffness = bh2 * (1.0 - alpha_f_) / (1.0 - alpha_m_);
    p.c.damping = gamma_ * h * (1.0 - alpha_f_) / (1.0 - alpha_m_);
    p.c.constraint = 1.0;
    p.memory_scale = bh2 / (1.0 - alpha_m_);
    p.memory_in_coordinates = true;
    p.residual_unit = p.c.stiffness;
    return p;
  }
  // lag = alpha_m a0 - alpha_f q0'', which enters as M(q1) lag
  const Vector& lag(const StepState& from) {
    be_.combine({{alpha_m_, &from.a}, {-alpha_f_, &from.history}}, lag_);
    return lag_;
  }

  BackendVectors& be_;  // the method uses the backend's vectors alone
  const DynamicSettings& s_;
  NewmarkNewton newton_;
  double alpha_m_, alpha_f_, beta_, gamma_;
  Vector lag_;  // work vector
};

}  // namespace

std::unique_ptr<TimeStepper> make_generalized_alpha_stepper(System& sys, const DynamicSettings& s) {
  return std::make_unique<GeneralizedAlphaStepper>(sys, s);
}

}  // namespace catenary
