#pragma once
// A time function of type "table" (docs/case-format.md, Time functions): samples given inline
// ("times", "values") or as a column of a CSV file ("file", "column"; the first column is the
// time), read into a TimeTable. Internal to src/model.
#include <memory>

#include "case_reading.hpp"
#include "catenary/core/time_function.hpp"

namespace catenary::case_reading {

// The table of n (an object of type "table"); a CSV file's path is relative to the case file.
std::shared_ptr<const TimeTable> read_time_table(const Node& n);

}  // namespace catenary::case_reading
