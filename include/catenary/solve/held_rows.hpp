#pragma once
// Constraint rows that hold a single coordinate (a pinned node's x, y and z; a clamped end's
// slopes), taken out of the block solvers' blocks. Such a row r has one entry, A(r, j), and its
// column one, A(j, r). Kept in the blocks, a pinned node's three rows make its block 9 wide, and
// BlockLayout pads every block's slot, the padded vectors and the row-per-thread kernels to the
// widest block: a chain of 6 x 6 blocks stored, read and worked on 9 wide.
//
// The elimination is exact. Row r alone says A(r, j) x_j = b_r, so equation r takes equation j's
// place in the blocks (solve/block_layout.hpp) and x_r leaves them; equation j, the only one with
// a term in x_r, gives it after the blocks are solved:
//   x_r = (b_j - sum_{k != r} A(j, k) x_k) / A(j, r).
// Column r holds A(j, r) alone, so det A = +-A(j, r) det A' for the matrix A' left (without row j
// and column r), and the same holds for any set of blocks around j: every block and Schur
// complement the block methods factorize is as regular as the one with the rows kept.
#include <algorithm>
#include <vector>

#include "catenary/core/host_device.hpp"

namespace catenary {

struct HeldRows {
  std::vector<int> row, coordinate;  // per pair: the positions of the constraint row r and of its coordinate j
  // Pair h's entries entry_ptr[h] .. entry_ptr[h + 1] - 1: row j's entries of the matrix, A(j, r) first;
  // slot: the entry's index among the matrix's entries, column: the position of its column.
  std::vector<int> entry_ptr{0}, entry_slot, entry_column;
  int size() const { return static_cast<int>(row.size()); }
};

// The held rows among the blocks (positions below block_ptr.back()) of a matrix whose entry s is
// at (entry_row[s], entry_col[s]) (positions in the order of block_ptr): rows with one entry, at
// a column of their own block whose only entry is at that column's row, one row per coordinate.
// Threaded (src/solve/held_rows.cpp): a batch of 10,000 cables has 1.1e8 entries.
HeldRows find_held_rows(const std::vector<int>& block_ptr, const std::vector<int>& entry_row,
                        const std::vector<int>& entry_col);

// x_r = (b_j - sum_{k != r} A(j, k) x_k) / A(j, r) for held pair h (HeldRows: row r, coordinate
// j, its entries' columns) after the blocks' solve, for `count` right-hand sides `stride` apart in
// rhs and x. value: the pair's entries' values (HeldRows::entry_slot gathered at factorization);
// the indices are those of rhs and x (positions or the original order).
struct SolveHeldRow {
  const int *row, *coordinate, *entry_ptr, *entry_column;
  const double* value;
  const double* rhs;
  double* x;
  int count;
  long rhs_stride, x_stride;
  CATENARY_HD void operator()(int h) const {
    for (int c = 0; c < count; ++c) solve(h, rhs + c * rhs_stride, x + c * x_stride);
  }
  // Pair h's x_r from b and xc, which index as rhs and x do (arrays, or views of them).
  template <class Rhs, class X>
  CATENARY_HD void solve(int h, const Rhs& b, const X& xc) const {
    double sum = b[coordinate[h]];
    for (int k = entry_ptr[h] + 1; k < entry_ptr[h + 1]; ++k) sum -= value[k] * xc[entry_column[k]];
    xc[row[h]] = sum / value[entry_ptr[h]];
  }
};

}  // namespace catenary
