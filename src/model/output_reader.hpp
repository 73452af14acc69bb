#pragma once
// The output part of a case file (docs/case-format.md, "Output"): where and how often results are
// written, the nodes and tensions in results.csv, VTU and checkpoint settings. Internal to
// src/model.
#include "case_reading.hpp"
#include "catenary/model/case.hpp"

namespace catenary::case_reading {

// /output into o; node references resolve in m.
void read_output(const Node& n, const Model& m, OutputSettings& o);

}  // namespace catenary::case_reading
