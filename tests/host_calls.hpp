#pragma once
// The backends' and System's operations on host vectors, through uploads and downloads: what the
// tests compare between backends and against closed forms. The library's analyses hold their
// vectors in the backend and have no such calls.
#include <utility>

#include <Eigen/Core>

#include "catenary/assembly/backend.hpp"
#include "catenary/integrators/system.hpp"

namespace catenary::testing {

inline Vector uploaded(Backend& b, const Eigen::VectorXd& x) {
  Vector out = b.make_vector(static_cast<int>(x.size()));
  b.upload(x, out);
  return out;
}

inline Eigen::VectorXd downloaded(Backend& b, const Vector& x) {
  Eigen::VectorXd out;
  b.download(x, out);
  return out;
}

// f = f_int(q, v); returns the strain energy.
inline double host_internal_force(Backend& b, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& f) {
  Vector fb = b.make_vector(b.dof_count());
  b.internal_force(uploaded(b, q), uploaded(b, v), fb);
  f = downloaded(b, fb);
  return b.strain_energy();
}

// y = M x.
inline void host_mass_product(Backend& b, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  Vector yb = b.make_vector(b.dof_count());
  b.mass_product(uploaded(b, x), yb);
  y = downloaded(b, yb);
}

// The Newton matrix with coefficients c at (q, v), left in the backend; f = f_int(q, v).
inline void host_assemble_newton_matrix(Backend& b, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                        const NewtonMatrixCoefficients& c, Eigen::VectorXd& f) {
  Vector fb = b.make_vector(b.dof_count());
  b.assemble_newton_matrix(uploaded(b, q), uploaded(b, v), c, fb);
  f = downloaded(b, fb);
}

// x = A^-1 rhs with the backend's current factorization; rhs and x hold the coordinates, then the
// constraints.
inline void host_solve(Backend& b, const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
  const int n = b.dof_count(), m = b.constraint_count();
  Vector top = b.make_vector(n), bottom = b.make_vector(m);
  b.solve(uploaded(b, rhs.head(n)), uploaded(b, rhs.tail(m)), top, bottom);
  x.resize(n + m);
  x << downloaded(b, top), downloaded(b, bottom);
}

// y = C x and y = C^T mu (the elements' linear rows).
inline void host_constraint_product(Backend& b, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  Vector yb = b.make_vector(b.constraint_count());
  b.constraint_product(uploaded(b, x), yb);
  y = downloaded(b, yb);
}
inline void host_constraint_transpose_product(Backend& b, const Eigen::VectorXd& mu, Eigen::VectorXd& y) {
  Vector yb = b.make_vector(b.dof_count());
  b.add_constraint_transpose_product(1.0, uploaded(b, mu), yb);
  y = downloaded(b, yb);
}

// g(t).
inline Eigen::VectorXd host_external_force(System& sys, double t) {
  Vector g = sys.backend().make_vector(sys.dofs());
  sys.external_force(t, g);
  return downloaded(sys.backend(), g);
}

// Phi(q, t) and Phi_q(q) v - nu(q, t): the residuals of the position and velocity constraints.
inline std::pair<Eigen::VectorXd, Eigen::VectorXd> host_constraint_residuals(System& sys, const Eigen::VectorXd& q,
                                                                             const Eigen::VectorXd& v, double t) {
  Backend& b = sys.backend();
  const Vector qb = uploaded(b, q), vb = uploaded(b, v);
  Vector phi = b.make_vector(sys.constraints());
  std::pair<Eigen::VectorXd, Eigen::VectorXd> out;
  for (const int level : {0, 1}) {
    Eigen::VectorXd rhs;
    sys.constraint_rhs(t, rhs, level);
    sys.constraint_residual(qb, vb, uploaded(b, rhs), t, level == 1, phi);
    (level == 0 ? out.first : out.second) = downloaded(b, phi);
  }
  return out;
}

}  // namespace catenary::testing
