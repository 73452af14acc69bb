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
//
// The step runs on backend vectors (device memory for the CUDA backend): per Newton iteration
// only scalars (norms) cross to the host; per step the load scales and the constraint
// right-hand side b(t) go down, and frames come up when output is due.
#include <cmath>
#include <sstream>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/integrators/progress.hpp"

namespace catenary {

namespace {

struct StepState {
  double t = 0.0;
  Vector q, v, a, lambda;
  Vector F;  // f - g + C^T lambda at this state (the HHT memory term)

  StepState(Backend& b, int n, int m)
      : q(b.make_vector(n)), v(b.make_vector(n)), a(b.make_vector(n)), lambda(b.make_vector(m)), F(b.make_vector(n)) {}
  void swap(StepState& o) {
    std::swap(t, o.t);
    q.swap(o.q);
    v.swap(o.v);
    a.swap(o.a);
    lambda.swap(o.lambda);
    F.swap(o.F);
  }
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
  HHTStepper(System& sys, const DynamicSettings& s) : sys_(sys), be_(sys.backend()), s_(s) {
    alpha_ = s.alpha;
    gamma_ = 0.5 - alpha_;
    beta_ = 0.25 * (1.0 - alpha_) * (1.0 - alpha_);
    const int n = sys.dofs(), m = sys.constraints();
    for (Vector* x : {&qhat_, &vhat_, &g_, &f_, &Mx_, &Cmu_, &r_, &dq_, &tmp_}) *x = be_.make_vector(n);
    for (Vector* x : {&mu_, &b_, &phi_, &rc_, &dmu_}) *x = be_.make_vector(m);
  }

  // Attempts one step of size h from `from`; on success fills `to`.
  NewtonOutcome step(const StepState& from, double h, StepState& to) {
    const double t1 = from.t + h, bh2 = beta_ * h * h;
    Backend& be = be_;
    // qhat = q0 + h v0 + h^2 (1/2 - beta) a0,  vhat = v0 + h (1 - gamma) a0
    be.copy(from.q, qhat_);
    be.axpby(h, from.v, 1.0, qhat_);
    be.axpby(h * h * (0.5 - beta_), from.a, 1.0, qhat_);
    be.copy(from.v, vhat_);
    be.axpby(h * (1.0 - gamma_), from.a, 1.0, vhat_);
    Vector& q1 = to.q;
    be.copy(qhat_, q1);
    be.axpby(bh2, from.a, 1.0, q1);  // predictor: a1 = a0
    be.copy(from.lambda, mu_);
    be.axpby(0.0, mu_, bh2 * (1.0 + alpha_), mu_);
    be.combine_loads(sys_.load_patterns().scales_at(t1), g_);
    Eigen::VectorXd b;
    sys_.constraint_rhs(t1, b);
    be.upload(b, b_);

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
      accelerations(q1, bh2, to.a);  // a1 = (q1 - qhat) / bh2
      be.copy(vhat_, to.v);          // v1 = vhat + gamma h a1
      be.axpby(gamma_ * h, to.a, 1.0, to.v);
      be.assemble_newton_matrix(q1, to.v, c, f_);
      // r = -(M (q1 - qhat) + bh2 ((1 + alpha) (f - g) - alpha F0) + C^T mu),  rc = -(C q1 - b)
      be.copy(q1, dq_);
      be.axpby(-1.0, qhat_, 1.0, dq_);
      be.mass_product(dq_, Mx_);
      be.constraint_transpose_product(mu_, Cmu_);
      be.copy(Mx_, r_);
      be.axpby(bh2 * (1.0 + alpha_), f_, 1.0, r_);
      be.axpby(-bh2 * (1.0 + alpha_), g_, 1.0, r_);
      be.axpby(-bh2 * alpha_, from.F, 1.0, r_);
      be.axpby(-1.0, Cmu_, -1.0, r_);
      be.constraint_product(q1, phi_);
      be.copy(b_, rc_);
      be.axpby(-1.0, phi_, 1.0, rc_);
      const double force_residual = be.max_abs(r_);
      const double residual = std::max(force_residual, be.max_abs(rc_));
      out.last_residual = force_residual / bh2;
      if (!std::isfinite(residual)) {
        out.why = "the residual is not finite (NaN or overflow)";
        return out;
      }
      // Converged when the residual is at its round-off floor (the update test below may not
      // be reachable for very stiff elements).
      if (it > 1 && residual <= sys_.residual_floor(be.newton_matrix_norm(), be.max_abs(q1))) {
        out.converged = true;
        break;
      }
      try {
        be.factorize();
      } catch (const SimulationError& e) {
        out.why = e.what();
        return out;
      }
      be.solve(r_, rc_, dq_, dmu_);
      be.axpby(1.0, dq_, 1.0, q1);
      be.axpby(1.0, dmu_, 1.0, mu_);
      out.last_update = be.weighted_norm(dq_, q1, s_.newton_tolerance, &out.worst_dof);
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
    accelerations(q1, bh2, to.a);
    be.copy(vhat_, to.v);
    be.axpby(gamma_ * h, to.a, 1.0, to.v);
    be.copy(mu_, to.lambda);
    be.axpby(0.0, mu_, 1.0 / (bh2 * (1.0 + alpha_)), to.lambda);
    // F1 from the converged equilibrium M a1 + (1 + alpha) F1 - alpha F0 = 0, without another
    // element pass.
    be.mass_product(to.a, Mx_);
    be.copy(from.F, to.F);
    be.axpby(-1.0 / (1.0 + alpha_), Mx_, alpha_ / (1.0 + alpha_), to.F);
    return out;
  }

