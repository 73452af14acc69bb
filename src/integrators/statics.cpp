// Static equilibrium: R(q, lambda; s) = [f_int(q) - s g + C^T lambda; C q - b] = 0 for load
// factors s = 1/n, 2/n, ..., 1. Newton-Raphson with a backtracking line search on the scaled
// residual; a load step that does not converge is bisected (down to 1/1024 of the load).
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
  Eigen::VectorXd g;       // full external load
  double force_scale = 1;  // for the residual norm

  // Scaled residual norm: forces relative to the load, constraint violations relative to L.
  double residual(const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, double load,
                  Eigen::VectorXd* r_out) {
    const int n = sys.dofs(), m = sys.constraints();
    Eigen::VectorXd f, Cl, phi, zero = Eigen::VectorXd::Zero(n);
    sys.backend().internal_force(q, zero, f);
    sys.constraint_transpose_product(lambda, Cl);
    sys.constraint_residual(q, 0.0, phi);
    Eigen::VectorXd r(n + m);
    r.head(n) = f - load * g + Cl;
    r.tail(m) = phi;
    if (r_out) *r_out = r;
    const double value = r.head(n).norm() / force_scale + (m ? phi.norm() / sys.model().characteristic_length : 0.0);
    return std::isfinite(value) ? value : INFINITY;
  }

  // Newton at one load level from (q, lambda). Returns false if it does not converge.
  bool solve(Eigen::VectorXd& q, Eigen::VectorXd& lambda, double load, int& iterations, std::string& why) {
    const int n = sys.dofs(), m = sys.constraints();
    NewtonMatrixCoefficients c;
    c.stiffness = 1.0;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
    Eigen::VectorXd f, r, delta;
    double norm0 = residual(q, lambda, load, &r);
    for (int it = 1; it <= s.max_iterations; ++it) {
      iterations = it;
      sys.backend().assemble_newton_matrix(q, zero, c, f);
      try {
        sys.backend().factorize();
      } catch (const SimulationError& e) {
        why = e.what();
        return false;
      }
      sys.backend().solve(-r, delta);
      // Backtracking: halve the step until the scaled residual decreases.
      double step = 1.0, norm1 = INFINITY;
      Eigen::VectorXd q1, l1, r1;
      for (int k = 0; k < 12; ++k, step *= 0.5) {
        q1 = q + step * delta.head(n);
        l1 = lambda + step * delta.tail(m);
        norm1 = residual(q1, l1, load, &r1);
        if (norm1 < (1.0 - 1e-4 * step) * norm0) break;
      }
      const double update = sys.weighted_norm(step * delta.head(n), q1, s.tolerance);
      if (!std::isfinite(norm1) || !std::isfinite(update)) {
        why = "the residual is not finite";
        return false;
      }
      q = q1;
      lambda = l1;
      r = r1;
      norm0 = norm1;
      summary.last_residual = norm1;
      if (step == 1.0 && update <= 1.0) return true;
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
  solver.force_scale = std::max(solver.g.norm(), 1e-12);

  auto emit = [&](double load, int iterations) {
    const System::Energies E = sys.energies(q, zero_v);
    Frame fr;
    fr.time = load;  // the load factor plays the role of time in static output
    fr.newton_iterations = iterations;
    fr.q = &q;
    fr.v = &zero_v;
    fr.lambda = &lambda;
    fr.gravitational_energy = E.gravitational;
    fr.elastic_energy = E.elastic;
    sink(fr);
  };
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
            << 2.0 * increment << ": " << why << "; scaled residual " << summary.last_residual;
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
