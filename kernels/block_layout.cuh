#pragma once
// Where the unknowns of a matrix in node-block order (assembly/block_chain_ordering.hpp) sit in
// the blocks of the block solvers (block_tridiagonal_solver.cu, krylov_solver.cu), worked out once
// on the host; and the scatters that fill the blocks. Block k keeps its own rows, each B wide
// (B: the largest block, enough for any neighbour's columns): a slot of size[k] x B doubles at
// offset[k], row-major with leading dimension B.
#include <algorithm>
#include <vector>

#include "catenary/core/host_device.hpp"

namespace catenary::cuda {

struct BlockLayout {
  int blocks = 0, B = 0;                 // block count, largest block
  std::vector<int> block_of, local;      // per unknown: its block and its place in it
  std::vector<int> vector_index;         // per unknown: block_of * B + local (padded vectors)
  std::vector<int> size;                 // per block: its own unknowns
  std::vector<long> offset;              // per block: its slot's start; offset[blocks]: all slots

  explicit BlockLayout(const std::vector<int>& block_ptr) {
    blocks = static_cast<int>(block_ptr.size()) - 1;
    for (int k = 0; k < blocks; ++k) B = std::max(B, block_ptr[k + 1] - block_ptr[k]);
    block_of.resize(block_ptr.back());
    local.resize(block_ptr.back());
    vector_index.resize(block_ptr.back());
    size.resize(blocks);
    offset.assign(blocks + 1, 0);
    for (int k = 0; k < blocks; ++k) {
      size[k] = block_ptr[k + 1] - block_ptr[k];
      offset[k + 1] = offset[k] + static_cast<long>(size[k]) * B;
      for (int p = block_ptr[k]; p < block_ptr[k + 1]; ++p)
        block_of[p] = k, local[p] = p - block_ptr[k], vector_index[p] = k * B + local[p];
    }
  }
  // Index of entry (row, col) of block `block` in an array of all blocks' slots.
  size_t entry(int block, int row, int col) const {
    return static_cast<size_t>(offset[block]) + static_cast<size_t>(local[row]) * B + local[col];
  }
  size_t slots() const { return static_cast<size_t>(offset.back()); }
};

// The block solvers' arrays in device code: block k's D (diagonal), L (coupling to block k - 1)
// and U (to k + 1) are its size[k] rows, B wide, at offset[k] of the BlockLayout. L_k is
// size[k] x size[left neighbour] and U_k size[k] x size[right neighbour] (in cyclic reduction at
// every level: a block's size never changes, only who its neighbours are), so no work is spent on
// padding. Cyclic reduction's saved L, U of save slot s sit at saved_offset[s].
struct Blocks {
  double *D, *L, *U, *saved_L, *saved_U;
  const long *offset, *saved_offset;
  int* piv;
  const int* size;
  int B;
  CATENARY_HD double* at(double* base, int block) const { return base + offset[block]; }
  CATENARY_HD double* saved(double* base, int slot) const { return base + saved_offset[slot]; }
};

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

}  // namespace catenary::cuda
