// Static equilibrium: R(q, lambda; s) = [f_int(q) - s g + C^T lambda; C q - b] = 0 for load
// factors s = 1/n, 2/n, ..., 1, each solved by NewtonSolver (newton.hpp) with a line search on the
// potential energy and a Levenberg-Marquardt shift where the Newton matrix is singular or its
// update climbs the energy. Each load step starts from the secant through the last two
// equilibria (the previous one alone for the first step); a load step that does not converge is
// bisected (down to 1/1024 of the load), and the increment doubles again after easy steps.
#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/integrators/progress.hpp"
#include "catenary/solve/newton.hpp"

namespace catenary {

namespace {

// Newton iterations of a load step under which a bisected increment doubles again (5 to 12 take
// about the same load steps: performance.md, "Load steps in statics").
constexpr int kEasyStepIterations = 8;

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

// The iterate and the scratch of static equilibrium, in the backend's memory.
struct StaticVectors {
  StaticVectors(BackendVectors& b, int n, int m)
      : q(b.make_vector(n)), lambda(b.make_vector(m)), zero_v(b.make_vector(n)), load(b.make_vector(n)),
        b(b.make_vector(m)), y(b.make_vector(n)), phi(b.make_vector(m)), rc(b.make_vector(m)),
        dq(b.make_vector(n)), dlambda(b.make_vector(m)), q_step(b.make_vector(n)), lambda_step(b.make_vector(m)) {}
  Vector q, lambda;
  Vector zero_v;              // no velocities
  Vector load;                // the load level's s g
  Vector b;                   // b of the linear rows Phi = C q - b
  Vector y, phi, rc;          // -R = [y; rc] = [s g - f_int(q) - Phi_q^T lambda; -Phi(q)]; phi: newton_terms' rows
  Vector dq, dlambda;         // the Newton update
  Vector q_step, lambda_step; // a point of the line search
};

// -R at (q, lambda) into x.y and x.rc; with matrix, the Newton matrix with coefficients c too.
void static_residual(System& sys, StaticVectors& x, const Vector& q, const Vector& lambda, bool matrix,
                     const NewtonMatrixCoefficients& c) {
  sys.newton_terms(q, x.zero_v, 0.0, ForceTerms{1.0, 0.0, &q, &x.load}, lambda, c, x.y, x.phi,
                   NewtonTermsForm{matrix});
  sys.backend().combine({{1.0, &x.b}, {-1.0, &x.phi}}, x.rc);
}

// Newton at one load level on (q, lambda).
class StaticEquilibrium final : public NewtonProblem {
 public:
  StaticEquilibrium(System& sys, const StaticSettings& s, double mass_norm, StaticVectors& x)
      : sys_(sys), backend_(sys.backend()), s_(s), mass_norm_(mass_norm), x_(x) {
    c_.stiffness = 1.0;
  }

  // R and the Newton matrix at the iterate.
  NewtonResidual evaluate(bool) override {
    static_residual(sys_, x_, x_.q, x_.lambda, true, c_);
    double maxima[2];
    backend_.max_abs_each({&x_.y, &x_.rc}, maxima);
    const double norm = std::max(maxima[0], maxima[1]);
    return {norm, norm};
  }

  double residual_limit() override {
    return sys_.residual_floor(sys_.newton_matrix_norm(), backend_.max_abs(x_.q));
  }

  long factorize() override { return backend_.factorize(); }

  void solve() override { backend_.solve(x_.y, x_.rc, x_.dq, x_.dlambda); }

  // Near unstable equilibria K is indefinite and the Newton update may climb the energy
  // (d^T R >= 0), which leads to saddle points such as an inverted catenary; a mechanism's free
  // motions (a pendulum at lambda = 0) make K singular. The shift mu M then regularizes it.
  NewtonShiftScale shift_scale() override { return {sys_.newton_matrix_norm(), mass_norm_}; }
  bool descends() override { return !(-backend_.dot(x_.dq, x_.y) >= 0.0); }
  void shift(double mu) override {
    NewtonMatrixCoefficients shifted = c_;
    shifted.mass = mu;
    static_residual(sys_, x_, x_.q, x_.lambda, true, shifted);
  }

