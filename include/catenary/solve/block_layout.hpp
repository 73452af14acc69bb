#pragma once
// Where the unknowns of a matrix in node-block order (assembly/block_chain_ordering.hpp) sit in
// the blocks of the block solvers (kernels/block_tridiagonal_solver.cu, kernels/krylov_solver.cu,
// the CPU's chain_solver.hpp), worked out once on the host; and the scatters that fill the
// blocks. Block k keeps its own rows, each B wide (B: the largest block, enough for any
// neighbour's columns): a slot of size[k] x B doubles at offset[k], row-major with leading
// dimension B. Held rows (solve/held_rows.hpp) take no place: a held row's equation takes its
// coordinate's row, and the coordinate's own equation is used after the blocks' solve.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "catenary/core/host_device.hpp"
#include "catenary/solve/held_rows.hpp"

namespace catenary {

struct BlockLayout {
  int blocks = 0, B = 0;             // block count, largest block
  std::vector<int> block_of, local;  // per position: its block and its place in it (a held row: its coordinate's)
  // Per position: its unknown's place in a padded vector, block_of * B + local (-1: a held row's,
  // solved after the blocks), and where its equation (matrix row, right-hand side) goes there (-1:
  // a held coordinate's, used after the blocks; a held row's: its coordinate's place).
  std::vector<int> vector_index, equation_index;
  std::vector<int> size;     // per block: its unknowns in the blocks
  std::vector<long> offset;  // per block: its slot's start; offset[blocks]: all slots

  BlockLayout() : offset(1, 0) {}  // no blocks
  explicit BlockLayout(const std::vector<int>& block_ptr, const HeldRows& held = {}) {
    blocks = static_cast<int>(block_ptr.size()) - 1;
    const int positions = block_ptr.back();
    std::vector<int> coordinate_of(positions, -1);  // per held row: its coordinate
    for (int h = 0; h < held.size(); ++h) coordinate_of[held.row[h]] = held.coordinate[h];
    block_of.resize(positions);
    local.resize(positions);
    size.assign(blocks, 0);
    for (int k = 0; k < blocks; ++k) {
      for (int p = block_ptr[k]; p < block_ptr[k + 1]; ++p) {
        block_of[p] = k;
        if (coordinate_of[p] < 0) local[p] = size[k]++;
      }
      B = std::max(B, size[k]);
    }
    offset.assign(blocks + 1, 0);
    for (int k = 0; k < blocks; ++k) offset[k + 1] = offset[k] + static_cast<long>(size[k]) * B;
    vector_index.resize(positions);
    equation_index.resize(positions);
    for (int p = 0; p < positions; ++p) {
      if (coordinate_of[p] >= 0) local[p] = local[coordinate_of[p]];
      vector_index[p] = equation_index[p] = block_of[p] * B + local[p];
    }
    for (int h = 0; h < held.size(); ++h) vector_index[held.row[h]] = equation_index[held.coordinate[h]] = -1;
  }
  // Index of entry (row, col) of block `block` in an array of all blocks' slots, by a view of the
  // layout's arrays (which a loop over many entries keeps in registers).
  struct EntryIndex {
    const long* offset;
    const int* local;
    int B;
    size_t operator()(int block, int row, int col) const {
      return static_cast<size_t>(offset[block]) + static_cast<size_t>(local[row]) * B + local[col];
    }
  };
  EntryIndex entry_index() const { return {offset.data(), local.data(), B}; }
  size_t entry(int block, int row, int col) const { return entry_index()(block, row, col); }
  size_t slots() const { return static_cast<size_t>(offset.back()); }
};

// The block solvers' arrays inside their loops (device or host): block k's D (diagonal), L (coupling to block k - 1)
// and U (to k + 1) are its size[k] rows, B wide, at offset[k] of the BlockLayout. L_k is
// size[k] x size[left neighbour] and U_k size[k] x size[right neighbour] (in cyclic reduction at
// every level: a block's size never changes, only who its neighbours are), so no work is spent on
// padding. Cyclic reduction's saved L, U of save slot s sit at saved_offset[s].
// T: the values' type. The factorizations work in double (Blocks); the device's cyclic reduction
// keeps a float copy of its factors for Newton updates' solves to read (BlockSolverOptions::float_factors,
// kernels/block_tridiagonal_solver.cu), with the same offsets, pivots and sizes.
template <class T>
struct BlocksOf {
  T *D, *L, *U, *saved_L, *saved_U;
  const long *offset, *saved_offset;
  int* piv;
  const int* size;
  int B;
  CATENARY_HD T* at(T* base, int block) const { return base + offset[block]; }
  CATENARY_HD const T* at(const T* base, int block) const { return base + offset[block]; }
  CATENARY_HD T* saved(T* base, int slot) const { return base + saved_offset[slot]; }
};
using Blocks = BlocksOf<double>;

// Throws std::invalid_argument unless chain_ptr splits 0 .. blocks - 1 into chains (chain c:
// blocks chain_ptr[c] .. chain_ptr[c + 1] - 1).
inline void check_chains(const std::vector<int>& chain_ptr, int blocks) {
  if (chain_ptr.size() < 2 || chain_ptr.front() != 0 || chain_ptr.back() != blocks ||
      !std::is_sorted(chain_ptr.begin(), chain_ptr.end()))
    throw std::invalid_argument("block-tridiagonal solver: chain starts do not split the " + std::to_string(blocks) +
                                " blocks");
}

// Where each entry of a block-tridiagonal matrix lands in the block arrays D, L, U (three arrays of
// layout.slots() doubles, one after another), and the entries of the regions the solvers read
// (block k's rows times its own, its left and its right neighbour's columns) that no matrix entry
// fills: those are zeroed before each scatter, since the last factorization left fill-in there.
// Nothing outside the regions is read, so the block arrays need no full clearing.
struct BlockScatter {
  std::vector<int> destination;  // per matrix entry (-1: a held coordinate's row, in no block)
  std::vector<int> uncovered;
};

// The row of each entry of a CSR pattern (row_ptr of rows + 1 entries), as block_scatter and
// split_border (solve/border_split.hpp) take them.
std::vector<int> entry_rows(const std::vector<int>& row_ptr);

// entry_row[s], entry_col[s]: the positions (node-block order) of matrix entry s. Throws
// std::invalid_argument for an entry outside the three block bands, or one coupling two chains.
// Threaded (src/solve/block_scatter.cpp): a batch of 10,000 cables has 10^8 entries.
BlockScatter block_scatter(const BlockLayout& layout, const std::vector<int>& chain_ptr,
                           const std::vector<int>& entry_row, const std::vector<int>& entry_col);

// to[index[p]] = from[p]
struct ScatterAt {
  const int* index;
  const double* from;
  double* to;
  CATENARY_HD void operator()(int p) const { to[index[p]] = from[p]; }
};

// blocks[destination[s]] = values[s] for the CSR slots that land in a block (destination >= 0).
struct ScatterValues {
  const int* destination;
  const double* values;
  double* blocks;
  CATENARY_HD void operator()(int s) const {
    if (destination[s] >= 0) blocks[destination[s]] = values[s];
  }
};

}  // namespace catenary
