#pragma once
// The Newton iteration of every analysis: the time steps (NewmarkNewton, newmark_newton.cpp), static
// equilibrium (statics.cpp), the consistent initial positions (initial_conditions.cpp) and the
// kinematic analysis of a driven mechanism (kinematic_analysis.cpp). NewtonSolver owns the policy:
// when the iteration has converged, when it diverges or fails, when modified Newton factorizes
// again, the line search and the Levenberg-Marquardt shift where they are asked for, and the one
// outcome every analysis reports (NewtonOutcome). An analysis gives a NewtonProblem: the residual
// and its norms, the Newton matrix's factorization and solve, and the update, in its own vectors
// (backend vectors, on a device for the CUDA backend, in the time steps, statics and the initial
// positions; Eigen vectors in the kinematic analysis of a rigid mechanism). The solver itself reads
// only the scalars the problem returns, so a device problem moves no vector between host and
// device for it.
//
// One iteration:
//   1. evaluate the residual at the iterate (and, where the problem forms both in one pass, the
//      Newton matrix). Not finite: fail, naming the residual's first entry that is not finite.
//      At or below the problem's residual limit (the round-off floor below which no update can
//      make progress, or a residual tolerance): converged. The test starts at the second
//      iteration (the first iterate is always updated) unless test_first_residual.
//   2. factorize the Newton matrix if this iteration refreshes it (singular: fail), and solve for
//      the update. With shift, a singular matrix or an update that climbs the problem's energy is
//      replaced by that of the matrix shifted by mu M, mu raised tenfold until it is regular and
//      descends (Levenberg-Marquardt).
//   3. with line_search, the update's weighted norm (1 = tolerance) is measured before it is
//      applied, and an update above the tolerance is scaled by the problem's line search; else
//      applying the update measures it. Not finite: fail.
//   4. converged when the weighted update norm, or with UpdateTest::Estimated the error left
//      estimated from the rate of two Newton updates in a row, is <= 1. Diverging when the update
//      grew diverging_updates times in a row.
// A problem without an update test (UpdateTest::None: its residual is its only measure) has its
// last iterate evaluated and tested too; with one, the last update's norm is the last test.
//
// Modified Newton refreshes the matrix at a solve's first iteration unless the problem still
// holds the factorization this solver made last (the identity Backend::factorize() returned, and
// the same matrix coefficients), and afterwards only when an update is more than half the previous
// one. If the iteration fails from a kept factorization, it starts again from the problem's first
// guess with a fresh one.
//
// The analyses' options (each analysis's file says why):
//   time steps          update test with the rate estimate, divergence test, modified Newton
//                       where the settings ask for it; residual limit: the round-off floor
//   statics             plain update test, no divergence test, line search and shift; the floor
//   initial positions   no update test: |Phi| <= 1e-12 L within 30 full Newton updates (joints),
//                       or two updates from one factorization (linear rows only)
//   kinematic analysis  no update test: |Phi| <= 1e-13 (1 + |q|) within 20 updates, the first
//                       iterate tested too
#include <functional>
#include <string>
#include <vector>

namespace catenary {

// Why an iteration did not converge.
enum class NewtonFailure {
  None,
  ResidualNotFinite,  // the residual has an entry that is NaN or infinite
  UpdateNotFinite,    // the update has one
  Singular,           // the Newton matrix could not be factorized (why: the factorization's message)
  Diverging,          // the update grew diverging_updates times in a row
  Iterations,         // max_iterations without convergence
};

// The outcome of NewtonSolver::solve, and its diagnosis where it failed.
struct NewtonOutcome {
  bool converged = false;
  NewtonFailure failure = NewtonFailure::None;
  int iterations = 0;          // the iterations begun (residual evaluations)
  int updates = 0;             // the updates applied
  double last_update = 0.0;    // weighted norm of the last update (1 = tolerance)
  double last_residual = 0.0;  // the last evaluated residual, as the problem reports it
  int worst_dof = -1;  // where the last update was largest, or the residual not finite; -1: not known
  bool residual_not_finite = false;  // worst_dof is then the residual's first such entry, named in why
  std::vector<int> unsettled_dofs;    // the residual's entries that are not finite, where it is not
  std::string why;                    // empty where converged
};

// What a residual evaluation returns: scalars only.
struct NewtonResidual {
  double norm = 0.0;      // what the convergence test reads; infinite or NaN if an entry is not finite
  double reported = 0.0;  // NewtonOutcome::last_residual (the dynamic force residual in N, say)
};

// What applying an update returns.
struct NewtonUpdate {
  double weighted = 0.0;  // the update's weighted norm (1 = tolerance); not finite if an entry is not
  int worst = -1;         // the coordinate where it is largest; -1: not known
};

// The scale of the Levenberg-Marquardt shift mu M: mu runs from 1e-4 to 1e4 times
// matrix_norm / mass_norm (NewtonOptions::shift).
struct NewtonShiftScale {
  double matrix_norm = 0.0, mass_norm = 1.0;
};

// An analysis's equations, written against its own vectors. evaluate, factorize, solve and apply
// are the iteration; the rest are asked for only by the options that use them.
class NewtonProblem {
 public:
  virtual ~NewtonProblem() = default;
  // Before the first iteration: the iterate is the problem's first guess. again: the iteration
  // failed from a kept factorization (modified Newton) and starts over, so the first guess is
  // made again.
  virtual void start(bool again) { (void)again; }
  // The residual at the iterate. matrix: this iteration factorizes, so a problem that forms the
  // Newton matrix in the same pass as its residual assembles it here; others assemble it in
  // factorize().
  virtual NewtonResidual evaluate(bool matrix) = 0;
  // The residual below which the iterate is accepted (its round-off floor, or a tolerance), at the
  // iterate last evaluated; asked only where the test applies.
  virtual double residual_limit() = 0;
  // Factorizes the Newton matrix at the iterate and returns the factorization's identity (not 0);
  // throws SimulationError where it is singular.
  virtual long factorize() = 0;
  // The update from the residual last evaluated, with the current factorization.
  virtual void solve() = 0;
  // Adds step times the update to the iterate and returns its norms. step is 1 but where a line
  // search chose it.
  virtual NewtonUpdate apply(double step) = 0;

