#pragma once
// Where the unknowns of a matrix in node-block order (assembly/block_chain_ordering.hpp) sit in
// the padded B x B blocks of the block solvers (block_tridiagonal_solver.cu, krylov_solver.cu),
// worked out once on the host; and the scatters that fill the blocks.
#include <algorithm>
#include <vector>

#include "catenary/core/host_device.hpp"

namespace catenary::cuda {

struct BlockLayout {
  int blocks = 0, B = 0;                 // block count, largest block
  std::vector<int> block_of, local;      // per unknown: its block and its place in it
  std::vector<int> vector_index;         // per unknown: block_of * B + local (padded vectors)
  std::vector<int> size;                 // per block: its own unknowns (the rest of its B x B slot is unused)

  explicit BlockLayout(const std::vector<int>& block_ptr) {
    blocks = static_cast<int>(block_ptr.size()) - 1;
    for (int k = 0; k < blocks; ++k) B = std::max(B, block_ptr[k + 1] - block_ptr[k]);
    block_of.resize(block_ptr.back());
    local.resize(block_ptr.back());
    vector_index.resize(block_ptr.back());
    size.resize(blocks);
    for (int k = 0; k < blocks; ++k) {
      size[k] = block_ptr[k + 1] - block_ptr[k];
      for (int p = block_ptr[k]; p < block_ptr[k + 1]; ++p)
        block_of[p] = k, local[p] = p - block_ptr[k], vector_index[p] = k * B + local[p];
    }
  }
  // Index of entry (row, col) in block `block`'s B x B array, counted from the array's start.
  size_t entry(int block, int row, int col) const {
    return static_cast<size_t>(block) * B * B + static_cast<size_t>(local[row]) * B + local[col];
  }
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
