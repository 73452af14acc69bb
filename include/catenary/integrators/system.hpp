#pragma once
// The equations of motion of a model over a backend:
//   M q'' + f_int(q, q') + Phi_q^T lambda = g(t),   Phi(q, t) = C q - b(t) = 0,
// with the constant constraint Jacobian C of the linear constraint rows. The integrators
// (statics, HHT, initial conditions) are written once against this class.
#include <Eigen/Core>

#include "catenary/assembly/backend.hpp"
#include "catenary/assembly/model_operators.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

class System {
 public:
  System(const Model& m, Backend& backend);
  const Model& model() const { return model_; }
  Backend& backend() { return backend_; }
  int dofs() const { return model_.dof_count(); }
  int constraints() const { return model_.constraint_count(); }

  // g(t): gravity, distributed and point loads, as a combination of the load patterns.
  void external_force(double t, Eigen::VectorXd& g) const;
  const LoadPatterns& load_patterns() const { return loads_; }
  // Phi(q, t) = C q - b(t); b(t) itself; and b'(t), b''(t).
  void constraint_residual(const Eigen::VectorXd& q, double t, Eigen::VectorXd& phi);
  void constraint_rhs(double t, Eigen::VectorXd& b) const;
  void constraint_velocity_rhs(double t, Eigen::VectorXd& bdot) const;
  void constraint_acceleration_rhs(double t, Eigen::VectorXd& bddot) const;
  // y = C x and y = C^T mu.
  void constraint_product(const Eigen::VectorXd& x, Eigen::VectorXd& y) { backend_.constraint_product(x, y); }
  void constraint_transpose_product(const Eigen::VectorXd& mu, Eigen::VectorXd& y) {
    backend_.constraint_transpose_product(mu, y);
  }

  // Per-coordinate scale for convergence and error tests (coordinate_scales: characteristic
  // length for positions, 1 for slopes). max_i |dx_i| / (tol * (scale_i + |x_i|)) <= 1 means
  // converged; Backend::weighted_norm is the same norm on backend vectors.
  // worst (optional) receives the coordinate where the maximum is reached.
  double weighted_norm(const Eigen::VectorXd& dx, const Eigen::VectorXd& x, double tol,
                       int* worst = nullptr) const;
  // Round-off floor of a residual computed with a matrix of infinity norm matrix_norm at q
  // (q_max_abs = max |q_i|):
  // the size of matrix_norm times the rounding of the coordinates. Below it a Newton iteration
  // cannot make progress, so convergence tests accept it.
  double residual_floor(double matrix_norm, double q_max_abs) const;
  // The coordinate with the largest weighted entry, described as "body 'x' node n, coordinate c".
  std::string describe_dof(int dof) const;

  struct Energies {
    double kinetic = 0.0, gravitational = 0.0, elastic = 0.0;
  };
  Energies energies(const Eigen::VectorXd& q, const Eigen::VectorXd& v);

 private:
  const Model& model_;
  Backend& backend_;
  LoadPatterns loads_;
  Eigen::VectorXd coordinate_scales_, gravity_;
};

}  // namespace catenary
