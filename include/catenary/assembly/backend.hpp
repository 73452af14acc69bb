#pragma once
// The interface the integrators are written against, implemented once per backend (CPU now,
// CUDA in kernels/). A backend owns the per-element work (forces, Jacobians, mass products), the
// Newton matrix values in the shared SystemPattern and their factorization.
#include <string>

#include <Eigen/Core>

namespace catenary {

struct NewtonMatrixCoefficients {
  double mass = 0.0;        // times M
  double stiffness = 0.0;   // times K = d f_int / dq
  double damping = 0.0;     // times D = d f_int / dv
  double constraint = 1.0;  // times Phi_q in both off-diagonal blocks
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  // f = f_int(q, v): elastic plus material damping forces. Returns the strain energy.
  virtual double internal_force(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                Eigen::VectorXd& f) = 0;
  // y = M x (the constant consistent mass).
  virtual void mass_product(const Eigen::VectorXd& x, Eigen::VectorXd& y) = 0;
  // Writes the Newton matrix c.mass M + c.stiffness K(q, v) + c.damping D(q, v) with the
  // constraint blocks, and returns f_int(q, v) from the same element pass.
  virtual void assemble_newton_matrix(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                      const NewtonMatrixCoefficients& c, Eigen::VectorXd& f) = 0;
  // Infinity norm of the coordinate block of the matrix last assembled (max row sum of |a_ij|),
  // for the round-off floor of the Newton residual.
  virtual double newton_matrix_norm() const = 0;
  // Factorizes the matrix last assembled; throws SimulationError if it is singular.
  virtual void factorize() = 0;
  // x = A^-1 rhs with the last factorization.
  virtual void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) = 0;
};

}  // namespace catenary
