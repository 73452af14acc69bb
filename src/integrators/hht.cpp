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
// Dyn. 2(1), 2007).
#include <cmath>
#include <sstream>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/integrators/progress.hpp"

namespace catenary {

namespace {

struct StepState {
  double t = 0.0;
  Eigen::VectorXd q, v, a, lambda;
  Eigen::VectorXd F;  // f - g + C^T lambda at this state (the HHT memory term)
};

struct NewtonOutcome {
  bool converged = false;
  int iterations = 0;
  double last_update = 0.0;    // weighted norm of the last correction (1 = tolerance)
  double last_residual = 0.0;  // largest force residual of the last evaluated iterate (N)
  int worst_dof = 0;
  std::string why;
};

class HHTStepper {
 public:
  HHTStepper(System& sys, const DynamicSettings& s) : sys_(sys), s_(s) {
    alpha_ = s.alpha;
    gamma_ = 0.5 - alpha_;
    beta_ = 0.25 * (1.0 - alpha_) * (1.0 - alpha_);
  }

  // Attempts one step of size h from `from`; on success fills `to`.
  NewtonOutcome step(const StepState& from, double h, StepState& to) {
    const int n = sys_.dofs(), m = sys_.constraints();
    const double t1 = from.t + h, bh2 = beta_ * h * h;
    const Eigen::VectorXd qhat = from.q + h * from.v + h * h * (0.5 - beta_) * from.a;
    const Eigen::VectorXd vhat = from.v + h * (1.0 - gamma_) * from.a;
    Eigen::VectorXd q1 = qhat + bh2 * from.a;  // predictor: a1 = a0
    Eigen::VectorXd mu = bh2 * (1.0 + alpha_) * from.lambda;
    Eigen::VectorXd g, f, Mdq, Cmu, phi, rhs(n + m), delta;
    sys_.external_force(t1, g);

    NewtonMatrixCoefficients c;
    c.mass = 1.0;
    c.stiffness = bh2 * (1.0 + alpha_);
    c.damping = gamma_ * h * (1.0 + alpha_);
    c.constraint = 1.0;

    NewtonOutcome out;
    double previous = INFINITY;
    int growing = 0;
    for (int it = 1; it <= s_.max_iterations; ++it) {
      out.iterations = it;
      const Eigen::VectorXd a1 = (q1 - qhat) / bh2;
      const Eigen::VectorXd v1 = vhat + gamma_ * h * a1;
      sys_.backend().assemble_newton_matrix(q1, v1, c, f);
      sys_.backend().mass_product(q1 - qhat, Mdq);
      sys_.constraint_transpose_product(mu, Cmu);
      sys_.constraint_residual(q1, t1, phi);
      rhs.head(n) = -(Mdq + bh2 * ((1.0 + alpha_) * (f - g) - alpha_ * from.F) + Cmu);
      rhs.tail(m) = -phi;
      out.last_residual = rhs.head(n).lpNorm<Eigen::Infinity>() / bh2;
      if (!rhs.allFinite()) {
        out.why = "the residual is not finite (NaN or overflow)";
        return out;
      }
      // Converged when the residual is at its round-off floor (the update test below may not
      // be reachable for very stiff elements).
      if (it > 1 && rhs.lpNorm<Eigen::Infinity>() <= sys_.residual_floor(sys_.backend().newton_matrix_norm(), q1)) {
        out.converged = true;
        break;
      }
      try {
        sys_.backend().factorize();
      } catch (const SimulationError& e) {
        out.why = e.what();
        return out;
      }
      sys_.backend().solve(rhs, delta);
      q1 += delta.head(n);
      mu += delta.tail(m);
      out.last_update = sys_.weighted_norm(delta.head(n), q1, s_.newton_tolerance, &out.worst_dof);
      if (!std::isfinite(out.last_update)) {
        out.why = "the Newton update is not finite";
        return out;
      }
      if (out.last_update <= 1.0) {
        out.converged = true;
        break;
      }
      growing = out.last_update > previous ? growing + 1 : 0;
      previous = out.last_update;
      if (growing >= 3) {
        out.why = "Newton iteration diverges";
        break;
      }
    }
    if (!out.converged) {
      if (out.why.empty()) out.why = "Newton did not converge in " + std::to_string(s_.max_iterations) + " iterations";
      return out;
    }
    to.t = t1;
    to.q = q1;
    to.a = (q1 - qhat) / bh2;
    to.v = vhat + gamma_ * h * to.a;
    to.lambda = mu / (bh2 * (1.0 + alpha_));
    // F1 from the converged equilibrium M a1 + (1 + alpha) F1 - alpha F0 = 0, without another
    // element pass.
    Eigen::VectorXd Ma;
    sys_.backend().mass_product(to.a, Ma);
    to.F = (alpha_ * from.F - Ma) / (1.0 + alpha_);
    return out;
  }