  double update_norm() override {
    update_ = backend_.weighted_norm(x_.dq, x_.q, s_.tolerance, &worst_);
    return update_;
  }

  // Line search on the potential energy along the Newton direction d: its slope is
  // d^T R(q + s d). Take s = 1 unless the energy rises again before s = 1 (slope > 0 there); then
  // find the minimum by regula falsi. Residual-decrease line searches stall on stiff strings,
  // where the full step rightly trades a large axial residual for the right bending shape.
  double line_search() override {
    auto slope = [&](double step) {
      backend_.combine({{1.0, &x_.q}, {step, &x_.dq}}, x_.q_step);
      backend_.combine({{1.0, &x_.lambda}, {step, &x_.dlambda}}, x_.lambda_step);
      static_residual(sys_, x_, x_.q_step, x_.lambda_step, false, c_);
      return -backend_.dot(x_.dq, x_.y);
    };
    const double s0 = -backend_.dot(x_.dq, x_.y);
    const double s1 = slope(1.0);
    if (!(s0 < 0.0) || !std::isfinite(s1) || s1 <= 0.5 * std::fabs(s0)) return 1.0;
    double lo = 0.0, f_lo = s0, hi = 1.0, f_hi = s1, step = 1.0;
    for (int k = 0; k < 8; ++k) {
      step = std::max(0.05, lo - f_lo * (hi - lo) / (f_hi - f_lo));
      const double f = slope(step);
      if (std::fabs(f) <= 0.5 * std::fabs(s0)) break;
      if (f < 0.0) { lo = step; f_lo = f; } else { hi = step; f_hi = f; }
    }
    return step;
  }

  // The update's norm is the one measured before the step (update_norm).
  NewtonUpdate apply(double step) override {
    backend_.axpby(step, x_.dq, 1.0, x_.q);
    backend_.axpby(step, x_.dlambda, 1.0, x_.lambda);
    return {update_, worst_};
  }

  std::vector<int> non_finite_entries() override {
    Eigen::VectorXd y;
    backend_.download(x_.y, y);
    std::vector<int> entries;
    for (int i = 0; i < sys_.dofs(); ++i)
      if (!std::isfinite(y[i])) entries.push_back(i);
    return entries;
  }

  std::string describe(int entry) override { return sys_.describe_dof(entry); }

