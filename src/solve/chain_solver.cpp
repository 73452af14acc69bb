#include "catenary/solve/chain_solver.hpp"

#include <omp.h>

#include <string>

namespace catenary {

namespace {
// Below this many blocks the threads cost more than they save (a block step takes about a
// microsecond; the test suite runs several processes at once).
constexpr int kParallelBlocks = 1024;
}  // namespace

ChainSolver::ChainSolver(const BlockChainOrdering& order, const Eigen::SparseMatrix<double>& pattern, int threads)
    : layout_(order.block_ptr),
      partition_(layout_, order.chain_ptr,
                 threads > 0                        ? threads
                 : layout_.blocks > kParallelBlocks ? omp_get_max_threads()
                                                    : 1) {
  const int n = static_cast<int>(order.original_of.size());
  if (pattern.rows() != n || pattern.cols() != n)
    throw std::invalid_argument("chain solver: a matrix of " + std::to_string(pattern.rows()) +
                                " unknowns for an order of " + std::to_string(n));
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
  scatter_ = block_scatter(layout_, order.chain_ptr, entry_row, entry_col);
  block_data_.assign(3 * layout_.slots(), 0.0);
  pivots_.assign(static_cast<size_t>(layout_.blocks) * layout_.B, 0);
  padded_rhs_.assign(static_cast<size_t>(layout_.blocks) * layout_.B, 0.0);
  padded_x_ = padded_rhs_;
}

std::string ChainSolver::description() const {
  const bool cut = !partition_.separators().empty();
  return "block chain elimination" + (cut ? " (" + std::to_string(partition_.part_count()) + " parts)" : std::string());
}

Blocks ChainSolver::blocks() const {
  double* base = block_data_.data();
  const size_t per_array = layout_.slots();
  return Blocks{base,    base + per_array, base + 2 * per_array, nullptr,  nullptr, layout_.offset.data(),
                nullptr, pivots_.data(),   layout_.size.data(),  layout_.B};
}

void ChainSolver::factorize(const Eigen::SparseMatrix<double>& A) {
  for (int at : scatter_.uncovered) block_data_[at] = 0.0;
  const double* values = A.valuePtr();
  const long entries = static_cast<long>(scatter_.destination.size());
#pragma omp parallel for schedule(static) if (layout_.blocks > kParallelBlocks)
  for (long s = 0; s < entries; ++s) block_data_[scatter_.destination[s]] = values[s];
  partition_.factorize(blocks());
}

void ChainSolver::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const {
  const int n = static_cast<int>(padded_index_.size());
  for (int i = 0; i < n; ++i) padded_rhs_[padded_index_[i]] = rhs[i];
  partition_.solve(blocks(), padded_rhs_.data(), padded_x_.data());
  x.resize(n);
  for (int i = 0; i < n; ++i) x[i] = padded_x_[padded_index_[i]];
}

}  // namespace catenary
