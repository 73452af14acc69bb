// Static equilibrium: R(q, lambda; s) = [f_int(q) - s g + C^T lambda; C q - b] = 0 for load
// factors s = 1/n, 2/n, ..., 1, each solved by NewtonSolver (newton.hpp) with a line search on the
// potential energy and a Levenberg-Marquardt shift where the Newton matrix is singular or its
// update climbs the energy; a load step that does not converge is bisected (down to 1/1024 of the
// load).
#include <cmath>
#include <sstream>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/integrators/progress.hpp"
#include "catenary/solve/newton.hpp"

namespace catenary {

namespace {

// Full Newton (a matrix a step), tested on the update alone: its updates may be shifted or
// scaled by the line search, which voids the rate that the dynamic estimate rests on; and without
// the divergence test, as the line search and the shift may take updates that grow on their way.
NewtonOptions static_newton_options(const StaticSettings& s) {
  NewtonOptions o;
  o.max_iterations = s.max_iterations;
  o.update_test = NewtonOptions::UpdateTest::Plain;
  o.diverging_updates = 0;
  o.line_search = true;
  o.shift = true;
  return o;
}

// Newton at one load level on (q, lambda), on the host.
class StaticEquilibrium final : public NewtonProblem {
 public:
  StaticEquilibrium(System& sys, const StaticSettings& s, const Eigen::VectorXd& g, double mass_norm, double load,
                    Eigen::VectorXd& q, Eigen::VectorXd& lambda)
      : sys_(sys), s_(s), g_(g), mass_norm_(mass_norm), load_(load), q_(q), lambda_(lambda),
        zero_(Eigen::VectorXd::Zero(sys.dofs())) {
    c_.stiffness = 1.0;
  }

  // R at the iterate (kept from the line search where it ended there), and the Newton matrix.
  NewtonResidual evaluate(bool) override {
    if (!residual_current_) residual(q_, lambda_, r_);
    residual_current_ = false;
    sys_.assemble_newton_matrix(q_, zero_, 0.0, c_, f_, &lambda_);
    const double norm = r_.lpNorm<Eigen::Infinity>();
    return {r_.allFinite() ? norm : INFINITY, norm};
  }

  double residual_limit() override {
    return sys_.residual_floor(sys_.newton_matrix_norm(), q_.lpNorm<Eigen::Infinity>());
  }

  long factorize() override { return sys_.backend().factorize(); }

  void solve() override { sys_.backend().solve(-r_, delta_); }

  // Near unstable equilibria K is indefinite and the Newton update may climb the energy
  // (d^T R >= 0), which leads to saddle points such as an inverted catenary; a mechanism's free
  // motions (a pendulum at lambda = 0) make K singular. The shift mu M then regularizes it.
  NewtonShiftScale shift_scale() override { return {sys_.newton_matrix_norm(), mass_norm_}; }
  bool descends() override { return !(delta_.head(sys_.dofs()).dot(r_.head(sys_.dofs())) >= 0.0); }
  void shift(double mu) override {
    NewtonMatrixCoefficients shifted = c_;
    shifted.mass = mu;
    sys_.assemble_newton_matrix(q_, zero_, 0.0, shifted, f_, &lambda_);
  }

  double update_norm() override {
    update_ = sys_.weighted_norm(delta_.head(sys_.dofs()), q_, s_.tolerance, &worst_);
    return update_;
  }

  // Line search on the potential energy along the Newton direction d: its slope is
  // d^T R(q + s d). Take s = 1 unless the energy rises again before s = 1 (slope > 0 there); then
  // find the minimum by regula falsi. Residual-decrease line searches stall on stiff strings,
  // where the full step rightly trades a large axial residual for the right bending shape.
  // Leaves R at the returned step for the next evaluation.
  double line_search() override {
    const int n = sys_.dofs(), m = sys_.constraints();
    const Eigen::VectorXd& d = delta_;
    auto slope = [&](double step, Eigen::VectorXd& r_step) {
      residual(q_ + step * d.head(n), lambda_ + step * d.tail(m), r_step);
      return d.head(n).dot(r_step.head(n));
    };
    residual_current_ = true;
    const double s0 = d.head(n).dot(r_.head(n));
    double s1 = slope(1.0, r_);
    if (!(s0 < 0.0) || !std::isfinite(s1) || s1 <= 0.5 * std::fabs(s0)) return 1.0;
    double lo = 0.0, f_lo = s0, hi = 1.0, f_hi = s1, step = 1.0;
    for (int k = 0; k < 8; ++k) {
      step = std::max(0.05, lo - f_lo * (hi - lo) / (f_hi - f_lo));
      const double f = slope(step, r_);
      if (std::fabs(f) <= 0.5 * std::fabs(s0)) break;
      if (f < 0.0) { lo = step; f_lo = f; } else { hi = step; f_hi = f; }
    }
    return step;
  }