  // Modified Newton: whether the factorization with this identity is still the current one and
  // that of the matrix this problem would assemble (the same coefficients).
  virtual bool holds(long factorization) { (void)factorization; return false; }
  // The residual's entries that are not finite (after an evaluation that was not), and the place
  // of an entry in words, for the diagnosis.
  virtual std::vector<int> non_finite_entries() { return {}; }
  virtual std::string describe(int entry) { (void)entry; return {}; }
  // Line search: the weighted norm of the update just solved, before it is applied (at the iterate
  // it starts from), and the step to take along an update that does not meet the tolerance.
  virtual double update_norm() { return 0.0; }
  virtual double line_search() { return 1.0; }
  // Levenberg-Marquardt shift: its scale (read once the unshifted matrix is factorized), whether
  // the update just solved descends, and the shifted matrix c M + mu M assembled at the iterate
  // (factorize() then factorizes it).
  virtual NewtonShiftScale shift_scale() { return {}; }
  virtual bool descends() { return true; }
  virtual void shift(double mu) { (void)mu; }
};

struct NewtonOptions {
  int max_iterations = 20;
  // Modified Newton (see above); otherwise every iteration factorizes a fresh matrix.
  bool modified = false;
  enum class UpdateTest {
    // Converged when the update's norm is <= 1, or where two Newton updates in a row (each from a
    // matrix factorized at its own iterate) give the rate theta = update / previous < 1/2, when
    // the error left, theta / (1 - theta) x the update, is (Hairer & Wanner, Solving ODEs II,
    // IV.8). Full Newton's second update is typically 1e-5 of the first: the iteration then ends
    // without a third pass. Not for modified Newton's chord updates: their rate is no bound on
    // the error left (a chord's second update measured 1e-3 of the third on a 10-element cable;
    // accepting on it, the runs drifted 50 tolerances from full Newton's in 20 steps).
    Estimated,
    // Converged when the update's norm is <= 1: where the updates may be shifted or scaled by a
    // line search, which voids the quadratic rate the estimate rests on.
    Plain,
    // No update test: the residual limit alone.
    None,
  };
  UpdateTest update_test = UpdateTest::Estimated;
  // Accept the first iterate where its residual is already at the limit (no update).
  bool test_first_residual = false;
  // Diverging after this many growing updates in a row; 0: no such test (an iteration whose
  // updates may grow on their way, as a line-searched or shifted one, runs to max_iterations).
  int diverging_updates = 3;
  bool line_search = false;
  bool shift = false;
};

class NewtonSolver {
 public:
  explicit NewtonSolver(const NewtonOptions& options) : options_(options) {}
  const NewtonOptions& options() const { return options_; }
  // Iterates from the problem's first guess until it converges or fails. On failure why says
  // why, and the problem's iterate is where the iteration stopped.
  NewtonOutcome solve(NewtonProblem& problem);
  // The identity of the factorization modified Newton keeps (0: none), and taking one made
  // elsewhere as kept (a resumed run's, formed again where the checkpoint's was formed).
  long kept() const { return kept_; }
  void adopt(long factorization) { kept_ = factorization; }

 private:
  NewtonOutcome iterate(NewtonProblem& problem, bool refresh);
  // Factorizes; false with the failure's message in why where the matrix is singular.
  bool factorize(NewtonProblem& problem, std::string& why);

  NewtonOptions options_;
  long kept_ = 0;  // the identity of this solver's last factorization; 0: none
};

// The diagnosis of a failed iteration in one line: "why; <residual> R <unit>, last weighted
// correction U (1 = tolerance)[, largest at <place(worst_dof)>]" (the place where the last update
// was largest; where the residual was not finite, why names its place instead).
std::string newton_diagnosis(const NewtonOutcome& o, const std::string& residual, const std::string& unit,
                             const std::function<std::string(int)>& place);

}  // namespace catenary
