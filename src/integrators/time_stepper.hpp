#pragma once
// What the time integrators share (HHT-alpha in hht.cpp, generalized-alpha in
// generalized_alpha.cpp, BDF in bdf.cpp, SDIRK in sdirk.cpp, the explicit rk4 and dopri5 in
// explicit_rk.cpp): the state of a step in backend vectors, the Newton
// iteration of one implicit step, and the step-control loop (fixed or adaptive step, rejection,
// output frames, progress, failure messages) that run_dynamic hands the chosen method to. A
// method is a TimeStepper.
//
// Everything runs on backend vectors (device memory for the CUDA backend): per Newton iteration
// only scalars (norms) cross to the host; per step the load scales and the constraint
// right-hand side b(t) go down, and frames come up when output is due.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "catenary/integrators/analyses.hpp"
#include "catenary/solve/newton.hpp"

namespace catenary {

// q, v and the physical multipliers lambda at time t, plus what the method carries forward:
//   a        the acceleration of the Newmark formulas (HHT: q''; generalized-alpha: the
//            algorithmic acceleration),
//   history  HHT: F = f - g + C^T lambda (its alpha-weighted force term); generalized-alpha: q''.
struct StepState {
  double t = 0.0;
  Vector q, v, a, lambda, history;

  StepState(BackendVectors& b, int n, int m)
      : q(b.make_vector(n)), v(b.make_vector(n)), a(b.make_vector(n)), lambda(b.make_vector(m)),
        history(b.make_vector(n)) {}
  void swap(StepState& o) {
    std::swap(t, o.t);
    q.swap(o.q);
    v.swap(o.v);
    a.swap(o.a);
    lambda.swap(o.lambda);
    history.swap(o.history);
  }
};

// A step's Newton iteration: converged, or why not (NewtonOutcome, newton.hpp).
using StepOutcome = NewtonOutcome;

class TimeStepper {
 public:
  virtual ~TimeStepper() = default;
  // Sets state.history from the consistent initial state, which state holds (q, v, a = q'', lambda).
  virtual void start(StepState& state) = 0;
  // Attempts one step of size h from `from`; on success fills `to`.
  virtual StepOutcome step(const StepState& from, double h, StepState& to) = 0;
  // Local error of a converged step, measured against the error tolerance (1 = at tolerance).
  virtual double error_estimate(const StepState& from, const StepState& to, double h) = 0;
  // The local error is O(h^(1/exponent)) for the step just estimated: the step factor is
  // 0.9 err^-exponent.
  virtual double error_exponent() const { return 1.0 / 3.0; }
  // The step that produced `state` was accepted (multistep methods keep their history here).
  virtual void accepted(const StepState& state) { (void)state; }
  // After a step that did not converge into `trial`: the coordinates its last Newton update left
  // above the tolerance (SimulationError::unsettled_dofs).
  virtual std::vector<int> unsettled_coordinates(const StepState& trial) = 0;
  // What the method carries between steps beyond the StepState (a multistep method's history), into
  // a checkpoint's record and back: restore takes the place of start and accepted for a resumed run.
  virtual void save(StateRecord& record) { (void)record; }
  virtual void restore(const StateRecord& record) { (void)record; }