  // The update's norm is the one measured before the step (update_norm).
  NewtonUpdate apply(double step) override {
    const int n = sys_.dofs(), m = sys_.constraints();
    q_ += step * delta_.head(n);
    lambda_ += step * delta_.tail(m);
    return {update_, worst_};
  }

  std::vector<int> non_finite_entries() override {
    std::vector<int> entries;
    for (int i = 0; i < sys_.dofs(); ++i)
      if (!std::isfinite(r_[i])) entries.push_back(i);
    return entries;
  }

  std::string describe(int entry) override { return sys_.describe_dof(entry); }

 private:
  // R = [f_int(q) - load g + C^T lambda; C q - b].
  void residual(const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, Eigen::VectorXd& r) {
    const int n = sys_.dofs(), m = sys_.constraints();
    Eigen::VectorXd f, Cl, phi;
    sys_.internal_force(q, zero_, 0.0, f);
    sys_.constraint_transpose_product(q, lambda, Cl);
    sys_.constraint_residual(q, 0.0, phi);
    r.resize(n + m);
    r.head(n) = f - load_ * g_ + Cl;
    r.tail(m) = phi;
  }

  System& sys_;
  const StaticSettings& s_;
  const Eigen::VectorXd& g_;  // full external load
  const double mass_norm_;    // ||M||_inf, the scale of the shift
  const double load_;
  Eigen::VectorXd& q_;
  Eigen::VectorXd& lambda_;
  const Eigen::VectorXd zero_;
  NewtonMatrixCoefficients c_;
  Eigen::VectorXd r_, f_, delta_;
  bool residual_current_ = false;  // r_ is R at the iterate (the line search ended there)
  double update_ = 0.0;
  int worst_ = -1;
};

}  // namespace

void run_static(System& sys, const StaticSettings& s, const FrameSink& sink, RunSummary& summary) {
  summary.analysis = "static";
  Progress progress("static");
  const int n = sys.dofs();
  ConsistentState init = consistent_initial_state(sys, 0.0);
  Eigen::VectorXd q = init.q, lambda = Eigen::VectorXd::Zero(sys.constraints());
  const Eigen::VectorXd zero_v = Eigen::VectorXd::Zero(n);

  Eigen::VectorXd g;
  sys.external_force(0.0, g);
  double mass_norm = 1.0;  // ||M||_inf, to scale the regularization of indefinite steps
  {
    NewtonMatrixCoefficients mass_only;
    mass_only.mass = 1.0;
    Eigen::VectorXd f;
    sys.assemble_newton_matrix(q, zero_v, 0.0, mass_only, f);
    mass_norm = std::max(sys.newton_matrix_norm(), 1e-300);
  }
  NewtonSolver solver(static_newton_options(s));

  // The load factor plays the role of time in static output.
  auto emit = [&](double load, int iterations) { emit_frame(sys, load, 0.0, iterations, q, zero_v, lambda, sink); };
  emit(0.0, 0);

  double load = 0.0, increment = 1.0 / std::max(1, s.load_steps);
  const double min_increment = increment / 1024.0;
  while (load < 1.0 - 1e-12) {
    const double target = std::min(1.0, load + increment);
    Eigen::VectorXd q1 = q, l1 = lambda;
    StaticEquilibrium equilibrium(sys, s, g, mass_norm, target, q1, l1);
    const NewtonOutcome out = solver.solve(equilibrium);
    summary.newton_iterations += out.iterations;
    summary.last_residual = out.last_residual;
    if (!out.converged) {
      summary.rejected_steps++;
      increment *= 0.5;
      if (increment < min_increment) {
        std::ostringstream msg;
        msg << "static analysis failed at load factor " << target << " after bisecting the load step to "
            << 2.0 * increment << ": "
            << newton_diagnosis(out, "residual", "N", [&](int dof) { return sys.describe_dof(dof); });
        throw SimulationError(msg.str());
      }
      continue;
    }
    q = q1;
    lambda = l1;
    load = target;
    summary.steps++;
    summary.end_time = load;
    emit(load, out.iterations);
    progress.update(load, load, summary.steps);
  }
}

}  // namespace catenary
