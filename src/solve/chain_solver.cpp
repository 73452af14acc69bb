#include "catenary/solve/chain_solver.hpp"

#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/solve/chain_elimination.hpp"

namespace catenary {

namespace {
// Below this many blocks the threads cost more than they save (a block step takes about a
// microsecond; the test suite runs several processes at once).
constexpr int kParallelBlocks = 1024;
}  // namespace

ChainSolver::ChainSolver(const BlockChainOrdering& order, const Eigen::SparseMatrix<double>& pattern)
    : layout_(order.block_ptr), chain_ptr_(order.chain_ptr) {
  check_chains(chain_ptr_, layout_.blocks);
  const int n = static_cast<int>(order.original_of.size());
  if (pattern.rows() != n || pattern.cols() != n)
    throw std::invalid_argument("chain solver: a matrix of " + std::to_string(pattern.rows()) + " unknowns for an order of " +
                                std::to_string(n));
  std::vector<int> position_of(n);
  for (int p = 0; p < n; ++p) position_of[order.original_of[p]] = p;
  padded_index_.resize(n);
  for (int i = 0; i < n; ++i) padded_index_[i] = layout_.vector_index[position_of[i]];
  std::vector<int> entry_row(pattern.nonZeros()), entry_col(pattern.nonZeros());
  for (int col = 0; col < pattern.outerSize(); ++col)
    for (int s = pattern.outerIndexPtr()[col]; s < pattern.outerIndexPtr()[col + 1]; ++s) {
      entry_row[s] = position_of[pattern.innerIndexPtr()[s]];
      entry_col[s] = position_of[col];
    }
  scatter_ = block_scatter(layout_, chain_ptr_, entry_row, entry_col);
  block_data_.assign(3 * layout_.slots(), 0.0);
  pivots_.assign(static_cast<size_t>(layout_.blocks) * layout_.B, 0);
  padded_rhs_.assign(static_cast<size_t>(layout_.blocks) * layout_.B, 0.0);
  padded_x_ = padded_rhs_;
}

Blocks ChainSolver::blocks() const {
  double* base = block_data_.data();
  const size_t per_array = layout_.slots();
  return Blocks{base,    base + per_array,      base + 2 * per_array, nullptr,           nullptr,
                layout_.offset.data(), nullptr, pivots_.data(),       layout_.size.data(), layout_.B};
}

void ChainSolver::factorize(const Eigen::SparseMatrix<double>& A) {
  for (int at : scatter_.uncovered) block_data_[at] = 0.0;
  const double* values = A.valuePtr();
  const long entries = static_cast<long>(scatter_.destination.size());
#pragma omp parallel for schedule(static) if (layout_.blocks > kParallelBlocks)
  for (long s = 0; s < entries; ++s) block_data_[scatter_.destination[s]] = values[s];
  const Blocks b = blocks();
  const int chains = static_cast<int>(chain_ptr_.size()) - 1;
  std::vector<int> singular(chains, 0);
#pragma omp parallel for schedule(dynamic) if (layout_.blocks > kParallelBlocks)
  for (int c = 0; c < chains; ++c) FactorChain{b, chain_ptr_.data(), &singular[c]}(c);
  for (int c = 0; c < chains; ++c)
    if (singular[c] != 0)
      throw SimulationError("chain solver: block " + std::to_string(singular[c] - 1) +
                            " is singular (a constraint row without a coordinate to hold, or a mechanism)");
}

void ChainSolver::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const {
  const int n = static_cast<int>(padded_index_.size());
  for (int i = 0; i < n; ++i) padded_rhs_[padded_index_[i]] = rhs[i];
  const Blocks b = blocks();
  const int chains = static_cast<int>(chain_ptr_.size()) - 1;
#pragma omp parallel for schedule(dynamic) if (layout_.blocks > kParallelBlocks)
  for (int c = 0; c < chains; ++c) SolveChain{b, chain_ptr_.data(), padded_rhs_.data(), padded_x_.data()}(c);
  x.resize(n);
  for (int i = 0; i < n; ++i) x[i] = padded_x_[padded_index_[i]];
}

}  // namespace catenary
