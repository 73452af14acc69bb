// The consistent initial state: positions projected onto the constraints with the least strain
// energy (a Newton iteration of NewtonSolver for the joints' nonlinear rows), velocities onto the
// velocity constraints with the least kinetic energy, and the accelerations and multipliers of the
// equations of motion.
#include <cmath>
#include <sstream>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/solve/newton.hpp"
#include "accelerations.hpp"

namespace catenary {

namespace {

// The state and the scratch of the consistent initial state, in the backend's memory.
struct InitialVectors {
  InitialVectors(BackendVectors& b, int n, int m)
      : q(b.make_vector(n)), v(b.make_vector(n)), zero_v(b.make_vector(n)), zero_mu(b.make_vector(m)),
        b(b.make_vector(m)), phi(b.make_vector(m)), rhs(b.make_vector(m)), forces(b.make_vector(n)),
        rows(b.make_vector(m)), dx(b.make_vector(n)), mu(b.make_vector(m)) {}
  Vector q, v;
  Vector zero_v, zero_mu;
  Vector b, phi, rhs;     // b(t0) (or b'(t0)), a constraint residual, the constraints' right-hand side
  Vector forces, rows;    // newton_terms' vectors
  Vector dx, mu;          // a solve's update and multipliers
};

// Assembles the Newton matrix with coefficients c at (x.q, v) (without multipliers); its forces
// and rows go to scratch.
void assemble(System& sys, InitialVectors& x, const Vector& v, double t0, const NewtonMatrixCoefficients& c,
              bool assembly_weights = false) {
  sys.newton_terms(x.q, v, t0, ForceTerms{1.0, 0.0, &x.q}, x.zero_mu, c, x.forces, x.rows,
                   NewtonTermsForm{true, false, assembly_weights});
}

// Solves [A C^T; C 0] [x.dx; x.mu] = [0; -phi] with the factorization already in the backend.
void solve_for_rows(System& sys, InitialVectors& x, const Vector& phi) {
  sys.backend().axpby(-1.0, phi, 0.0, x.rhs);
  sys.backend().solve(x.zero_v, x.rhs, x.dx, x.mu);
}

// The change dq that closes the constraint gaps Phi(q + dq) = 0 with the least strain energy,
// min 1/2 dq^T (K + eps M) dq, so gaps are closed by moving or deforming the bodies as springs
// would (a mass-norm projection instead bends slopes freely, their mass being small). eps M, six
// orders below K, only fixes the rigid-body motions (and is the whole metric of rigid bodies,
// which have no K, scaled by their assembly weights). Each update solves
// [K + eps M, C^T; C, 0] [dq; mu] = [0; -Phi(q)]; the residual Phi is the only measure.
class PositionProjection final : public NewtonProblem {
 public:
  // Accepted where max |Phi| <= limit. x.phi holds Phi at the first iterate, x.b holds b(t0).
  PositionProjection(System& sys, InitialVectors& x, double t0, double mass_norm, double tolerance, double limit)
      : sys_(sys), x_(x), t0_(t0), mass_norm_(mass_norm), tolerance_(tolerance), limit_(limit) {}

  // Phi(q) (the caller's at the first iterate).
  NewtonResidual evaluate(bool) override {
    if (evaluated_) sys_.constraint_residual(x_.q, x_.zero_v, x_.b, t0_, false, x_.phi);
    evaluated_ = true;
    const double norm = sys_.backend().max_abs(x_.phi);
    return {norm, norm};
  }
  double residual_limit() override { return limit_; }

  // The metric's matrix at q: K alone first, for its norm.
  long factorize() override {
    NewtonMatrixCoefficients stiffness_only;
    stiffness_only.stiffness = 1.0;
    assemble(sys_, x_, x_.zero_v, t0_, stiffness_only);
    const double stiffness_norm = sys_.newton_matrix_norm();
    NewtonMatrixCoefficients metric;
    metric.stiffness = 1.0;
    metric.mass = stiffness_norm > 0.0 ? 1e-6 * stiffness_norm / mass_norm_ : 1.0;
    assemble(sys_, x_, x_.zero_v, t0_, metric, true);
    return sys_.backend().factorize();
  }

  void solve() override { solve_for_rows(sys_, x_, x_.phi); }

  // The update in units of the position tolerance (the refresh policy's measure; there is no
  // update test).
  NewtonUpdate apply(double) override {
    sys_.backend().axpby(1.0, x_.dx, 1.0, x_.q);
    return {sys_.backend().max_abs(x_.dx) / tolerance_, -1};
  }

