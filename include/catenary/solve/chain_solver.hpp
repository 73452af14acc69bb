#pragma once
// Block elimination along each chain (solve/chain_elimination.hpp) on the CPU: the CPU backend's
// solver for chain models (its default for them; UMFPACK stays the tests' reference). Many chains
// run a thread each; few long chains are cut so that all threads share them
// (solve/chain_partition.hpp). It runs the block code of the CUDA backend's solver, not that
// solver's host build (kernels/block_tridiagonal_solver.cu over HostSpace), which needs Thrust and
// nvcc, which a CPU-only build lacks; only the scatter and the partition are its own. Without a
// border, rows that hold one coordinate (a pinned end's) leave the blocks as in that solver
// (solve/held_rows.hpp): their unknowns are found after each solve.
//
// A bordered order (bordered_chain_ordering: rigid bodies, joints, rows over several nodes after
// the node blocks) is solved by the border's Schur complement over the chains
// (solve/border_split.hpp), as the CUDA backend's bordered solver does: each factorization costs
// one chain solve per right-hand side of split_border (the border columns coupled to the blocks,
// or the block rows coupled to the border, whichever are fewer), each solve two. Where those
// right-hand sides and C touch block 0 alone (a crane's boom on a cable's first node), block 0 is
// eliminated last (a whole chain downwards; a cut one with block 0 as its first separator): a
// right-hand side costs one solve with block 0's final factorization instead, and a solve one
// solve over the chain, x_b found between its sweeps (ChainPartition::solve_correcting_first_block).
#include <Eigen/SparseCore>
#include <optional>
#include <string>
#include <vector>

#include "catenary/core/first_touch.hpp"
#include "catenary/solve/block_chain.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/block_solver_options.hpp"
#include "catenary/solve/border_split.hpp"
#include "catenary/solve/chain_partition.hpp"
#include "catenary/solve/held_rows.hpp"

namespace catenary {

class ChainSolver {
 public:
  // pattern: the Newton matrix's entries (CSC in the original unknown order: coordinates, then
  // constraint rows); order: its chain order (block_chain_ordering), or one with a border
  // (bordered_chain_ordering). Throws std::invalid_argument for an entry that couples blocks which
  // are not neighbours in one chain.
  // threads: how many the partition plans for (solve/chain_partition.hpp); 0: OpenMP's
  // maximum, or one for a model under a thousand blocks.
  // options: whether held rows leave the blocks (BlockSolverOptions::take_out_held_rows).
  ChainSolver(const BlockChainOrdering& order, const Eigen::SparseMatrix<double>& pattern, int threads = 0,
              const BlockSolverOptions& options = {});
  // Factorizes the values of A, which has the pattern's entries; throws SimulationError when a
  // block or the border's Schur complement is singular. The factorization keeps what it needs of
  // A: solve() may follow changes to A.
  void factorize(const Eigen::SparseMatrix<double>& A);
  // x = A^-1 rhs; x is not rhs (held rows read rhs after x is written).
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const;
  const ChainPartition& partition() const { return *partition_; }
  const BlockLayout& layout() const { return layout_; }  // the blocks as solved (held rows out)
  // The order's needs_mass_term: a factorization of a matrix without a mass term may fail.
  bool needs_mass_term() const { return needs_mass_term_; }
  // "block chain elimination", with the parts where chains were cut: "... (16 parts)", rigid
  // bodies among the blocks: "... with 3 rigid bodies in the chains", and the border: "... with a
  // border of 16 unknowns".
  std::string description() const;

 private:
  Blocks blocks() const;
  void factorize_border(const double* values);
  // border_x_ = S^-1 (border_x_ - C y): the border's solution from its right-hand side and T's
  // part y of the solution (padded; C reads block 0's values alone where leading_block_only_).
  void solve_border(const double* y) const;
  // Row i of C times T's part y of a vector (padded).
  double c_row_product(int i, const double* y) const;
  // to += scale B x_b over B's first `rows` rows (padded).
  void add_border_product(double* to, double scale, int rows) const;

  BlockLayout layout_;
  std::optional<ChainPartition> partition_;  // planned once the border is known
  std::vector<int> position_of_;             // per original unknown: its position in the order
  int blocks_end_ = 0;                       // the first position after the blocks: the border's first
  // Without a border, the held rows (solve/held_rows.hpp; positions in the original order) and
  // their entries' values at the last factorization.
  HeldRows held_;
  std::vector<double> held_values_;
  int border_ = 0, rigid_blocks_ = 0;
  bool needs_mass_term_ = false;
  bool leading_block_only_ = false;         // the border's right-hand sides and C touch block 0 alone
  BorderSplit split_;                       // B, C and E (T's entries are the scatter's), with a border
  BlockScatter scatter_;                    // per entry of A: its place in the blocks, or -1 (the border's)
  mutable FirstTouchVector<double> block_data_;  // D, L, U
  mutable std::vector<int> pivots_;
  mutable std::vector<double> padded_rhs_, padded_x_;
  // The border at the last factorization: B's and C's values, S's LU (row-major) and pivots.
  std::vector<double> b_values_, c_values_, schur_lu_;
  std::vector<int> schur_pivots_;
  mutable std::vector<double> border_x_;
};

}  // namespace catenary
