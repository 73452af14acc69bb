#pragma once
// Fill-reducing order of the Newton matrix's unknowns for factorizations that do not pivot or
// reorder by themselves (cuSOLVER's sparse QR): AMD (SuiteSparse) on the graph whose vertices
// are the nodes and the constraint rows, each node's 2D coordinates kept together. Chains come
// out banded; multipliers land next to the nodes they constrain instead of at the end, where
// they would fill whole rows of the factor.
#include <vector>

#include "catenary/model/model.hpp"

namespace catenary {

// original_of[position] = unknown (coordinates 0..dof_count-1, then multipliers).
std::vector<int> newton_unknown_order(const Model& m);

// The inverse of an order: position_of[unknown] = the position p with original_of[p] = unknown.
inline std::vector<int> positions_of(const std::vector<int>& original_of) {
  std::vector<int> position_of(original_of.size());
  for (size_t p = 0; p < original_of.size(); ++p) position_of[original_of[p]] = static_cast<int>(p);
  return position_of;
}

}  // namespace catenary
