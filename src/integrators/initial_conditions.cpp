// The consistent initial state: positions projected onto the constraints with the least strain
// energy (a Newton iteration of NewtonSolver for the joints' nonlinear rows), velocities onto the
// velocity constraints with the least kinetic energy, and the accelerations and multipliers of the
// equations of motion.
#include <algorithm>
#include <cmath>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/solve/newton.hpp"

namespace catenary {

namespace {

// Solves [A C^T; C 0] [x; mu] = [top; bottom] with the factorization already in the backend.
void solve_kkt(System& sys, const Eigen::VectorXd& top, const Eigen::VectorXd& bottom,
                    Eigen::VectorXd& x, Eigen::VectorXd& mu) {
  const int n = sys.dofs(), m = sys.constraints();
  Eigen::VectorXd rhs(n + m), sol;
  rhs << top, bottom;
  sys.backend().solve(rhs, sol);
  x = sol.head(n);
  mu = sol.tail(m);
}

// The change dq that closes the constraint gaps Phi(q + dq) = 0 with the least strain energy,
// min 1/2 dq^T (K + eps M) dq, so gaps are closed by moving or deforming the bodies as springs
// would (a mass-norm projection instead bends slopes freely, their mass being small). eps M, six
// orders below K, only fixes the rigid-body motions (and is the whole metric of rigid bodies,
// which have no K, scaled by their assembly weights). Each update solves
// [K + eps M, C^T; C, 0] [dq; mu] = [0; -Phi(q)]; the residual Phi is the only measure.
class PositionProjection final : public NewtonProblem {
 public:
  // Accepted where max |Phi| <= limit.
  PositionProjection(System& sys, double t0, double mass_norm, double tolerance, double limit, Eigen::VectorXd& q,
                     const Eigen::VectorXd& phi)
      : sys_(sys), t0_(t0), mass_norm_(mass_norm), tolerance_(tolerance), limit_(limit), q_(q), phi_(phi),
        zero_(Eigen::VectorXd::Zero(sys.dofs())) {}

  // Phi(q) (the caller's at the first iterate).
  NewtonResidual evaluate(bool) override {
    if (evaluated_) sys_.constraint_residual(q_, t0_, phi_);
    evaluated_ = true;
    const double norm = phi_.lpNorm<Eigen::Infinity>();
    return {norm, norm};
  }
  double residual_limit() override { return limit_; }

  // The metric's matrix at q: K alone first, for its norm.
  long factorize() override {
    NewtonMatrixCoefficients stiffness_only;
    stiffness_only.stiffness = 1.0;
    sys_.assemble_newton_matrix(q_, zero_, t0_, stiffness_only, f_);
    const double stiffness_norm = sys_.newton_matrix_norm();
    NewtonMatrixCoefficients metric;
    metric.stiffness = 1.0;
    metric.mass = stiffness_norm > 0.0 ? 1e-6 * stiffness_norm / mass_norm_ : 1.0;
    sys_.assemble_newton_matrix(q_, zero_, t0_, metric, f_, nullptr, true);
    return sys_.backend().factorize();
  }

  void solve() override { solve_kkt(sys_, zero_, -phi_, dq_, mu_); }

  // The update in units of the position tolerance (the refresh policy's measure; there is no
  // update test).
  NewtonUpdate apply(double) override {
    q_ += dq_;
    return {dq_.lpNorm<Eigen::Infinity>() / tolerance_, -1};
  }

 private:
  System& sys_;
  const double t0_, mass_norm_, tolerance_, limit_;
  Eigen::VectorXd& q_;
  Eigen::VectorXd phi_;
  const Eigen::VectorXd zero_;
  Eigen::VectorXd f_, dq_, mu_;
  bool evaluated_ = false;  // phi_ holds the caller's Phi until the first evaluation
};

}  // namespace

ConsistentState consistent_initial_state(System& sys, double t0) {
  const int n = sys.dofs();
  ConsistentState st;
  st.q = initial_coordinates(sys.model());
  st.v = initial_rates(sys.model());
  const Eigen::VectorXd q0 = st.q;

  NewtonMatrixCoefficients mass_only;
  mass_only.mass = 1.0;
  Eigen::VectorXd f, phi, mu, zero = Eigen::VectorXd::Zero(n);
  sys.assemble_newton_matrix(st.q, st.v, t0, mass_only, f);

  // Positions (PositionProjection). Linear rows: one projection is exact up to round-off and a
  // second removes that (two updates from one factorization: modified Newton, whose second update
  // is round-off; no residual test but an exact zero). The nonlinear rows of joints take up to 30
  // full Newton updates, until the residual is at the tolerance. No divergence test: from
  // positions far off, the joints' updates may grow before they close.
  sys.constraint_residual(st.q, t0, phi);
  const bool nonlinear = !sys.multibody().empty();
  const double tolerance = 1e-12 * sys.model().characteristic_length;
  if (sys.constraints() > 0 && phi.lpNorm<Eigen::Infinity>() > 0.0) {
    NewtonOptions o;
    o.max_iterations = nonlinear ? 30 : 2;
    o.modified = !nonlinear;
    o.update_test = NewtonOptions::UpdateTest::None;
    o.diverging_updates = 0;
    PositionProjection projection(sys, t0, sys.newton_matrix_norm(), tolerance, nonlinear ? tolerance : 0.0, st.q,
                                  phi);
    const NewtonOutcome out = NewtonSolver(o).solve(projection);
    if (out.failure == NewtonFailure::Singular) throw SimulationError(out.why);
    // Close enough after the last update: accepted at 1e3 times the tolerance.
    const bool assembled =
        out.converged || (out.failure == NewtonFailure::Iterations && out.last_residual <= 1e3 * tolerance);
    if (nonlinear && !assembled)
      throw SimulationError("the initial positions cannot be assembled: constraint residual " +
                            std::to_string(out.last_residual) +
                            " after 30 Newton steps (joints that cannot close from the given positions?)");
  }
  // Velocities: the least change in the (assembly-weighted) kinetic energy that meets the
  // velocity constraints; then the plain mass matrix for the accelerations. The first assembly
  // serves unless the positions moved or the weights apply.
  const bool projected = st.q != q0;
  if (projected || nonlinear) sys.assemble_newton_matrix(st.q, st.v, t0, mass_only, f, nullptr, nonlinear);
  sys.backend().factorize();
  if (sys.constraints() > 0) {
    sys.constraint_residual(st.q, t0, phi);
    st.constraint_violation = phi.lpNorm<Eigen::Infinity>();
    Eigen::VectorXd cv, nu, dv;
    sys.constraint_product(st.q, st.v, cv);
    sys.constraint_velocity_rhs(st.q, t0, nu);
    solve_kkt(sys, zero, nu - cv, dv, mu);
    st.v += dv;
  }
  if (nonlinear) {
    sys.assemble_newton_matrix(st.q, st.v, t0, mass_only, f);
    sys.backend().factorize();
  }
  st.position_change = (st.q - q0).lpNorm<Eigen::Infinity>();

  Eigen::VectorXd g, gamma;
  sys.internal_force(st.q, st.v, t0, f);
  sys.external_force(t0, g);
  sys.constraint_acceleration_rhs(st.q, st.v, t0, gamma);
  solve_kkt(sys, g - f, gamma, st.a, st.lambda);
  if (!st.a.allFinite()) throw SimulationError("initial accelerations are not finite");
  return st;
}

}  // namespace catenary
