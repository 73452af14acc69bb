#pragma once
// Sparse direct solver for the Newton matrix: UMFPACK (SuiteSparse) through Eigen's wrapper.
// The symbolic analysis (fill-reducing ordering) is done once per pattern and reused for every
// numeric factorization.
#include <memory>

#include <Eigen/SparseCore>

namespace catenary {

class SparseDirectSolver {
 public:
  SparseDirectSolver();
  ~SparseDirectSolver();
  // Binds the matrix whose pattern is fixed from now on and runs the symbolic analysis.
  void analyze(const Eigen::SparseMatrix<double>& A);
  // Numeric factorization of the values currently in A; throws SimulationError if singular.
  void factorize(const Eigen::SparseMatrix<double>& A);
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace catenary
