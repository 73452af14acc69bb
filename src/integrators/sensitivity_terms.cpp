// What the static and the dynamic design sensitivities share: see sensitivity_terms.hpp.
#include "sensitivity_terms.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/model/line_tension.hpp"
#include "catenary/model/sensitivity_models.hpp"

namespace catenary {

using Type = SensitivityObjective::Type;

double coordinate_scale(const Model& m, const Eigen::VectorXd& q, int i) {
  return std::max(std::fabs(q[i]), m.is_dimensionless(i) ? 1.0 : m.characteristic_length);
}

double variable_step(const SensitivitySettings& s, size_t k) {
  return s.relative_step * std::max(std::fabs(s.values[k]), 1e-300);
}

Model changed_model(const Case& c, size_t k, double value) {
  Model model = model_with_variable(c, k, value);
  const int n = c.model.dof_count(), m = c.model.constraint_count();
  if (model.dof_count() != n || model.constraint_count() != m)
    throw SimulationError("sensitivities: changing '" + c.sensitivity.variables[k] +
                          "' changes the model's coordinates or constraint rows (" + std::to_string(n) + " and " +
                          std::to_string(m) + " become " + std::to_string(model.dof_count()) + " and " +
                          std::to_string(model.constraint_count()) +
                          "): a design variable must keep the model's size (not a count of elements or nodes)");
  return model;
}

namespace {

double elastic_energy(System& sys, const Eigen::VectorXd& q) {
  Backend& b = sys.backend();
  Vector qv = b.make_vector(sys.dofs()), v = b.make_vector(sys.dofs());
  b.upload(q, qv);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(sys.dofs());
  System::Energies E;
  sys.energies(qv, v, q, zero, E);
  return E.elastic;
}

// d(quantity)/dq by central differences along the coordinates `dofs`, into gradient.
void difference_gradient(System& sys, const SensitivityObjective& o, const Eigen::VectorXd& q,
                         const Eigen::VectorXd& lambda, const std::vector<int>& dofs, Eigen::VectorXd& gradient) {
  Eigen::VectorXd x = q;
  for (int i : dofs) {
    const double e = kCoordinateStep * coordinate_scale(sys.model(), q, i);
    x[i] = q[i] + e;
    const double up = objective_quantity(sys, o, x, lambda);
    x[i] = q[i] - e;
    const double down = objective_quantity(sys, o, x, lambda);
    x[i] = q[i];
    gradient[i] = (up - down) / (2.0 * e);
  }
}

}  // namespace

double objective_quantity(System& sys, const SensitivityObjective& o, const Eigen::VectorXd& q,
                          const Eigen::VectorXd& lambda) {
  switch (o.type) {
    case Type::node_position:
    case Type::rigid_body: return q[o.index];
    case Type::reaction: return -lambda[o.index];
    case Type::strain_energy: return elastic_energy(sys, q);
    case Type::tension:
      return node_tension(sys.model(), element_on_node(sys.model(), o.index), q, Eigen::VectorXd::Zero(q.size()));
  }
  return 0.0;
}

Eigen::VectorXd objective_gradient(System& sys, const SensitivityObjective& o, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& lambda) {
  const Model& m = sys.model();
  const int n = sys.dofs();
  Eigen::VectorXd gradient = Eigen::VectorXd::Zero(n + sys.constraints());
  switch (o.type) {
    case Type::node_position:
    case Type::rigid_body: gradient[o.index] = 1.0; break;
    case Type::reaction: gradient[n + o.index] = -1.0; break;
    case Type::strain_energy: {
      Backend& b = sys.backend();
      Vector qv = b.make_vector(n), v = b.make_vector(n), f = b.make_vector(n);
      b.upload(q, qv);
      b.internal_force(qv, v, f);
      Eigen::VectorXd force;
      b.download(f, force);
      gradient.head(n) = force;
      difference_gradient(sys, o, q, lambda, sys.multibody().layout().dofs, gradient);
      break;
    }
    case Type::tension: {
      const NodeOnElement at = element_on_node(m, o.index);
      std::vector<int> dofs;
      for (int e : {at.ending, at.starting})
        if (e >= 0)
          for (int i = 0; i < 2 * m.coordinates_per_node(); ++i) dofs.push_back(element_global_dof(m, e, i));
      difference_gradient(sys, o, q, lambda, dofs, gradient);
      break;
    }
  }
  return gradient;
}

double objective_value(const SensitivityObjective& o, double value) {
  return o.has_target ? (value - o.target) * (value - o.target) : value;
}
double objective_slope(const SensitivityObjective& o, double value) {
  return o.has_target ? 2.0 * (value - o.target) : 1.0;
}

}  // namespace catenary
