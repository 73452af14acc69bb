#pragma once
// The order in which the Newton matrix of a chain model is block-tridiagonal: node by node, each
// node's 2D coordinates followed by the constraint rows that touch only that node, so that
// block k couples only with blocks k - 1 and k + 1 (the element between consecutive nodes).
// Cables and beams built by the builders number their nodes along the chain, several cables one
// after the other (a sweep's copies too: their blocks simply do not couple), which makes this the
// natural order for a block cyclic reduction (kernels/block_tridiagonal_solver.cu).
#include <optional>
#include <string>
#include <vector>

#include "catenary/model/model.hpp"

namespace catenary {

// The largest block (a node's coordinates and its constraint rows) the solver takes.
constexpr int kMaxChainBlock = 16;

struct BlockChainOrdering {
  std::vector<int> original_of;  // unknown at each position (coordinates, then dof_count + row)
  std::vector<int> block_ptr;    // block k holds positions block_ptr[k] .. block_ptr[k + 1] - 1
  // Chains that do not couple (the cables of a model, a sweep's copies): chain c is blocks
  // chain_ptr[c] .. chain_ptr[c + 1] - 1. Filled by block_chain_ordering only.
  std::vector<int> chain_ptr;
};

// The ordering, or none with the reason in why: an element between nodes that are not
// consecutive, a constraint row over several nodes, a block over kMaxChainBlock unknowns, or
// rigid bodies.
std::optional<BlockChainOrdering> block_chain_ordering(const Model& m, std::string* why = nullptr);

// The same node blocks for any model without rigid bodies, a row over several nodes joining
// the block of its lowest node: the blocks of a block-Jacobi preconditioner (the matrix is then
// block-sparse rather than block-tridiagonal).
std::optional<BlockChainOrdering> node_block_ordering(const Model& m, std::string* why = nullptr);

}  // namespace catenary
