#pragma once
// The columns of a run's results.csv (docs/case-format.md, "Output files"): the names its header
// holds, in order, as a model and its output settings make them. The output writer writes them;
// the case reader checks the columns that output.statistics names against them.
#include <string>
#include <vector>

#include "catenary/model/case.hpp"

namespace catenary {

std::vector<std::string> results_columns(const Model& m, const OutputSettings& o);

}  // namespace catenary
