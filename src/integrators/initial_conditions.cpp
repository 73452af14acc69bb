#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"

namespace catenary {

namespace {

// Solves [M C^T; C 0] [x; mu] = [top; bottom] with the factorization already in the backend.
void solve_mass_kkt(System& sys, const Eigen::VectorXd& top, const Eigen::VectorXd& bottom,
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

  NewtonMatrixCoefficients c;
  c.mass = 1.0;
  Eigen::VectorXd f, phi, dq, mu, zero = Eigen::VectorXd::Zero(n);
  sys.backend().assemble_newton_matrix(st.q, st.v, c, f);
  sys.backend().factorize();

  // Positions: the constraints are linear, so one projection is exact up to round-off; a second
  // pass removes that.
  for (int pass = 0; pass < 2 && sys.constraints() > 0; ++pass) {
    sys.constraint_residual(st.q, t0, phi);
    solve_mass_kkt(sys, zero, -phi, dq, mu);
    st.q += dq;
  }
  if (sys.constraints() > 0) {
    sys.constraint_residual(st.q, t0, phi);
    st.constraint_violation = phi.lpNorm<Eigen::Infinity>();
    Eigen::VectorXd cv, bdot, dv;
    sys.constraint_product(st.v, cv);
    sys.constraint_velocity_rhs(t0, bdot);
    solve_mass_kkt(sys, zero, bdot - cv, dv, mu);
    st.v += dv;
  }
  st.position_change = (st.q - q0).lpNorm<Eigen::Infinity>();

  Eigen::VectorXd g, bddot;
  sys.backend().internal_force(st.q, st.v, f);
  sys.external_force(t0, g);
  sys.constraint_acceleration_rhs(t0, bddot);
  solve_mass_kkt(sys, g - f, bddot, st.a, st.lambda);
  if (!st.a.allFinite()) throw SimulationError("initial accelerations are not finite");
  return st;
}

}  // namespace catenary