  // Design sensitivities by the discrete direct method (dynamic_sensitivity.cpp, StepTangent): a
  // method that has them gives its step in four pieces, each on this stepper's own System (the
  // case's, or a model with a design variable changed):
  //   step_residual: [r; rc] = -R, the step equations' residual from `from` (size h) as its Newton
  //     iteration forms them, at the unknowns to.q and to.lambda (to.v set from them where the
  //     residual reads it);
  //   step_history: to.history, what the method carries forward, from `from` and the converged
  //     to (q, v, a, lambda);
  //   tangent_guess: from the derivative dfrom of the step's start, a first guess of the
  //     derivative of its unknowns (dto.q, dto.lambda), the linearized predictor;
  //   tangent_solve: dto.q, dto.lambda += the solve of the step's Newton matrix, as the last step's
  //     iteration factorized it, with [d; dc] (the derivative of -R along dfrom and dto as they
  //     are: the defect of the differentiated step equations), then dto.v, dto.a by the step's
  //     kinematics from dfrom.
  // The default refuses (the case reader refuses sensitivities for those methods first). BDF would
  // need more than a StepState: its history of earlier steps' q and their derivatives, kept by
  // the method as it keeps the history itself, and a residual and kinematics that read them.
  virtual void step_residual(const StepState& from, double h, StepState& to, Vector& r, Vector& rc);
  virtual void step_history(const StepState& from, double h, StepState& to);
  virtual void tangent_guess(const StepState& dfrom, double h, StepState& dto);
  virtual void tangent_solve(const StepState& dfrom, double h, const Vector& d, const Vector& dc, StepState& dto);
};

// What the step-control loop tells the design sensitivities of a run (dynamic_sensitivity.cpp):
// the initial state once the method has started from it, and each accepted step from `from` (size
// h) to `to` before anything else factorizes a matrix.
class StepTangent {
 public:
  virtual ~StepTangent() = default;
  virtual void start(const StepState& state) = 0;
  virtual void step(const StepState& from, const StepState& to, double h) = 0;
};

// Defined in hht.cpp, generalized_alpha.cpp, bdf.cpp, sdirk.cpp and explicit_rk.cpp (rk4 or dopri5,
// as s.integrator says).
std::unique_ptr<TimeStepper> make_hht_stepper(System& sys, const DynamicSettings& s);
std::unique_ptr<TimeStepper> make_generalized_alpha_stepper(System& sys, const DynamicSettings& s);
std::unique_ptr<TimeStepper> make_bdf_stepper(System& sys, const DynamicSettings& s);
std::unique_ptr<TimeStepper> make_sdirk_stepper(System& sys, const DynamicSettings& s);

// The weighted norm (error tolerance tol) at x of the sum of `terms`, formed in `work`: the
// embedded error estimates of the Runge-Kutta methods (sdirk.cpp, explicit_rk.cpp).
double weighted_sum_norm(BackendVectors& b, const std::vector<Scaled>& terms, Vector& work, const Vector& x, double tol);
std::unique_ptr<TimeStepper> make_explicit_rk_stepper(System& sys, const DynamicSettings& s);
// Adams-Bashforth-Moulton of order s.abam_order (abam.cpp).
std::unique_ptr<TimeStepper> make_abam_stepper(System& sys, const DynamicSettings& s);

// One implicit step in the Newmark formulas
//   q1 = qhat + beta h^2 a1,  v1 = vhat + gamma h a1,
//   qhat = q0 + h v0 + h^2 (1/2 - beta) a0,  vhat = v0 + h (1 - gamma) a0,
// with Newton on (q1, mu) for the scaled equations of motion and the constraints
//   M (q1 - qhat) + s (f(q1, v1) - g(t1)) + k m + Phi_q^T mu = 0,   Phi(q1, t1) = 0,
// s = c.stiffness, mu = s lambda1, and a constant force term m (scaled by k) given by the method.
// With the stabilized index-2 formulation the Newton iteration meets the velocity constraints
// Phi_q v1 = nu instead of Phi(q1) = 0, and the positions are then projected onto Phi = 0.
// Newton matrix [c.mass M + c.stiffness K + c.damping D, C^T; C, 0]. The iteration is
// NewtonSolver's (newton.hpp) with the update test estimated from the rate of full Newton's
// updates, the divergence test, and modified Newton where the settings ask for it.
struct NewmarkParameters {
  double beta = 0.25, gamma = 0.5;
  NewtonMatrixCoefficients c;  // c.stiffness is s
  double memory_scale = 0.0;   // k
  // m is a coordinate-sized vector that joins q1 - qhat in the mass product M(q1) (q1 - qhat + k m)
  // (generalized-alpha), instead of a force k m (HHT): with rigid bodies M depends on q1.
  bool memory_in_coordinates = false;
  double residual_unit = 1.0;  // the reported force residual is max |r| / residual_unit (N)
};

class NewmarkNewton {
 public:
  NewmarkNewton(System& sys, const DynamicSettings& s);

  // The Newmark step from `from`: qhat, vhat from (q0, v0, a0), Newton from the predictor a1 = a0
  // (its q1 and v1), or from q1 = q0 once a step has failed from the predictor and converged from
  // q0 (the guess that the stiff modes of a fine mesh need; newmark_newton.cpp). On success sets
  // to.t, q, v, a, lambda; to.history is left to the method.
  StepOutcome solve(const NewmarkParameters& p, const StepState& from, double h, const Vector& memory,
                    StepState& to);

  // The same Newton iteration for any method whose step is affine in q1 (BDF too):
  //   a1 = (q1 - qhat()) / bh2,  v1 = vhat() + gamma_h a1,
  // with qhat() and vhat() set by the caller and lambda0 the multipliers to start from; memory may
  // be null when memory_scale is 0. first_guess writes the first guess into to.q (with
  // kinematics_set, also to.v by the formulas above where velocity_in_iteration_): before the
  // iteration, and again where modified Newton retries the step from a fresh factorization
  // (rather than a copy of the guess kept every step for the rare retry: two coordinate-sized
  // vectors a step).
  StepOutcome solve_affine(const NewmarkParameters& p, double t1, double bh2, double gamma_h, const Vector& lambda0,
                           const Vector* memory, StepState& to, const std::function<void()>& first_guess,
                           bool kinematics_set = false);
  Vector& qhat() { return qhat_; }
  Vector& vhat() { return vhat_; }
  // After an iteration that did not converge to q1: where its last update is above the tolerance.
  std::vector<int> unsettled_coordinates(const Vector& q1);
  // The pieces of the design sensitivities (TimeStepper::step_residual, tangent_guess,
  // tangent_solve) with the method's parameters and memory: the residual of the step from `from` at
  // to.q, to.lambda by the iteration's own evaluation; the derivative of solve()'s extrapolated
  // first guess; the solve with the factorization the step converged with (a full Newton
  // iteration's last), and the kinematics.
  void residual(const NewmarkParameters& p, const StepState& from, double h, const Vector& memory, StepState& to,
                Vector& r, Vector& rc);
  void tangent_guess(const NewmarkParameters& p, const StepState& dfrom, double h, StepState& dto);
  void tangent_solve(const NewmarkParameters& p, const StepState& dfrom, double h, const Vector& d, const Vector& dc,
                     StepState& dto);
  // The first guess in use and modified Newton's kept factorization into a checkpoint's record, as the point its matrix was
  // formed at; restore forms and factorizes that matrix again, so that a resumed run reuses what
  // the uninterrupted one would have.
  void save(StateRecord& record);
  void restore(const StateRecord& record);

