#pragma once
// The models of a case with one design variable changed (model/case.hpp, SensitivitySettings),
// for the central differences of design sensitivities.
#include "catenary/model/case.hpp"

namespace catenary {

// The model loaded from c's document with variable k set to `value`, by the case loader (as a
// sweep's copy is made and loaded). An InputError where that value makes no valid model.
Model model_with_variable(const Case& c, size_t k, double value);

}  // namespace catenary
