#pragma once
// Detects redundant or contradictory constraints before a simulation starts.
//
// Every constraint row is linear in the coordinates (see ConstraintRow), so the constraint
// Jacobian is a constant matrix; the solver needs it to have full row rank. check_constraints
// finds the first constraint group (in definition order) one of whose rows is a linear
// combination of the rows before it and throws InputError(file, group.json_path, rule), where
// the rule names the earlier constraints involved and says whether the rows merely repeat them
// (redundant) or demand different values (contradictory).
//
// Cost: rows are split into independent sets that share coordinates (union-find over the
// coordinates they touch) and each set is factored over its own coordinates only, so a
// 10,000-element cable with a few constraints costs next to nothing.
#include <string>

#include "catenary/model/model.hpp"

namespace catenary {

void check_constraints(const Model& m, const std::string& file);

}  // namespace catenary