 private:
  // v1 = vhat + gamma_h a1 and, with acceleration, a1 = (q1 - qhat) / bh2, in one pass. The
  // iterations read neither a1 (the residual's mass term is M (q1 - qhat), ForceTerms::origin) nor,
  // unless System::velocity_in_residual or the stabilized index-2 constraints ask, v1: a Newton
  // update then moves q1 alone, and both follow once the step has converged.
  void kinematics(const Vector& q1, double bh2, double gamma_h, StepState& to, bool acceleration);
  // qhat and vhat from c's inputs (q0, v0, a0), as outputs of the pass c makes.
  Combinations& hats(Combinations& c, const NewmarkParameters& p, double h);
  // solve()'s first guess from (q0, v0, a0) into to.q (and to.v where the iteration reads it), with
  // qhat and vhat, in one pass: extrapolated, the predictor a1 = a0, else q1 = q0.
  void first_guess(const NewmarkParameters& p, const StepState& from, double h, bool extrapolated, StepState& to);
  // The step's terms fixed through its iteration (fixed_terms_) and the constraints' b(t1) (b_).
  void fixed_terms(const NewmarkParameters& p, double t1, const Vector* memory);
  // Stabilized index 2: after the Newton iteration on the velocity constraints, to.q back onto
  // Phi(q, t1) = 0 (see newmark_newton.cpp).
  void project_positions(double t1, StepState& to);
  static bool same_coefficients(const NewtonMatrixCoefficients& a, const NewtonMatrixCoefficients& b);
  // The NewtonProblem of one step (newmark_newton.cpp): its vectors are this object's.
  class Iteration;

  System& sys_;
  BackendVectors& vectors_;             // the step's vectors: combinations, norms, updates
  BackendFactorization& factorization_;  // the Newton matrix's factorization and solves
  const DynamicSettings& s_;
  // Whether the Newton iteration reads v1 (System::velocity_in_residual, or the stabilized index-2
  // constraints): else v1 is formed only at convergence.
  const bool velocity_in_iteration_;
  Vector qhat_, vhat_, r_, dq_;  // coordinate-sized work vectors
  // s g(t1) - k m (memory as a force) or s g(t1): the step's residual terms that do not change
  // with q1.
  Vector fixed_terms_;
  // Generalized-alpha's memory in coordinates: the mass term is M (q1 - (qhat - k m)), this the
  // vector subtracted (made at its first step).
  Vector mass_origin_;
  Vector mu_, b_, phi_, rc_, dmu_;  // constraint-sized
  // Modified Newton: the coefficients of the matrix this stepper factorized last (its identity
  // is the solver's), and the point it was formed at: the iterate, the multipliers, the mass
  // term's origin and the time (kept for checkpoints, by keep_point).
  NewtonMatrixCoefficients kept_coefficients_;
  // Whether solve() starts from the extrapolating predictor (else from q0).
  bool extrapolate_ = true;
  Vector kept_q_, kept_v_, kept_mu_, kept_origin_;
  double kept_t_ = 0.0;
  void keep_point(const StepState& to, const Vector& origin, double t1);
  NewtonSolver solver_;
};

// The step-control loop: consistent initial state, then fixed steps (the last one shortened to
// land on the end time) or adaptive steps (error estimate against the tolerance, rejection and
// a quarter step after a Newton failure); frames every output_interval (0: every step); Interrupted
// after a step where `interruption` asks to stop; checkpoints and resume as `checkpoints` asks
// (analyses.hpp).
// With `tangent`, its start and steps as StepTangent says (design sensitivities).
void run_time_steps(System& sys, const DynamicSettings& s, double output_interval, const FrameSink& sink,
                    RunSummary& summary, TimeStepper& stepper, const Interruption* interruption,
                    const Checkpoints& checkpoints, StepTangent* tangent = nullptr);

}  // namespace catenary
