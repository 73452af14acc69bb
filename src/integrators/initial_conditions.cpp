#include <algorithm>

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
  const Model& m = sys.model();
  const int n = sys.dofs();
  ConsistentState st;
  st.q = Eigen::Map<const Eigen::VectorXd>(m.initial_positions.data(), n);
  st.v = Eigen::Map<const Eigen::VectorXd>(m.initial_velocities.data(), n);
  const Eigen::VectorXd q0 = st.q;

  NewtonMatrixCoefficients mass_only;
  mass_only.mass = 1.0;
  Eigen::VectorXd f, phi, dq, mu, zero = Eigen::VectorXd::Zero(n);
  sys.backend().assemble_newton_matrix(st.q, st.v, mass_only, f);

  // Positions: the change that closes the constraint gaps with the least strain energy,
  // min 1/2 dq^T (K + eps M) dq subject to C (q + dq) = b, so gaps are closed by moving or
  // deforming the bodies as springs would (a mass-norm projection instead bends slopes freely,
  // their mass being small). eps M, six orders below K, only fixes the rigid-body motions.
  // The constraints are linear: one projection is exact up to round-off, a second removes that.
  sys.constraint_residual(st.q, t0, phi);
  if (sys.constraints() > 0 && phi.lpNorm<Eigen::Infinity>() > 0.0) {
    const double mass_norm = sys.backend().newton_matrix_norm();
    NewtonMatrixCoefficients stiffness_only;
    stiffness_only.stiffness = 1.0;
    sys.backend().assemble_newton_matrix(st.q, zero, stiffness_only, f);
    NewtonMatrixCoefficients metric;
    metric.stiffness = 1.0;
    metric.mass = 1e-6 * std::max(sys.backend().newton_matrix_norm(), 1e-300) / mass_norm;
    sys.backend().assemble_newton_matrix(st.q, zero, metric, f);
    sys.backend().factorize();
    for (int pass = 0; pass < 2; ++pass) {
      sys.constraint_residual(st.q, t0, phi);
      solve_kkt(sys, zero, -phi, dq, mu);
      st.q += dq;
    }
    sys.backend().assemble_newton_matrix(st.q, st.v, mass_only, f);
  }
  sys.backend().factorize();
  if (sys.constraints() > 0) {
    sys.constraint_residual(st.q, t0, phi);
    st.constraint_violation = phi.lpNorm<Eigen::Infinity>();
    Eigen::VectorXd cv, bdot, dv;
    sys.constraint_product(st.v, cv);
    sys.constraint_velocity_rhs(t0, bdot);
    solve_kkt(sys, zero, bdot - cv, dv, mu);
    st.v += dv;
  }
  st.position_change = (st.q - q0).lpNorm<Eigen::Infinity>();

  Eigen::VectorXd g, bddot;
  sys.backend().internal_force(st.q, st.v, f);
  sys.external_force(t0, g);
  sys.constraint_acceleration_rhs(t0, bddot);
  solve_kkt(sys, g - f, bddot, st.a, st.lambda);
  if (!st.a.allFinite()) throw SimulationError("initial accelerations are not finite");
  return st;
}

}  // namespace catenary