 private:
  System& sys_;
  InitialVectors& x_;
  const double t0_, mass_norm_, tolerance_, limit_;
  bool evaluated_ = false;  // x.phi holds the caller's Phi until the first evaluation
};

}  // namespace

namespace {

// The first entry of x that is not finite (x has one).
int first_not_finite(const Eigen::VectorXd& x) {
  int i = 0;
  while (std::isfinite(x[i])) ++i;
  return i;
}

ConsistentState initial_state(System& sys, double t0) {
  Backend& backend = sys.backend();
  const int n = sys.dofs(), m = sys.constraints();
  ConsistentState st;
  st.q = initial_coordinates(sys.model());
  st.v = initial_rates(sys.model());
  const Eigen::VectorXd q0 = st.q;
  InitialVectors x(backend, n, m);
  backend.upload(st.q, x.q);
  backend.upload(st.v, x.v);
  Eigen::VectorXd b;
  sys.constraint_rhs(t0, b);
  backend.upload(b, x.b);

  NewtonMatrixCoefficients mass_only;
  mass_only.mass = 1.0;
  assemble(sys, x, x.v, t0, mass_only);

  // Positions (PositionProjection). Linear rows: one projection is exact up to round-off and a
  // second removes that (two updates from one factorization: modified Newton, whose second update
  // is round-off; no residual test but an exact zero). The nonlinear rows of joints take up to 30
  // full Newton updates, until the residual is at the tolerance. No divergence test: from
  // positions far off, the joints' updates may grow before they close.
  sys.constraint_residual(x.q, x.v, x.b, t0, false, x.phi);
  const bool nonlinear = !sys.multibody().empty();
  const double tolerance = 1e-12 * sys.model().characteristic_length;
  if (m > 0 && backend.max_abs(x.phi) > 0.0) {
    NewtonOptions o;
    o.max_iterations = nonlinear ? 30 : 2;
    o.modified = !nonlinear;
    o.update_test = NewtonOptions::UpdateTest::None;
    o.diverging_updates = 0;
    PositionProjection projection(sys, x, t0, sys.newton_matrix_norm(), tolerance, nonlinear ? tolerance : 0.0);
    const NewtonOutcome out = NewtonSolver(o).solve(projection);
    if (out.failure == NewtonFailure::Singular) throw SimulationError(out.why);
    // Close enough after the last update: accepted at 1e3 times the tolerance.
    const bool assembled =
        out.converged || (out.failure == NewtonFailure::Iterations && out.last_residual <= 1e3 * tolerance);
    if (nonlinear && !assembled)
      throw SimulationError("the initial positions cannot be assembled: constraint residual " +
                            std::to_string(out.last_residual) +
                            " after 30 Newton steps (joints that cannot close from the given positions?)");
    backend.download(x.q, st.q);
  }
  // Velocities: the least change in the (assembly-weighted) kinetic energy that meets the
  // velocity constraints, Phi_q v = nu; then the plain mass matrix for the accelerations. The
  // first assembly serves unless the positions moved or the weights apply.
  const bool projected = st.q != q0;
  if (projected || nonlinear) assemble(sys, x, x.v, t0, mass_only, nonlinear);
  backend.factorize();
  if (m > 0) {
    sys.constraint_residual(x.q, x.v, x.b, t0, false, x.phi);
    st.constraint_violation = backend.max_abs(x.phi);
    sys.constraint_rhs(t0, b, 1);
    backend.upload(b, x.b);
    sys.constraint_residual(x.q, x.v, x.b, t0, true, x.phi);
    solve_for_rows(sys, x, x.phi);
    backend.axpby(1.0, x.dx, 1.0, x.v);
    backend.download(x.v, st.v);
  }
  if (nonlinear) {
    assemble(sys, x, x.v, t0, mass_only);
    backend.factorize();
  }
  st.position_change = (st.q - q0).lpNorm<Eigen::Infinity>();
  AccelerationSolve accelerations(sys);
  accelerations.solve_factorized(x.q, x.v, t0, x.dx, x.mu);
  backend.download(x.dx, st.a);
  backend.download(x.mu, st.lambda);
  if (!st.a.allFinite()) {
    Eigen::VectorXd forces;
    backend.download(accelerations.forces(), forces);
    const int dof = first_not_finite(st.a);
    throw SimulationError(
        "the initial accelerations are not finite, first at " + sys.describe_dof(dof) + ": " +
            (forces.allFinite() ? std::string("the mass matrix with the constraints is singular there (a "
                                              "coordinate without mass that no constraint holds?)")
                                : "the forces at the initial positions are not finite, first at " +
                                      sys.describe_dof(first_not_finite(forces)) +
                                      " (an element of zero length, or folded onto itself?)"),
        dof);
  }
  return st;
}

}  // namespace

void consistent_accelerations(System& sys, const Vector& q, const Vector& v, double t, Vector& a, Vector& lambda) {
  AccelerationSolve(sys).solve(q, v, t, a, lambda);
}

ConsistentState consistent_initial_state(System& sys, double t0) {
  try {
    return initial_state(sys, t0);
  } catch (const SimulationError& e) {  // say where: a singular factorization does not know
    std::ostringstream where;
    where << "at the initial state (t = " << t0 << " s): " << e.what();
    throw SimulationError(where.str(), e.dof(), e.unsettled_dofs());
  }
}

}  // namespace catenary
