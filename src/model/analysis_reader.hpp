#pragma once
// Reads the analysis settings of a case file. Internal to src/model.
#include "case_reading.hpp"
#include "catenary/model/case.hpp"

namespace catenary::case_reading {

// /analysis into a.
void read_analysis(const Node& n, AnalysisSettings& a);

// /output/interval (its value given) against the analysis: its frames count against max_steps,
// so that the output times advance.
void check_output_interval(const Node& interval, const AnalysisSettings& a, double value);

}  // namespace catenary::case_reading
