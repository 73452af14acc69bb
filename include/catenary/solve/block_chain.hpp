#pragma once
// A block order of a Newton matrix's unknowns, as the block solvers take it: its blocks, the
// chains they form and an optional border. assembly/block_chain_ordering.hpp makes one from a
// model; the solvers here read it without knowing the model.
#include <string>
#include <vector>

namespace catenary {

// The largest block (a node's coordinates and its constraint rows) the solver takes.
constexpr int kMaxChainBlock = 16;
// The largest border: the Schur complement costs one solve with T per border unknown at every
// factorization (a crane's boom with its hinge and a cable attached: 16).
constexpr int kMaxBorder = 64;

struct BlockChainOrdering {
  std::vector<int> original_of;  // unknown at each position (coordinates, then dof_count + row)
  std::vector<int> block_ptr;    // block k holds positions block_ptr[k] .. block_ptr[k + 1] - 1
  // Chains that do not couple (the cables of a model, a sweep's copies): chain c is blocks
  // chain_ptr[c] .. chain_ptr[c + 1] - 1. Filled by the chain orderings only.
  std::vector<int> chain_ptr;
  int rigid_blocks = 0;  // rigid bodies among the blocks
  // Positions block_ptr.back() .. original_of.size() - 1: the border (bordered_chain_ordering).
  int border_size() const { return static_cast<int>(original_of.size()) - block_ptr.back(); }
  // Whether the block solvers need the matrix's mass term: without it a rigid body's block alone
  // (free to turn about its hinge) is singular, and so is a chain held only by the border (a cable
  // hung from a body), so the backends factorize such matrices by their general solver
  // (border_eliminates, solve/border_split.hpp).
  bool needs_mass_term() const { return rigid_blocks > 0 || border_size() > 0; }
};

// The inverse of an order: position_of[unknown] = the position p with original_of[p] = unknown.
inline std::vector<int> positions_of(const std::vector<int>& original_of) {
  std::vector<int> position_of(original_of.size());
  for (size_t p = 0; p < original_of.size(); ++p) position_of[original_of[p]] = static_cast<int>(p);
  return position_of;
}

// What a block solver's name adds for rigid bodies among the blocks and a border: "" or
// " with 2 rigid bodies in the chains", " with a border of 8 unknowns", or both joined by "and".
std::string chain_order_details(int rigid_blocks, int border);

}  // namespace catenary
