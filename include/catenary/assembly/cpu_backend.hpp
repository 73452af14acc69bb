#pragma once
// The CPU backend: OpenMP loops over elements calling the shared element math, gather-style
// assembly into the SystemPattern, UMFPACK for the linear solves.
#include <vector>

#include <Eigen/SparseCore>

#include "catenary/assembly/backend.hpp"
#include "catenary/assembly/system_pattern.hpp"
#include "catenary/model/model.hpp"
#include "catenary/solve/linear_solver.hpp"

namespace catenary {

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const Model& m);
  std::string name() const override { return "cpu"; }
  double internal_force(const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& f) override;
  void mass_product(const Eigen::VectorXd& x, Eigen::VectorXd& y) override;
  void assemble_newton_matrix(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                              const NewtonMatrixCoefficients& c, Eigen::VectorXd& f) override;
  double newton_matrix_norm() const override { return matrix_norm_; }
  void factorize() override;
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) override;

  const SystemPattern& pattern() const { return pattern_; }
  const Eigen::SparseMatrix<double>& matrix() const { return matrix_; }

  // Time spent in each stage since construction, for the benchmark.
  struct Timings {
    double element = 0.0, assembly = 0.0, factorization = 0.0, solve = 0.0;
    long factorizations = 0;
  };
  const Timings& timings() const { return timings_; }

 private:
  template <int D>
  double evaluate_elements(const Eigen::VectorXd& q, const Eigen::VectorXd& v, bool jacobian,
                           const NewtonMatrixCoefficients& c);
  void gather_forces(Eigen::VectorXd& f) const;

  const Model& model_;
  SystemPattern pattern_;
  Eigen::SparseMatrix<double> matrix_;
  SparseDirectSolver solver_;
  std::vector<double> local_matrices_;  // element_dofs^2 per element
  std::vector<double> local_forces_;    // element_dofs per element
  std::vector<double> local_energy_;
  Timings timings_;
  double matrix_norm_ = 0.0;
};

}  // namespace catenary
