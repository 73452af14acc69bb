#pragma once
// Sparse direct solver for the Newton matrix: UMFPACK (SuiteSparse) through Eigen's wrapper.
// The symbolic analysis (fill-reducing ordering) is done once per pattern and reused for every
// numeric factorization.
#include <memory>

#include <Eigen/SparseCore>

namespace catenary {

class SparseDirectSolver {
 public:
  // UMFPACK's int version allocates at most 2^31 - 1 bytes at once (UMF_malloc checks the byte
  // count against Int_MAX), and a 1,000,000-element cable's factor, one block, exceeds that; it
  // is also faster than the long version for the banded matrices here (by about 40 % on a
  // 16,384-element cable). So the int version runs until it reports that it ran out of memory,
  // and the long version from then on (on a copy of the matrix with 64-bit indices). The failed
  // attempt costs next to nothing: its first allocation, 0.7 x the symbolic estimate, is already
  // refused. wide_indices = true uses the long version from the start.
  explicit SparseDirectSolver(bool wide_indices = false);
  ~SparseDirectSolver();
  // Binds the matrix whose pattern is fixed from now on and runs the symbolic analysis.
  void analyze(const Eigen::SparseMatrix<double>& A);
  // Numeric factorization of the values currently in A; throws SimulationError if singular, or
  // if even the long version runs out of memory.
  void factorize(const Eigen::SparseMatrix<double>& A);
  // x = A^-1 rhs with the last factorization, without iterative refinement (see the .cpp).
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const;
  bool wide_indices() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace catenary
