// HHT-alpha for M q'' + f(q, q') + C^T lambda = g(t), C q = b(t) (index 3).
//
// Newmark: q1 = qhat + beta h^2 a1, v1 = vhat + gamma h a1 with qhat = q0 + h v0 + h^2 (1/2 - beta) a0,
// vhat = v0 + h (1 - gamma) a0, gamma = 1/2 - alpha, beta = (1 - alpha)^2 / 4.
// Equilibrium:  M a1 + (1 + alpha) F1 - alpha F0 = 0,  F = f - g + C^T lambda.
// Newton on the unknowns (q1, mu) with mu = beta h^2 (1 + alpha) lambda1; the dynamic equations
// are multiplied by beta h^2 so the Newton matrix is
//   [ M + beta h^2 (1+alpha) K + gamma h (1+alpha) D    C^T ]
//   [ C                                                  0  ]
// whose blocks stay O(1) relative to each other as h -> 0 (Negrut et al., J. Comput. Nonlinear
// Dyn. 2(1), 2007). In the terms of NewmarkNewton (time_stepper.hpp): s = beta h^2 (1 + alpha),
// constant force -beta h^2 alpha F0.
#include <memory>

#include "time_stepper.hpp"

namespace catenary {

namespace {

class HHTStepper : public TimeStepper {
 public:
  HHTStepper(System& sys, const DynamicSettings& s) : sys_(sys), be_(sys.backend()), s_(s), newton_(sys, s) {
    alpha_ = s.alpha;
    gamma_ = 0.5 - alpha_;
    beta_ = 0.25 * (1.0 - alpha_) * (1.0 - alpha_);
  }

  // F0 = f - g + C^T lambda from the initial state's equations of motion, M a0 + F0 = 0, as each
  // step ends: a mass product on the backend's vectors instead of an element pass on the host's.
  void start(StepState& state) override { sys_.mass_product(state.q, state.t, state.a, state.history, -1.0); }

  StepOutcome step(const StepState& from, double h, StepState& to) override {
    const StepOutcome out = newton_.solve(parameters(h), from, h, from.history, to);
    if (!out.converged) return out;
    step_history(from, h, to);
    return out;
  }

  // F1 from the converged equilibrium M a1 + (1 + alpha) F1 - alpha F0 = 0, without another
  // element pass: the mass product and the combination in one pass.
  void step_history(const StepState& from, double, StepState& to) override {
    sys_.mass_product(to.q, to.t, to.a, to.history, -1.0 / (1.0 + alpha_), {alpha_ / (1.0 + alpha_), &from.history});
  }

  // The design sensitivities' pieces (TimeStepper): the memory force is from.history.
  void step_residual(const StepState& from, double h, StepState& to, Vector& r, Vector& rc) override {
    newton_.residual(parameters(h), from, h, from.history, to, r, rc);
  }
  void tangent_guess(const StepState& dfrom, double h, StepState& dto) override {
    newton_.tangent_guess(parameters(h), dfrom, h, dto);
  }
  void tangent_solve(const StepState& dfrom, double h, const Vector& d, const Vector& dc, StepState& dto) override {
    newton_.tangent_solve(parameters(h), dfrom, h, d, dc, dto);
  }

  // Local error estimate of the Newmark family (Zienkiewicz and Xie 1991):
  // e = h^2 (beta - 1/6) (a1 - a0), measured against the error tolerance.
  double error_estimate(const StepState& from, const StepState& to, double h) override {
    const double k = h * h * std::fabs(beta_ - 1.0 / 6.0);
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
    p.c.stiffness = bh2 * (1.0 + alpha_);
    p.c.damping = gamma_ * h * (1.0 + alpha_);
    p.c.constraint = 1.0;
    p.memory_scale = -bh2 * alpha_;
    p.residual_unit = bh2;
    return p;
  }

  System& sys_;
  BackendVectors& be_;  // the method uses the backend's vectors alone
  const DynamicSettings& s_;
  NewmarkNewton newton_;
  double alpha_, beta_, gamma_;
};

}  // namespace

std::unique_ptr<TimeStepper> make_hht_stepper(System& sys, const DynamicSettings& s) {
  return std::make_unique<HHTStepper>(sys, s);
}

}  // namespace catenary
