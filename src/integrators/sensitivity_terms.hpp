#pragma once
// What the static and the dynamic design sensitivities share (static_sensitivity.cpp,
// dynamic_sensitivity.cpp): the models with a variable changed and the central differences' step
// in it, and the objectives' values and gradients at a state (docs/case-format.md, "sensitivity").
#include <vector>

#include <Eigen/Core>

#include "catenary/integrators/system.hpp"
#include "catenary/model/case.hpp"

namespace catenary {

// The step of the central differences in the coordinates (the tension's and the mechanism part
// of the strain energy's gradient, the static adjoint's symmetry test), relative to a coordinate's
// scale. A node tension's gradient is large (EA / element length) and meets displacements that
// are mostly rotation, so the derivative keeps few of its digits: in the cantilever of
// cases/cantilever_static.json the root tension's derivative was off by 5e-5 (relative) at
// steps of 1e-5 (truncation) and 1e-4 at 1e-8 (rounding), and by 2e-6 at 1e-6.
constexpr double kCoordinateStep = 1e-6;

// A coordinate's scale: the model's length for positions, 1 for slopes and Euler parameters.
double coordinate_scale(const Model& m, const Eigen::VectorXd& q, int i);

// The central differences' step in variable k: relative_step max(|b|, 1e-300).
double variable_step(const SensitivitySettings& s, size_t k);

// c's model loaded with variable k set to `value` (model_with_variable); SimulationError where
// that changes the count of coordinates or constraint rows (n and m), InputError where the value
// makes no valid model.
Model changed_model(const Case& c, size_t k, double value);

// The objective's quantity before any target at (q, lambda): a coordinate, a reaction (-lambda, as
// results.csv writes it), the elastic energy (the frames' elastic_energy) or a node's tension at rest.
double objective_quantity(System& sys, const SensitivityObjective& o, const Eigen::VectorXd& q,
                          const Eigen::VectorXd& lambda);

// d(quantity)/d(q, lambda), a vector of dofs + constraints: analytic for coordinates and reactions;
// for the elastic energy the elements' internal force at rest (its gradient) with the mechanism's
// coordinates (springs, attached nodes) by central differences of the energy; for a node's tension
// central differences along the coordinates of the elements at the node.
Eigen::VectorXd objective_gradient(System& sys, const SensitivityObjective& o, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& lambda);

// psi and dpsi/d(quantity): the quantity, or with a target (quantity - target)^2.
double objective_value(const SensitivityObjective& o, double quantity);
double objective_slope(const SensitivityObjective& o, double quantity);

}  // namespace catenary
