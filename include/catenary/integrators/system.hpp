#pragma once
// The equations of motion of a model over a backend:
//   M(q) q'' + f(q, q', t) + Phi_q^T lambda = g(t),   Phi(q, t) = 0,
// where the elements' part (constant mass, f_int, the linear rows Phi = C q - b(t) with their
// constant Jacobian C) is the backend's and the multibody block's part (rigid bodies' M(q) and
// forces, the nonlinear rows of joints, drivers, attachments, normalizations) is added by this
// class on the host (multibody/multibody_block.hpp). The integrators (statics, initial
// conditions, HHT, generalized-alpha, BDF) are written once against it.
#include <vector>

#include <Eigen/Core>

#include "catenary/assembly/backend.hpp"
#include "catenary/assembly/multibody_block.hpp"
#include "catenary/model/model.hpp"
#include "catenary/model/model_operators.hpp"

namespace catenary {

// What System::newton_terms forms besides its vectors.
struct NewtonTermsForm {
  bool matrix = true;           // the Newton matrix too (false: a modified Newton iteration's vectors)
  bool velocity_level = false;  // phi at the velocity level
  // The rigid bodies' mass terms scaled by their assembly weights (the metric of the consistent
  // initial positions, MultibodyBlock::newton_matrix).
  bool assembly_weights = false;
};

class System {
 public:
  System(const Model& m, Backend& backend);
  const Model& model() const { return model_; }
  Backend& backend() { return backend_; }
  int dofs() const { return model_.dof_count(); }
  int constraints() const { return model_.constraint_count(); }

  // g(t): gravity, distributed and point loads, as a combination of the load patterns.
  void external_force(double t, Vector& g);
  const LoadPatterns& load_patterns() const { return loads_; }
  // The same patterns' vectors in the backend's memory, uploaded once: the integrators combine
  // them with their own terms in one pass (NewmarkNewton's fixed terms).
  const std::vector<Vector>& load_vectors() const { return load_vectors_; }
  const MultibodyBlock& multibody() const { return block_; }
  // The mechanism's coordinates of a model coordinate vector (MultibodyBlock's order), and the way
  // back: x += local on them. A few values cross between backend and host.
  Eigen::VectorXd mechanism_part(const Vector& x) { return pick(x, block_.layout().dofs); }
  void add_to_mechanism_part(const Eigen::VectorXd& local, Vector& x) { add_at(block_.layout().dofs, local, x); }
  // Whether newton_terms reads the velocities: the elements' material damping, or a multibody
  // block (its forces and joints may hold them). Without, a Newton iteration need not keep v1 up
  // to date. Found once (a scan of every element's properties).
  bool velocity_in_residual() const { return velocity_in_residual_; }
  // b(t) of the linear rows Phi = C q - b(t), or its derivative of the given order (0 on the
  // nonlinear rows, whose Phi, nu and gamma hold t themselves), on the host for the caller to
  // upload.
  void constraint_rhs(double t, Eigen::VectorXd& b, int derivative = 0) const;
  // gamma(q, q', t), the right-hand side of Phi_q q'' = gamma: b''(t) on the linear rows.
  void constraint_acceleration_rhs(const Vector& q, const Vector& v, double t, Vector& gamma);

