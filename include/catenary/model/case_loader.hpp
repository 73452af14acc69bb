#pragma once
// Reads a case file (JSON, format in docs/case-format.md) into a Case.
//
// Every problem in the file throws InputError(file, json_path, rule): json_path is a JSON
// pointer to the offending value (e.g. "/model/bodies/2/elements"; empty for the document as a
// whole, e.g. a file that is not JSON) and rule says in plain words what is wrong. Unknown keys
// are rejected everywhere, required values have no defaults, and the model is built only
// through the builders in builders.hpp. The constraint set is checked for redundant or
// contradictory constraints (check_constraints) before the case is returned.
#include <string>

#include "catenary/model/case.hpp"

namespace catenary {

Case load_case(const std::string& path);

}  // namespace catenary
