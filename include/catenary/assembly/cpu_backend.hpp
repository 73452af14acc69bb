#pragma once
// The CPU backend: OpenMP loops over elements calling the shared element math, gather-style
// assembly into the SystemPattern, block elimination along the chains of a chain model on all
// cores (solve/chain_solver.hpp) or UMFPACK for the linear solves. Its vectors are Eigen vectors
// in host memory. It is the reference the CUDA backend is checked against.
#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/assembly/backend_options.hpp"
#include "catenary/assembly/system_pattern.hpp"
#include "catenary/core/first_touch.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/model.hpp"
#include "catenary/model/model_operators.hpp"
#include "catenary/solve/chain_solver.hpp"
#include "catenary/solve/linear_solver.hpp"

namespace catenary {

class CpuBackend : public Backend {
 public:
  // solver: ChainElimination factorizes with the block elimination along each chain
  // (solve/chain_solver.hpp; throws BackendUnavailable unless the model is a chain); Auto does
  // too where the model is a chain (about 2.7x faster steps than UMFPACK for a 16,384-element
  // cable, docs/performance.md, Linear solvers) and takes UMFPACK otherwise; any other choice takes
  // UMFPACK, the general sparse LU and the block solvers' independent reference. A chain with a
  // border (rigid bodies, joints between nodes; bordered_chain_ordering) takes the chain
  // elimination for matrices with a mass term and UMFPACK for those without (see factorize()).
  // options: of them the CPU backend reads the chain elimination's (BackendOptions::block_solver).
  explicit CpuBackend(const Model& m, LinearSolverChoice solver = LinearSolverChoice::Auto,
                      const BackendOptions& options = {});
  std::string linear_solver() const override { return chain_solver_ ? chain_solver_->description() : "UMFPACK"; }
  std::string name() const override { return "cpu"; }

  Vector make_vector(int size) override;
  void upload(const Eigen::VectorXd& host, Vector& x) override;
  void download(const Vector& x, Eigen::VectorXd& host) override;
  void copy(const Vector& x, Vector& y) override;
  void axpby(double a, const Vector& x, double b, Vector& y) override;
  using Backend::combine;
  void combine(const Combinations& c) override;
  double dot(const Vector& x, const Vector& y) override;
  double max_abs(const Vector& x) override;
  void max_abs_each(std::initializer_list<const Vector*> xs, double* maxima) override;
  double weighted_norm(const Vector& dx, const Vector& x, double tol, int* worst) override;
  double weighted_difference_norm(double factor, const Vector& a, const Vector& b, const Vector& x,
                                  double tol) override;
  UpdateNorms add_update(const Vector& dx, Vector& x, std::initializer_list<Increment> also, double tol) override;

  using Backend::assemble_newton_matrix;
  using Backend::constraint_product;
  using Backend::internal_force;
  using Backend::mass_product;
  using Backend::solve;
  void internal_force(const Vector& q, const Vector& v, const ForceTerms& terms, Vector& f) override;
  double strain_energy() override { return strain_energy_; }
  double strain_energy_at(const Vector& q, const Vector& v) override;
  void element_energies(std::vector<double>& energies) override { energies = local_energy_; }
  void mass_product(const Vector& x, Vector& y, double scale, const Scaled& plus, const MassAt& at) override;
  void assemble_newton_matrix(const Vector& q, const Vector& v, const NewtonMatrixCoefficients& c,
                              const ForceTerms& terms, Vector& f) override;
  double newton_matrix_norm() const override { return matrix_norm_; }
  void solve(const Vector& rhs_dofs, const Vector& rhs_constraints, Vector& x, Vector& y) override;
  void constraint_product(const Vector& x, Vector& y) override;
  void add_constraint_transpose_product(double a, const Vector& mu, Vector& y) override;
  void add_block_entries(const std::vector<double>& values) override;
  void gather(const Vector& x, const std::vector<int>& index, std::vector<double>& out) override;
  void scatter_add(const std::vector<int>& index, const std::vector<double>& values, Vector& x) override;

  const Eigen::SparseMatrix<double>& matrix() const { return matrix_; }

 protected:
  void factorize_matrix() override;

 private:
  // The element pass: local forces as terms asks, and with jacobian the local Newton matrices.
  template <int D>
  double evaluate_elements(const Eigen::VectorXd& q, const Eigen::VectorXd& v, bool jacobian,
                           const NewtonMatrixCoefficients& c, const ForceTerms& terms);
  // The pass for the model's dimension.
  double evaluate_elements(const Eigen::VectorXd& q, const Eigen::VectorXd& v, bool jacobian,
                           const NewtonMatrixCoefficients& c, const ForceTerms& terms);
  // The elements' strain energies alone into local_energy_; returns their sum.
  template <int D>
  double evaluate_energies(const Eigen::VectorXd& q);
  // y += scale M_a(q) x, the water's added mass at q and time t (elements/fluid_load.hpp).
  template <int D>
  void add_added_mass(const Eigen::VectorXd& q, double t, const double* x, double scale, double* y) const;
  // f = the element rows summed per dof, or from - that sum (ForceTerms::from).
  void gather_forces(Eigen::VectorXd& f, const Vector* from = nullptr) const;

  const Model& model_;
  SystemPattern pattern_;  // its CSC structure moves to matrix_ (col_ptr and row_index left empty)
  Eigen::SparseMatrix<double> matrix_;
  SparseDirectSolver solver_;
  std::unique_ptr<ChainSolver> chain_solver_;  // instead of solver_ when asked for
  double mass_coefficient_ = 1.0;              // of the last assembled matrix
  bool chain_factorized_ = false;              // the last factorization is chain_solver_'s
  Eigen::SparseMatrix<double, Eigen::RowMajor> constraints_;
  ListedRows constraint_transpose_rows_;
  Eigen::VectorXf coordinate_scales_;  // float (vector_kernels.hpp, WeightedEntryAt)
  // Zeroed by the element loop's threads (core/first_touch.hpp).
  FirstTouchVector<double> local_matrices_;  // element_dofs^2 per element
  FirstTouchVector<double> local_forces_;    // element_dofs per element
  FirstTouchVector<double> local_row_sums_;  // element_dofs per element: the local matrix rows' sums of |entries|
  std::vector<double> local_energy_;         // one per element
  double strain_energy_ = 0.0;               // their sum
  // The solves' [dofs; constraints] vectors, kept: fresh ones of a large model (over glibc's 32 MB
  // mmap threshold) would be new pages, faulted in at every solve.
  Eigen::VectorXd solve_rhs_, solve_x_;
  double matrix_norm_ = 0.0;
};

}  // namespace catenary
