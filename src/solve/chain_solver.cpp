#include "catenary/solve/chain_solver.hpp"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "catenary/solve/block_chain.hpp"
#include "catenary/solve/dense_block.hpp"

namespace catenary {

namespace {
// Below this many blocks the threads cost more than they save (a block step takes about a
// microsecond; the test suite runs several processes at once).
constexpr int kParallelBlocks = 1024;
}  // namespace

ChainSolver::ChainSolver(const BlockChainOrdering& order, const Eigen::SparseMatrix<double>& pattern, int threads,
                         const BlockSolverOptions& options)
    : rigid_blocks_(order.rigid_blocks), needs_mass_term_(order.needs_mass_term()) {
  const int n = static_cast<int>(order.original_of.size());
  blocks_end_ = order.block_ptr.back();
  border_ = n - blocks_end_;
  if (pattern.rows() != n || pattern.cols() != n)
    throw std::invalid_argument("chain solver: a matrix of " + std::to_string(pattern.rows()) +
                                " unknowns for an order of " + std::to_string(n));
  position_of_ = positions_of(order.original_of);
  std::vector<int> entry_row(pattern.nonZeros()), entry_col(pattern.nonZeros());
  for (int col = 0; col < pattern.outerSize(); ++col)
    for (int s = pattern.outerIndexPtr()[col]; s < pattern.outerIndexPtr()[col + 1]; ++s) {
      entry_row[s] = position_of_[pattern.innerIndexPtr()[s]];
      entry_col[s] = position_of_[col];
    }
  // Held rows leave the blocks where no border reads the padded vectors (its products index them
  // by position); their unknowns are then found in the original order after each solve.
  if (border_ == 0 && options.take_out_held_rows) held_ = find_held_rows(order.block_ptr, entry_row, entry_col);
  layout_ = BlockLayout(order.block_ptr, held_);
  for (std::vector<int>* positions : {&held_.row, &held_.coordinate, &held_.entry_column})
    for (int& p : *positions) p = order.original_of[p];
  std::vector<int> t_slot;  // with a border: per entry of T, its entry of A
  if (border_ > 0) {
    split_ = split_border(n, border_, entry_row, entry_col);
    entry_row = entry_rows(split_.t.row_ptr);
    entry_col = std::move(split_.t.col);
    t_slot = std::move(split_.t.slot);
    split_.t = CsrPart();  // T's entries go to the blocks by the scatter
    border_x_.resize(border_);
    leading_block_only_ = split_.within_leading_block(layout_.size[0]);
  }
  const int planned = threads > 0 ? threads : layout_.blocks > kParallelBlocks ? omp_get_max_threads() : 1;
  partition_.emplace(layout_, order.chain_ptr, planned, leading_block_only_);
  scatter_ = block_scatter(layout_, order.chain_ptr, entry_row, entry_col);
  if (border_ > 0) {  // the scatter per entry of A: the border's entries go nowhere
    std::vector<int> destination(pattern.nonZeros(), -1);
    for (size_t k = 0; k < t_slot.size(); ++k) destination[t_slot[k]] = scatter_.destination[k];
    scatter_.destination = std::move(destination);
  }
  // Each of D, L and U zeroed by all threads (core/first_touch.hpp); the partition's parts are
  // near-equal runs of blocks, as the static schedule's shares are.
  const std::ptrdiff_t per_array = layout_.slots();
  block_data_.resize(3 * per_array);
  for (int array = 0; array < 3; ++array) zero_in_parallel(block_data_.data() + array * per_array, per_array);
  pivots_.assign(static_cast<size_t>(layout_.blocks) * layout_.B, 0);
  padded_rhs_.assign(static_cast<size_t>(layout_.blocks) * layout_.B, 0.0);
  padded_x_ = padded_rhs_;
}

std::string ChainSolver::description() const {
  const bool cut = !partition_->separators().empty();
  return "block chain elimination" +
         (cut ? " (" + std::to_string(partition_->part_count()) + " parts)" : std::string()) +
         chain_order_details(rigid_blocks_, border_);
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
  held_values_.resize(held_.entry_slot.size());
  for (size_t k = 0; k < held_values_.size(); ++k) held_values_[k] = values[held_.entry_slot[k]];
  const long entries = static_cast<long>(scatter_.destination.size());
#pragma omp parallel for schedule(static) if (layout_.blocks > kParallelBlocks)
  for (long s = 0; s < entries; ++s)
    if (scatter_.destination[s] >= 0) block_data_[scatter_.destination[s]] = values[s];
  partition_->factorize(blocks());
  if (border_ > 0) factorize_border(values);
}

// S = E - C T^-1 B from split_border's right-hand sides x_l (B's columns, or the unit vectors of
// its rows): C T^-1 x_l, one chain solve each, or one solve with block 0's factorization where
// it is eliminated last and the x_l and C touch nothing else.
void ChainSolver::factorize_border(const double* values) {
  const BorderSplit& s = split_;
  const int m = border_;
  const auto gather = [&](const std::vector<int>& slot, std::vector<double>& out) {
    out.resize(slot.size());
    for (size_t k = 0; k < slot.size(); ++k) out[k] = values[slot[k]];
  };
  gather(s.b.slot, b_values_);
  gather(s.c.slot, c_values_);
  std::vector<double> e(static_cast<size_t>(m) * m, 0.0), cw(static_cast<size_t>(m) * s.right_hand_sides());
  for (size_t k = 0; k < s.e_index.size(); ++k) e[s.e_index[k]] = values[s.e_slot[k]];
  const Blocks b = blocks();
  const int lead = layout_.size[0];
  for (int l = 0; l < s.right_hand_sides(); ++l) {
    std::fill(padded_rhs_.begin(), leading_block_only_ ? padded_rhs_.begin() + lead : padded_rhs_.end(), 0.0);
    for (int k = s.rhs_ptr[l]; k < s.rhs_ptr[l + 1]; ++k)
      padded_rhs_[layout_.vector_index[s.rhs_row[k]]] = border_value(b_values_.data(), s.rhs_entry[k]);
    if (leading_block_only_) {  // block 0's entries of T^-1 x_l, all that C reads
      std::copy(padded_rhs_.begin(), padded_rhs_.begin() + lead, padded_x_.begin());
      partition_->solve_first_block(b, padded_x_.data());
    } else {
      partition_->solve(b, padded_rhs_.data(), padded_x_.data());
    }
    for (int i = 0; i < m; ++i) cw[static_cast<size_t>(l) * m + i] = c_row_product(i, padded_x_.data());
  }
  factorize_schur_complement(s, e, cw, b_values_, schur_lu_, schur_pivots_, "block chain elimination");
}

void ChainSolver::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const {
  if (held_.size() > 0 && &rhs == &x) throw std::invalid_argument("chain solver: x is the right-hand side");
  const int n = static_cast<int>(position_of_.size());
  const bool parallel = layout_.blocks > kParallelBlocks;
#pragma omp parallel for schedule(static) if (parallel)
  for (int i = 0; i < n; ++i) {
    const int p = position_of_[i];
    if (p >= blocks_end_)
      border_x_[p - blocks_end_] = rhs[i];
    else if (layout_.equation_index[p] >= 0)  // not a held coordinate's equation
      padded_rhs_[layout_.equation_index[p]] = rhs[i];
  }
  if (leading_block_only_) {
    // Block 0, eliminated last, holds all of B's rows and C's columns: x_b once its solution for
    // r_T is known, and the back substitution from block 0 less F^-1 B x_b. One solve.
    partition_->solve_correcting_first_block(blocks(), padded_rhs_.data(), padded_x_.data(),
                                             [&](const double* x_first, double* delta) {
                                               solve_border(x_first);
                                               add_border_product(delta, 1.0, layout_.size[0]);
                                             });
  } else {
    // y = T^-1 r_T;  x_b = S^-1 (r_b - C y);  then r_T -= B x_b for the second solve.
    if (border_ > 0) {
      partition_->solve(blocks(), padded_rhs_.data(), padded_x_.data());
      solve_border(padded_x_.data());
      add_border_product(padded_rhs_.data(), -1.0, split_.p);
    }
    partition_->solve(blocks(), padded_rhs_.data(), padded_x_.data());
  }
  x.resize(n);
#pragma omp parallel for schedule(static) if (parallel)
  for (int i = 0; i < n; ++i) {
    const int p = position_of_[i];
    x[i] = p >= blocks_end_               ? border_x_[p - blocks_end_]
           : layout_.vector_index[p] >= 0 ? padded_x_[layout_.vector_index[p]]
                                          : 0.0;
  }
  const SolveHeldRow held_row{held_.row.data(),
                              held_.coordinate.data(),
                              held_.entry_ptr.data(),
                              held_.entry_column.data(),
                              held_values_.data(),
                              rhs.data(),
                              x.data(),
                              1,
                              0,
                              0};
  for (int h = 0; h < held_.size(); ++h) held_row(h);
}

void ChainSolver::solve_border(const double* y) const {
  for (int i = 0; i < border_; ++i) border_x_[i] -= c_row_product(i, y);
  lu_solve(schur_lu_.data(), schur_pivots_.data(), border_x_.data(), border_, border_, 1);
}

double ChainSolver::c_row_product(int i, const double* y) const {
  const BorderSplit& s = split_;
  double sum = 0.0;
  for (int k = s.c.row_ptr[i]; k < s.c.row_ptr[i + 1]; ++k) sum += c_values_[k] * y[layout_.vector_index[s.c.col[k]]];
  return sum;
}

void ChainSolver::add_border_product(double* to, double scale, int rows) const {
  const BorderSplit& s = split_;
  for (int row = 0; row < rows; ++row)
    for (int k = s.b.row_ptr[row]; k < s.b.row_ptr[row + 1]; ++k)
      to[layout_.vector_index[row]] += scale * b_values_[k] * border_x_[s.b.col[k]];
}

}  // namespace catenary
