#pragma once
// One model made of independent copies (a sweep's batch): nodes, elements, bodies, loads and
// constraint rows of each copy appended with offsets, so every stage of the solver runs over all
// copies at once and copy k occupies a contiguous range of coordinates, rows and elements.
#include <vector>

#include "catenary/model/model.hpp"

namespace catenary {

struct CopyRange {
  int first_node = 0, first_dof = 0, dof_count = 0;
  int first_row = 0, row_count = 0;
  int first_element = 0, element_count = 0;
};

// Throws ModelError when the copies cannot share one model (different dimension or gravity).
Model merge_models(const std::vector<const Model*>& copies, std::vector<CopyRange>& ranges);

}  // namespace catenary
