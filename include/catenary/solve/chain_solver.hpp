#pragma once
// Block elimination along each chain (solve/chain_elimination.hpp) on the CPU, chains in parallel
// with OpenMP: the CPU backend's solver for chain models when analysis.linear_solver names
// "chain_elimination". It runs the block code of the CUDA backend's solver; UMFPACK stays the
// CPU backend's default, and the tests' reference. It is not that solver's host build
// (kernels/block_tridiagonal_solver.cu over HostSpace) because that needs Thrust and nvcc, which
// a CPU-only build lacks; only the few lines that scatter and loop over chains are its own.
#include <vector>

#include <Eigen/SparseCore>

#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/solve/block_layout.hpp"

namespace catenary {

class ChainSolver {
 public:
  // pattern: the Newton matrix's entries (CSC in the original unknown order: coordinates, then
  // constraint rows); order: its chain order (block_chain_ordering). Throws std::invalid_argument
  // for an entry that couples blocks which are not neighbours in one chain.
  ChainSolver(const BlockChainOrdering& order, const Eigen::SparseMatrix<double>& pattern);
  // Factorizes the values of A, which has the pattern's entries; throws SimulationError when a
  // block is singular.
  void factorize(const Eigen::SparseMatrix<double>& A);
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const;

 private:
  Blocks blocks() const;

  BlockLayout layout_;
  std::vector<int> chain_ptr_;
  std::vector<int> padded_index_;  // per original unknown: its place in a padded block vector
  BlockScatter scatter_;
  mutable std::vector<double> block_data_;  // D, L, U
  mutable std::vector<int> pivots_;
  mutable std::vector<double> padded_rhs_, padded_x_;
};

}  // namespace catenary
