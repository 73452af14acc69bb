#pragma once
// One model made of independent copies (a sweep's batch): nodes, elements, bodies, loads,
// constraint rows and rigid-body mechanisms of each copy appended with offsets, so every stage of
// the solver runs over all copies at once.
#include <vector>

#include "catenary/model/model.hpp"

namespace catenary {

// Where copy k sits in the batch. The batch keeps the model layout (all nodes' coordinates, then
// all rigid bodies'; all linear rows, then the mechanism's joints', drivers', attachments' and
// normalization rows), so a copy with rigid bodies occupies several runs of coordinates and rows:
// dofs and rows list the batch index of each of the copy's own coordinates and rows, in the
// copy's own order.
struct CopyRange {
  int first_node = 0, first_element = 0, element_count = 0;
  std::vector<int> dofs, rows;
  std::vector<int> rigid_contacts;  // the batch's number of each of the copy's rigid contacts
};

// Throws ModelError when the copies cannot share one model (different dimension or gravity).
// The copies' names (bodies, constraints, the mechanism's parts) take the prefix "copy N: ", N
// the copy's number in `numbers` (its number in the sweep; empty: 0, 1, ...), so that a message
// about the batch names the copy.
Model merge_models(const std::vector<const Model*>& copies, std::vector<CopyRange>& ranges,
                   const std::vector<size_t>& numbers = {});

}  // namespace catenary
