#pragma once
// The accelerations and multipliers of a state (q, v) at t, from the equations of motion and the
// acceleration constraints with Baumgarte's stabilization:
//   [M(q) Phi_q^T; Phi_q 0] [a; lambda] = [g(t) - f(q, v, t); gamma - 2 alpha Phi' - beta^2 Phi],
// Phi' = Phi_q v - nu the velocity-level residual. alpha = beta = 0 is the plain acceleration
// constraint Phi_q a = gamma (the consistent initial state's, and a restart's after an impact);
// alpha, beta > 0 (1/s) pull a state off the constraints back with the damped motion
// Phi'' + 2 alpha Phi' + beta^2 Phi = 0 (the explicit integrators', explicit_rk.cpp).
#include "catenary/integrators/system.hpp"

namespace catenary {

class AccelerationSolve {
 public:
  AccelerationSolve(System& sys, double alpha = 0.0, double beta = 0.0);
  // Assembles M(q) with the constraint rows at (q, v, t), factorizes it and solves.
  void solve(const Vector& q, const Vector& v, double t, Vector& a, Vector& lambda);
  // The solve alone, the factorization of M(q) with the constraint rows being in the backend.
  void solve_factorized(const Vector& q, const Vector& v, double t, Vector& a, Vector& lambda);
  // g - f of the last solve.
  const Vector& forces() const { return forces_; }

 private:
  // The constraints' right-hand side at (q, v, t) into rhs_, then the solve.
  void solve_rows(const Vector& q, const Vector& v, double t, Vector& a, Vector& lambda);

  System& sys_;
  const double alpha_, beta_;
  Vector zero_mu_, loads_, forces_;  // the multipliers newton_terms takes (none), g(t), g - f
  Vector rows_, rhs_;                // newton_terms' constraint rows, the constraints' right-hand side
  Vector b_, phi_, phi_rate_;        // with Baumgarte: b(t) or b'(t), Phi and Phi'
};

}  // namespace catenary
