#include <algorithm>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"

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

}  // namespace

ConsistentState consistent_initial_state(System& sys, double t0) {
  const int n = sys.dofs();
  ConsistentState st;
  st.q = initial_coordinates(sys.model());
  st.v = initial_rates(sys.model());
  const Eigen::VectorXd q0 = st.q;

  NewtonMatrixCoefficients mass_only;
  mass_only.mass = 1.0;
  Eigen::VectorXd f, phi, dq, mu, zero = Eigen::VectorXd::Zero(n);
  sys.assemble_newton_matrix(st.q, st.v, t0, mass_only, f);

  // Positions: the change that closes the constraint gaps with the least strain energy,
  // min 1/2 dq^T (K + eps M) dq subject to Phi(q + dq) = 0, so gaps are closed by moving or
  // deforming the bodies as springs would (a mass-norm projection instead bends slopes freely,
  // their mass being small). eps M, six orders below K, only fixes the rigid-body motions (and
  // is the whole metric of rigid bodies, which have no K, scaled by their assembly weights).
  // Linear rows: one projection is exact up to round-off, a second removes that; the nonlinear
  // rows of joints take Newton steps.
  sys.constraint_residual(st.q, t0, phi);
  const bool nonlinear = !sys.multibody().empty();
  const int max_passes = nonlinear ? 30 : 2;
  const double tolerance = 1e-12 * sys.model().characteristic_length;
  if (sys.constraints() > 0 && phi.lpNorm<Eigen::Infinity>() > 0.0) {
    const double mass_norm = sys.newton_matrix_norm();
    for (int pass = 0; pass < max_passes; ++pass) {
      if (pass == 0 || nonlinear) {
        NewtonMatrixCoefficients stiffness_only;
        stiffness_only.stiffness = 1.0;
        sys.assemble_newton_matrix(st.q, zero, t0, stiffness_only, f);
        const double stiffness_norm = sys.newton_matrix_norm();
        NewtonMatrixCoefficients metric;
        metric.stiffness = 1.0;
        metric.mass = stiffness_norm > 0.0 ? 1e-6 * stiffness_norm / mass_norm : 1.0;
        sys.assemble_newton_matrix(st.q, zero, t0, metric, f, nullptr, true);
        sys.backend().factorize();
      }
      solve_kkt(sys, zero, -phi, dq, mu);
      st.q += dq;
      sys.constraint_residual(st.q, t0, phi);
      if (nonlinear && phi.lpNorm<Eigen::Infinity>() <= tolerance) break;
    }
    if (nonlinear && !(phi.lpNorm<Eigen::Infinity>() <= 1e3 * tolerance))
      throw SimulationError("the initial positions cannot be assembled: constraint residual " +
                            std::to_string(phi.lpNorm<Eigen::Infinity>()) +
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