  // Local error estimate of the Newmark family (Zienkiewicz and Xie 1991):
  // e = h^2 (beta - 1/6) (a1 - a0), measured against the error tolerance.
  double error_estimate(const StepState& from, const StepState& to, double h) {
    const double k = h * h * std::fabs(beta_ - 1.0 / 6.0);
    be_.copy(to.a, tmp_);
    be_.axpby(-k, from.a, k, tmp_);
    return be_.weighted_norm(tmp_, to.q, s_.error_tolerance, nullptr);
  }

 private:
  void accelerations(const Vector& q1, double bh2, Vector& a) {
    be_.copy(q1, a);
    be_.axpby(-1.0 / bh2, qhat_, 1.0 / bh2, a);
  }

  System& sys_;
  Backend& be_;
  const DynamicSettings& s_;
  double alpha_, beta_, gamma_;
  Vector qhat_, vhat_, g_, f_, Mx_, Cmu_, r_, dq_, tmp_;  // coordinate-sized work vectors
  Vector mu_, b_, phi_, rc_, dmu_;                        // constraint-sized
};

}  // namespace

void run_dynamic(System& sys, const DynamicSettings& s, double output_interval, const FrameSink& sink,
                 RunSummary& summary) {
  summary.analysis = "dynamic";
  Progress progress("dynamic");
  const ConsistentState init = consistent_initial_state(sys, 0.0);
  Backend& be = sys.backend();
  const int n = sys.dofs(), m = sys.constraints();
  StepState state(be, n, m), trial(be, n, m);
  state.t = 0.0;
  be.upload(init.q, state.q);
  be.upload(init.v, state.v);
  be.upload(init.a, state.a);
  be.upload(init.lambda, state.lambda);
  {
    Eigen::VectorXd f, g, Cl;
    be.internal_force(init.q, init.v, f);
    sys.external_force(0.0, g);
    sys.constraint_transpose_product(init.lambda, Cl);
    be.upload(f - g + Cl, state.F);
  }

  // Frames are the only full vectors that come back to the host.
  Eigen::VectorXd q, v, lambda;
  auto emit = [&](const StepState& st, double h, int iterations) {
    be.download(st.q, q);
    be.download(st.v, v);
    be.download(st.lambda, lambda);
    const System::Energies E = sys.energies(q, v);
    Frame fr;
    fr.time = st.t;
    fr.step = h;
    fr.newton_iterations = iterations;
    fr.q = &q;
    fr.v = &v;
    fr.lambda = &lambda;
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
    state.swap(trial);
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