  // One Newton iteration's evaluation: the Newton matrix
  //   [c.mass M + c.stiffness K + c.damping D + d(M w + Phi_q^T mu)/dq,  c.constraint Phi_q^T]
  //   [c.constraint Phi_q,                                                0                  ]
  // (assembled in the backend, ready to factorize; w = q - *terms.origin, held fixed in the
  // derivative) and, from the same evaluation,
  // y = terms.force_scale f(q, v, t) + terms.mass_scale M(q) w + Phi_q(q)^T mu (ForceTerms; the
  // elements' part in their own pass; with terms.from, y = from minus those terms) and phi = C q on the linear rows, Phi(q, t) on the
  // nonlinear ones (so phi - b(t) is the constraint residual). With velocity_level, phi is
  // instead C v on the linear rows and Phi_q v - nu(q, t) on the nonlinear ones (phi - b'(t) is
  // the velocity constraints' residual). Without matrix, only the vectors (a modified Newton
  // iteration, which solves with the last factorization). terms.origin must be set.
  void newton_terms(const Vector& q, const Vector& v, double t, const ForceTerms& terms, const Vector& mu,
                    const NewtonMatrixCoefficients& c, Vector& y, Vector& phi, const NewtonTermsForm& form = {});
  // phi = Phi(q, t) on backend vectors (b: b(t) of the linear rows, uploaded by the caller); with
  // velocity_level, phi = Phi_q(q) v - nu(q, t) (b: b'(t)).
  void constraint_residual(const Vector& q, const Vector& v, const Vector& b, double t, bool velocity_level,
                           Vector& phi);
  // Infinity norm of the coordinate rows of the Newton matrix last assembled.
  double newton_matrix_norm() const { return matrix_norm_; }
  // y = scale M(q, t) x + plus.a plus.x on backend vectors (Backend::mass_product; x and y
  // distinct): the rigid bodies' mass and the water's added mass depend on q, the added mass on
  // t through the waves.
  void mass_product(const Vector& q, double t, const Vector& x, Vector& y, double scale = 1.0,
                    const Scaled& plus = {0.0, nullptr});

  // Per-coordinate scale for convergence and error tests (coordinate_scales: characteristic
  // length for positions, 1 for slopes). max_i |dx_i| / (tol * (scale_i + |x_i|)) <= 1 means
  // converged; Backend::weighted_norm is the same norm on backend vectors.
  // worst (optional) receives the coordinate where the maximum is reached.
  double weighted_norm(const Eigen::VectorXd& dx, const Eigen::VectorXd& x, double tol,
                       int* worst = nullptr) const;
  // The coordinates whose entry of that norm is above 1 or not finite (a failed iteration's
  // unsettled coordinates).
  std::vector<int> unsettled_coordinates(const Eigen::VectorXd& dx, const Eigen::VectorXd& x, double tol) const;
  // Round-off floor of a residual computed with a matrix of infinity norm matrix_norm at q
  // (q_max_abs = max |q_i|):
  // the size of matrix_norm times the rounding of the coordinates. Below it a Newton iteration
  // cannot make progress, so convergence tests accept it.
  double residual_floor(double matrix_norm, double q_max_abs) const;
  // A coordinate in words (describe_coordinate), such as the one with the largest weighted entry.
  std::string describe_dof(int dof) const;
  // For a failed step of a model with a mechanism: how close its constraint Jacobian at q is to
  // singular and in which joints (describe_singularity); empty without a mechanism.
  std::string singularity_note(const Vector& q, double t);

  struct Energies {
    double kinetic = 0.0, gravitational = 0.0, elastic = 0.0;
    Eigen::VectorXd mass_times_v;  // M(q) v, of which the kinetic energy is 1/2 v . (M v)
  };
  // The energies of a state in backend vectors (q, v) that the caller also holds on the host
  // (q_host, v_host): the backend's part without uploading it again. Into E, whose M v keeps its
  // allocation from frame to frame (a fresh one's pages cost a fault each, 12,000 of them at
  // 1,000,000 elements).
  void energies(const Vector& q, const Vector& v, const Eigen::VectorXd& q_host, const Eigen::VectorXd& v_host,
                Energies& E);

 private:
  // The block's local vector of a model vector (coordinates or rows), and the way back.
  Eigen::VectorXd pick(const Vector& x, const std::vector<int>& index);
  void add_at(const std::vector<int>& index, const Eigen::VectorXd& local, Vector& x);

  const Model& model_;
  Backend& backend_;
  MultibodyBlock block_;
  std::vector<int> block_rows_;
  LoadPatterns loads_;
  std::vector<Vector> load_vectors_;
  bool velocity_in_residual_;
  Eigen::VectorXf coordinate_scales_;  // float, as the backends' (vector_kernels.hpp, WeightedEntryAt)
  Eigen::VectorXd gravity_;
  double matrix_norm_ = 0.0;
};

}  // namespace catenary
