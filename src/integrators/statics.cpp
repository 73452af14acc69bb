// Static equilibrium: R(q, lambda; s) = [f_int(q) - s g + C^T lambda; C q - b] = 0 for load
// factors s = 1/n, 2/n, ..., 1. Newton-Raphson with a line search on the potential energy; a
// load step that does not converge is bisected (down to 1/1024 of the load).
#include <cmath>
#include <sstream>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/integrators/progress.hpp"

namespace catenary {

namespace {

struct StaticSolver {
  System& sys;
  const StaticSettings& s;
  RunSummary& summary;
  Eigen::VectorXd g;  // full external load
  double mass_norm = 1.0;  // ||M||_inf, to scale the regularization of indefinite steps

  // R = [f_int(q) - load g + C^T lambda; C q - b].
  void residual(const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, double load, Eigen::VectorXd& r) {
    const int n = sys.dofs(), m = sys.constraints();
    Eigen::VectorXd f, Cl, phi, zero = Eigen::VectorXd::Zero(n);
    sys.internal_force(q, zero, 0.0, f);
    sys.constraint_transpose_product(q, lambda, Cl);
    sys.constraint_residual(q, 0.0, phi);
    r.resize(n + m);
    r.head(n) = f - load * g + Cl;
    r.tail(m) = phi;
  }

  // Line search on the potential energy along the Newton direction d: its slope is
  // d^T R(q + s d). Take s = 1 unless the energy rises again before s = 1 (slope > 0 there); then
  // find the minimum by regula falsi. Residual-decrease line searches stall on stiff strings,
  // where the full step rightly trades a large axial residual for the right bending shape.
  // r holds R(q) on entry and R at the returned step on exit.
  double line_search(const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, const Eigen::VectorXd& d,
                     double load, Eigen::VectorXd& r) {
    const int n = sys.dofs(), m = sys.constraints();
    auto slope = [&](double step, Eigen::VectorXd& r_step) {
      residual(q + step * d.head(n), lambda + step * d.tail(m), load, r_step);
      return d.head(n).dot(r_step.head(n));
    };
    const double s0 = d.head(n).dot(r.head(n));
    double s1 = slope(1.0, r);
    if (!(s0 < 0.0) || !std::isfinite(s1) || s1 <= 0.5 * std::fabs(s0)) return 1.0;
    double lo = 0.0, f_lo = s0, hi = 1.0, f_hi = s1, step = 1.0;
    for (int k = 0; k < 8; ++k) {
      step = std::max(0.05, lo - f_lo * (hi - lo) / (f_hi - f_lo));
      const double f = slope(step, r);
      if (std::fabs(f) <= 0.5 * std::fabs(s0)) break;
      if (f < 0.0) { lo = step; f_lo = f; } else { hi = step; f_hi = f; }
    }
    return step;
  }

  // Newton at one load level from (q, lambda). Returns false if it does not converge.
  bool solve(Eigen::VectorXd& q, Eigen::VectorXd& lambda, double load, int& iterations, std::string& why) {
    const int n = sys.dofs(), m = sys.constraints();
    NewtonMatrixCoefficients c;
    c.stiffness = 1.0;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
    Eigen::VectorXd f, r, delta;
    residual(q, lambda, load, r);
    for (int it = 1; it <= s.max_iterations; ++it) {
      iterations = it;
      sys.assemble_newton_matrix(q, zero, 0.0, c, f, &lambda);
      // Converged when the residual is at its round-off floor, where the update test may be
      // out of reach for very stiff elements.
      summary.last_residual = r.lpNorm<Eigen::Infinity>();
      if (it > 1 && summary.last_residual <= sys.residual_floor(sys.newton_matrix_norm(), q.lpNorm<Eigen::Infinity>()))
        return true;
      auto factorize_and_solve = [&]() {
        try {
          sys.backend().factorize();
        } catch (const SimulationError& e) {
          why = e.what();
          return false;
        }
        sys.backend().solve(-r, delta);
        return true;
      };
      bool regular = factorize_and_solve();
      // Near unstable equilibria K is indefinite and the Newton step may climb the energy
      // (d^T R >= 0), which leads to saddle points such as an inverted catenary; a mechanism's
      // free motions (a pendulum at lambda = 0) make K singular. Then shift the matrix by mu M (a
      // Levenberg-Marquardt step), raising mu until the matrix is regular and the step descends.
      const double stiffness_norm = sys.newton_matrix_norm();
      for (double mu = 1e-4 * stiffness_norm / mass_norm;
           (!regular || delta.head(n).dot(r.head(n)) >= 0.0) && mu < 1e4 * stiffness_norm / mass_norm; mu *= 10.0) {
        NewtonMatrixCoefficients shifted = c;
        shifted.mass = mu;
        sys.assemble_newton_matrix(q, zero, 0.0, shifted, f, &lambda);
        regular = factorize_and_solve();
      }
      if (!regular) return false;
      const double update = sys.weighted_norm(delta.head(n), q, s.tolerance);
      if (!std::isfinite(update)) {
        why = "the Newton update is not finite";
        return false;
      }
      const double step = update <= 1.0 ? 1.0 : line_search(q, lambda, delta, load, r);
      q += step * delta.head(n);
      lambda += step * delta.tail(m);
      if (update <= 1.0) return true;
      if (!r.allFinite()) {
        why = "the residual is not finite";
        return false;
      }
    }
    why = "Newton did not converge in " + std::to_string(s.max_iterations) + " iterations";
    return false;
  }
};

}  // namespace

void run_static(System& sys, const StaticSettings& s, const FrameSink& sink, RunSummary& summary) {
  summary.analysis = "static";
  Progress progress("static");
  const int n = sys.dofs();
  ConsistentState init = consistent_initial_state(sys, 0.0);
  Eigen::VectorXd q = init.q, lambda = Eigen::VectorXd::Zero(sys.constraints());
  const Eigen::VectorXd zero_v = Eigen::VectorXd::Zero(n);

  StaticSolver solver{sys, s, summary, {}, 1.0};
  sys.external_force(0.0, solver.g);
  {
    NewtonMatrixCoefficients mass_only;
    mass_only.mass = 1.0;
    Eigen::VectorXd f;
    sys.assemble_newton_matrix(q, zero_v, 0.0, mass_only, f);
    solver.mass_norm = std::max(sys.newton_matrix_norm(), 1e-300);
  }

  // The load factor plays the role of time in static output.
  auto emit = [&](double load, int iterations) { emit_frame(sys, load, 0.0, iterations, q, zero_v, lambda, sink); };
  emit(0.0, 0);

  double load = 0.0, increment = 1.0 / std::max(1, s.load_steps);
  const double min_increment = increment / 1024.0;
  while (load < 1.0 - 1e-12) {
    const double target = std::min(1.0, load + increment);
    Eigen::VectorXd q1 = q, l1 = lambda;
    int iterations = 0;
    std::string why;
    const bool ok = solver.solve(q1, l1, target, iterations, why);
    summary.newton_iterations += iterations;
    if (!ok) {
      summary.rejected_steps++;
      increment *= 0.5;
      if (increment < min_increment) {
        std::ostringstream msg;
        msg << "static analysis failed at load factor " << target << " after bisecting the load step to "
            << 2.0 * increment << ": " << why << "; residual " << summary.last_residual << " N";
        throw SimulationError(msg.str());
      }
      continue;
    }
    q = q1;
    lambda = l1;
    load = target;
    summary.steps++;
    summary.end_time = load;
    emit(load, iterations);
    progress.update(load, load, summary.steps);
  }
}

}  // namespace catenary
