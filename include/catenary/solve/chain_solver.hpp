#pragma once
// Block elimination along each chain (solve/chain_elimination.hpp) on the CPU: the CPU backend's
// solver for chain models (its default for them; UMFPACK stays the tests' reference). Many chains
// run a thread each; few long chains are cut so that all threads share them
// (solve/chain_partition.hpp). It runs the block code of the CUDA backend's solver, not that
// solver's host build (kernels/block_tridiagonal_solver.cu over HostSpace), which needs Thrust and
// nvcc, which a CPU-only build lacks; only the scatter and the partition are its own.
#include <string>
#include <vector>

#include <Eigen/SparseCore>

#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/chain_partition.hpp"

namespace catenary {

class ChainSolver {
 public:
  // pattern: the Newton matrix's entries (CSC in the original unknown order: coordinates, then
  // constraint rows); order: its chain order (block_chain_ordering). Throws std::invalid_argument
  // for an entry that couples blocks which are not neighbours in one chain.
  // threads: how many the partition plans for (solve/chain_partition.hpp); 0: OpenMP's
  // maximum, or one for a model under a thousand blocks.
  ChainSolver(const BlockChainOrdering& order, const Eigen::SparseMatrix<double>& pattern, int threads = 0);
  // Factorizes the values of A, which has the pattern's entries; throws SimulationError when a
  // block is singular.
  void factorize(const Eigen::SparseMatrix<double>& A);
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const;
  const ChainPartition& partition() const { return partition_; }
  // "block chain elimination", with the parts where chains were cut: "... (16 parts)".
  std::string description() const;

 private:
  Blocks blocks() const;

  BlockLayout layout_;
  ChainPartition partition_;
  std::vector<int> padded_index_;  // per original unknown: its place in a padded block vector
  BlockScatter scatter_;
  mutable std::vector<double> block_data_;  // D, L, U
  mutable std::vector<int> pivots_;
  mutable std::vector<double> padded_rhs_, padded_x_;
};

}  // namespace catenary