 private:
  System& sys_;
  Backend& backend_;
  const StaticSettings& s_;
  const double mass_norm_;  // ||M||_inf, the scale of the shift
  StaticVectors& x_;
  NewtonMatrixCoefficients c_;
  double update_ = 0.0;
  int worst_ = -1;
};

}  // namespace

namespace {

// Static equilibrium by load stepping from the consistent initial state: `accepted` sees the
// start (load 0) and each accepted load step's state in x; the last one is the equilibrium.
void step_loads(System& sys, const StaticSettings& s, RunSummary& summary, const Interruption* interruption,
                const std::function<void(const StaticVectors& x, double load, int iterations)>& accepted) {
  Progress progress("static");
  Backend& backend = sys.backend();
  const int n = sys.dofs(), m = sys.constraints();
  const ConsistentState init = consistent_initial_state(sys, 0.0);
  StaticVectors x(backend, n, m);
  backend.upload(init.q, x.q);
  Eigen::VectorXd b;
  sys.constraint_rhs(0.0, b);
  backend.upload(b, x.b);
  Vector g = backend.make_vector(n), q_accepted = backend.make_vector(n), lambda_accepted = backend.make_vector(m);
  Vector q_before = backend.make_vector(n), lambda_before = backend.make_vector(m);
  double load_before = -1.0;
  sys.external_force(0.0, g);

  double mass_norm = 1.0;  // ||M||_inf, to scale the regularization of indefinite steps
  {
    NewtonMatrixCoefficients mass_only;
    mass_only.mass = 1.0;
    static_residual(sys, x, x.q, x.lambda, true, mass_only);
    mass_norm = std::max(sys.newton_matrix_norm(), 1e-300);
  }
  NewtonSolver solver(static_newton_options(s));

  accepted(x, 0.0, 0);

  const double base_increment = 1.0 / std::max(1, s.load_steps);
  double load = 0.0, increment = base_increment;
  const double min_increment = increment / 1024.0;
  while (load < 1.0 - 1e-12) {
    const double target = std::min(1.0, load + increment);
    backend.copy(x.q, q_accepted);
    backend.copy(x.lambda, lambda_accepted);
    if (load_before >= 0.0) {
      const double r = (target - load) / (load - load_before);
      backend.combine({{1.0 + r, &q_accepted}, {-r, &q_before}}, x.q);
      backend.combine({{1.0 + r, &lambda_accepted}, {-r, &lambda_before}}, x.lambda);
    }
    backend.axpby(target, g, 0.0, x.load);
    StaticEquilibrium equilibrium(sys, s, mass_norm, x);
    const NewtonOutcome out = solver.solve(equilibrium);
    summary.newton_iterations += out.iterations;
    summary.last_residual = out.last_residual;
    if (!out.converged) {
      backend.copy(q_accepted, x.q);
      backend.copy(lambda_accepted, x.lambda);
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
    backend.copy(q_accepted, q_before);
    backend.copy(lambda_accepted, lambda_before);
    load_before = load;
    load = target;
    summary.steps++;
    summary.end_time = load;
    accepted(x, load, out.iterations);
    // A bisected increment doubles again after an easy step, where the load factor is a multiple
    // of the doubled increment (so that the load steps asked for are reached).
    const double doubled = 2.0 * increment;
    if (increment < base_increment && out.iterations <= kEasyStepIterations &&
        std::fabs(load / doubled - std::round(load / doubled)) < 1e-9)
      increment = doubled;
    progress.update(load, load, summary.steps);
    if (stop_requested(interruption) && load < 1.0 - 1e-12) {
      std::ostringstream msg;
      msg << "static analysis interrupted at load factor " << load << " after " << summary.steps << " load steps";
      throw Interrupted(msg.str());
    }
  }
}

}  // namespace

void run_static(System& sys, const StaticSettings& s, const FrameSink& sink, RunSummary& summary,
                const Interruption* interruption) {
  summary.analysis = "static";
  // The load factor plays the role of time in static output.
  Eigen::VectorXd q, lambda;
  const Eigen::VectorXd zero_v = Eigen::VectorXd::Zero(sys.dofs());
  step_loads(sys, s, summary, interruption, [&](const StaticVectors& x, double load, int iterations) {
    sys.backend().download(x.q, q);
    sys.backend().download(x.lambda, lambda);
    System::Energies E;
    sys.energies(x.q, x.zero_v, q, zero_v, E);
    emit_frame(load, 0.0, iterations, q, zero_v, lambda, E, sink);
  });
}

ConsistentState static_initial_state(System& sys, const StaticSettings& s, RunSummary& summary) {
  ConsistentState out;
  RunSummary statics;
  try {
    step_loads(sys, s, statics, nullptr, [&](const StaticVectors& x, double, int) {
      sys.backend().download(x.q, out.q);
      sys.backend().download(x.lambda, out.lambda);
    });
  } catch (const SimulationError& e) {
    throw SimulationError(std::string("the static initial state: ") + e.what(), e.dof(), e.unsettled_dofs());
  }
  summary.newton_iterations += statics.newton_iterations;
  // At rest in equilibrium: the accelerations vanish to the Newton tolerance; solved for all the
  // same, with the multipliers, as a restart after an impact is (consistent_accelerations).
  Backend& b = sys.backend();
  Vector q = b.make_vector(sys.dofs()), v = b.make_vector(sys.dofs()), a = b.make_vector(sys.dofs()),
         lambda = b.make_vector(sys.constraints());
  b.upload(out.q, q);
  out.v = Eigen::VectorXd::Zero(sys.dofs());
  b.upload(out.v, v);
  consistent_accelerations(sys, q, v, 0.0, a, lambda);
  b.download(a, out.a);
  b.download(lambda, out.lambda);
  return out;
}

}  // namespace catenary
