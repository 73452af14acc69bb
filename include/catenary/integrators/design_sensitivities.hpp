#pragma once
// What a case's design sensitivities give (model/case.hpp, SensitivitySettings), by a static
// analysis (integrators/static_sensitivity.hpp) or a dynamic one (integrators/dynamic_sensitivity.hpp):
// each objective's value and its derivative with respect to each variable.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

struct ObjectiveSensitivity {
  std::string name;
  double value = 0.0;
  std::vector<double> derivatives;  // one per variable, in SensitivitySettings' order
};

struct DesignSensitivities {
  std::string method;                  // "direct" or "adjoint"
  std::vector<std::string> variables;  // the JSON pointers
  std::vector<double> values;          // the variables' values
  std::vector<ObjectiveSensitivity> objectives;
  double wall_seconds = 0.0;
};

// A backend for a model (the models with a variable changed are evaluated on their own).
using BackendMaker = std::function<std::unique_ptr<Backend>(const Model&)>;

}  // namespace catenary