  // Local error estimate of the Newmark family (Zienkiewicz and Xie 1991):
  // e = h^2 (beta - 1/6) (a1 - a0), measured against the error tolerance.
  double error_estimate(const StepState& from, const StepState& to, double h) const {
    const Eigen::VectorXd e = (h * h * std::fabs(beta_ - 1.0 / 6.0)) * (to.a - from.a);
    return sys_.weighted_norm(e, to.q, s_.error_tolerance);
  }

 private:
  System& sys_;
  const DynamicSettings& s_;
  double alpha_, beta_, gamma_;
};

}  // namespace

void run_dynamic(System& sys, const DynamicSettings& s, double output_interval, const FrameSink& sink,
                 RunSummary& summary) {
  summary.analysis = "dynamic";
  Progress progress("dynamic");
  const ConsistentState init = consistent_initial_state(sys, 0.0);
  StepState state;
  state.t = 0.0;
  state.q = init.q;
  state.v = init.v;
  state.a = init.a;
  state.lambda = init.lambda;
  {
    Eigen::VectorXd f, g, Cl;
    sys.backend().internal_force(state.q, state.v, f);
    sys.external_force(0.0, g);
    sys.constraint_transpose_product(state.lambda, Cl);
    state.F = f - g + Cl;
  }

  auto emit = [&](const StepState& st, double h, int iterations) {
    const System::Energies E = sys.energies(st.q, st.v);
    Frame fr;
    fr.time = st.t;
    fr.step = h;
    fr.newton_iterations = iterations;
    fr.q = &st.q;
    fr.v = &st.v;
    fr.lambda = &st.lambda;
    fr.kinetic_energy = E.kinetic;
    fr.gravitational_energy = E.gravitational;
    fr.elastic_energy = E.elastic;
    sink(fr);
  };
  emit(state, 0.0, 0);

  HHTStepper stepper(sys, s);
  const double T = s.end_time;
  double h = s.adaptive ? std::min(std::max(s.step, s.min_step), s.max_step) : s.step;
  double next_output = output_interval > 0.0 ? output_interval : 0.0;
  StepState trial;
  while (state.t < T * (1.0 - 1e-12)) {
    // Land exactly on the end time; with a fixed step the last step may be shorter.
    double h_try = std::min(h, T - state.t);
    if (T - state.t - h_try < 1e-9 * h_try) h_try = T - state.t;
    const NewtonOutcome r = stepper.step(state, h_try, trial);
    summary.newton_iterations += r.iterations;
    summary.last_residual = r.last_residual;
    if (!r.converged) {
      if (s.adaptive && h_try * 0.25 >= s.min_step) {
        summary.rejected_steps++;
        h = h_try * 0.25;
        continue;
      }
      std::ostringstream msg;
      msg << "dynamic analysis failed at t = " << state.t << " s (step " << summary.steps + 1
          << ", h = " << h_try << " s): " << r.why << "; force residual " << r.last_residual
          << " N, last weighted correction " << r.last_update
          << " (1 = tolerance), largest at " << sys.describe_dof(r.worst_dof)
          << (s.adaptive ? "; the step is at its minimum" : "; try a smaller step or the adaptive step");
      summary.end_time = state.t;
      throw SimulationError(msg.str());
    }
    if (s.adaptive) {
      const double err = stepper.error_estimate(state, trial, h_try);
      const double factor = std::min(2.0, std::max(0.2, 0.9 * std::pow(std::max(err, 1e-10), -1.0 / 3.0)));
      if (err > 1.0 && h_try > s.min_step * (1.0 + 1e-12)) {
        summary.rejected_steps++;
        h = std::max(s.min_step, h_try * factor);
        continue;
      }
      h = std::min(s.max_step, std::max(s.min_step, h_try * factor));
    }
    state = trial;
    summary.steps++;
    summary.end_time = state.t;
    const bool last = state.t >= T * (1.0 - 1e-12);
    if (output_interval <= 0.0 || state.t >= next_output - 1e-9 * h_try || last) {
      emit(state, h_try, r.iterations);
      if (output_interval > 0.0)
        while (next_output <= state.t + 1e-9 * h_try) next_output += output_interval;
    }
    progress.update(state.t / T, state.t, summary.steps);
  }
}

}  // namespace catenary
