#pragma once
// Fill-reducing order of the Newton matrix's unknowns for factorizations that do not pivot or
// reorder by themselves (cuSOLVER's sparse QR): AMD (SuiteSparse) on the graph whose vertices
// are the nodes and the constraint rows, each node's 2D coordinates kept together. Chains come
// out banded; multipliers land next to the nodes they constrain instead of at the end, where
// they would fill whole rows of the factor.
#include <vector>

#include "catenary/model/model.hpp"
#include "catenary/solve/block_chain.hpp"

namespace catenary {

// original_of[position] = unknown (coordinates 0..dof_count-1, then multipliers).
std::vector<int> newton_unknown_order(const Model& m);

}  // namespace catenary
