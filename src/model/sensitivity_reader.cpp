// The "sensitivity" section of a case (docs/case-format.md) and the models with a variable changed.
#include "sensitivity_reader.hpp"

#include <algorithm>
#include <cmath>

#include "catenary/model/case_loader.hpp"
#include "catenary/model/sensitivity_models.hpp"
#include "catenary/model/sweep.hpp"

namespace catenary {

using namespace case_reading;

namespace {

int read_component(const Node& n) {
  const std::string c = get_choice(n, {"x", "y", "z"}, "component");
  return c == "x" ? 0 : c == "y" ? 1 : 2;
}

SensitivityObjective read_objective(const Node& n, const Model& m) {
  SensitivityObjective o;
  using Type = SensitivityObjective::Type;
  const std::string type = get_choice(n.required("type"), {"node_position", "reaction", "strain_energy", "tension", "rigid_body"},
                                      "objective type");
  if (type == "node_position") {
    expect_object(n, {"name", "type", "node", "component", "target"});
    o.type = Type::node_position;
    const int component = read_component(n.required("component"));
    if (component >= m.dimension) n.child("component").fail("a 2D model has components x and y");
    o.index = read_node_ref(n.required("node"), m).node * m.coordinates_per_node() + component;
  } else if (type == "tension") {
    expect_object(n, {"name", "type", "node", "target"});
    o.type = Type::tension;
    o.index = read_node_ref(n.required("node"), m).node;
  } else if (type == "strain_energy") {
    expect_object(n, {"name", "type", "target"});
    o.type = Type::strain_energy;
    // Its gradient is taken as the elements' internal force, which holds water loads too.
    if (!m.elements.fluid_loads.empty())
      n.child("type").fail("the strain_energy objective is not available for a model with water loads (their forces "
                           "are in the internal force that its gradient is taken from)");
  } else if (type == "rigid_body") {
    expect_object(n, {"name", "type", "body", "component", "target"});
    o.type = Type::rigid_body;
    const Node body = n.required("body");
    const std::string name = get_string(body);
    const auto& bodies = m.mechanism.bodies;
    const auto at = std::find_if(bodies.begin(), bodies.end(), [&](const RigidBody& b) { return b.name == name; });
    if (at == bodies.end()) {
      std::vector<std::string> names;
      for (const RigidBody& b : bodies) names.push_back(b.name);
      body.fail("no rigid body named '" + shown(name) + "' (" + suggestion(name, names) +
                (names.empty() ? "the model has none)" : "the model has: " + join_some(names) + ")"));
    }
    o.index = m.rigid_offset() + 7 * static_cast<int>(at - bodies.begin()) + read_component(n.required("component"));
  } else {  // reaction: a row of results.csv's reaction.NAME.ROW columns
    expect_object(n, {"name", "type", "constraint", "row", "target"});
    o.type = Type::reaction;
    const Node constraint = n.required("constraint");
    const std::string name = get_string(constraint);
    std::vector<std::string> names;
    const ConstraintGroup* group = nullptr;
    for (const ConstraintGroup& g : m.constraint_groups) {
      names.push_back(g.name);
      if (g.name == name) group = &g;
    }
    if (!group)
      constraint.fail("no constraint named '" + shown(name) + "' (" + suggestion(name, names) +
                      (names.empty() ? "the model has none)" : "the model has: " + join_some(names) + ")"));
    // The rows as results.csv's columns name them (results_columns.cpp): by label, else by number.
    std::vector<std::string> rows;
    for (int i = 0; i < group->row_count; ++i)
      rows.push_back(i < static_cast<int>(group->row_labels.size()) ? group->row_labels[i] : std::to_string(i));
    const Node row = n.required("row");
    const std::string label = get_string(row);
    const auto at = std::find(rows.begin(), rows.end(), label);
    if (at == rows.end())
      row.fail("constraint '" + shown(name) + "' has no row '" + shown(label) + "' (its rows: " + join(rows) + ")");
    o.index = group->first_row + static_cast<int>(at - rows.begin());
  }
  o.name = get_name(n.required("name"));
  if (n.has("target")) {
    o.has_target = true;
    o.target = get_number(n.child("target"));
  }
  return o;
}

// Water loads (a current's drag follows the line's direction) and contact friction give forces
// that are not the gradient of a potential, so the static Newton matrix is not symmetric there
// and the adjoint's solve with A in place of A^T would be wrong.
void require_symmetric_statics(const Node& method, const Model& m) {
  if (!m.elements.fluid_loads.empty())
    method.fail("the adjoint method solves with the static Newton matrix in place of its transpose, and water loads "
                "make it unsymmetric: use \"direct\"");
  bool friction = false;
  for (const ContactSurface& s : m.elements.contact_surfaces) friction = friction || s.friction_axial > 0.0 || s.friction_lateral > 0.0;
  for (const PlaneContact& p : m.mechanism.contacts.planes) friction = friction || p.law.friction.any();
  for (const ClearanceJoint& j : m.mechanism.contacts.clearance_joints) friction = friction || j.law.friction.any();
  for (const CableShapeContact& k : m.mechanism.cable_contacts)
    friction = friction || k.friction_axial > 0.0 || k.friction_lateral > 0.0;
  if (friction)
    method.fail("the adjoint method solves with the static Newton matrix in place of its transpose, and contact "
                "friction makes it unsymmetric: use \"direct\"");
}

// The direct method differentiates the Newmark steps of HHT and generalized-alpha as their full
// Newton iteration on the index-3 equations converges them, from the consistent initial state
// (src/integrators/dynamic_sensitivity.cpp).
void require_differentiable_steps(const Node& analysis, const DynamicSettings& d) {
  using I = DynamicSettings::Integrator;
  if (d.integrator != I::HHT && d.integrator != I::GeneralizedAlpha)
    analysis.child("integrator")
        .fail("sensitivities of a dynamic analysis are computed for the integrators \"hht\" and "
              "\"generalized_alpha\" (the derivative of their steps); '" +
              shown(get_string(analysis.child("integrator"))) + "' has none");
  if (d.formulation == DynamicSettings::Formulation::StabilizedIndex2)
    analysis.child("formulation")
        .fail("sensitivities of a dynamic analysis differentiate the index-3 step (\"index3\"); the stabilized "
              "index-2 step's projection of the positions has no derivative here");
  if (d.newton == DynamicSettings::Newton::Modified)
    analysis.child("newton").fail("sensitivities of a dynamic analysis solve with each step's own Newton matrix "
                                  "(\"full\"); modified Newton keeps an older one");
  if (d.static_start)
    analysis.child("initial_state")
        .fail("sensitivities of a dynamic analysis start from the consistent initial state; a static start has "
              "none here (differentiate the statics as a static case)");
}

}  // namespace

void read_sensitivity(const Node& root, Case& c) {
  if (!root.has("sensitivity")) return;
  const Node s = root.child("sensitivity");
  const bool dynamic = c.analysis.type == AnalysisSettings::Type::Dynamic;
  if (c.analysis.type != AnalysisSettings::Type::Static && !dynamic)
    s.fail("sensitivities are computed for static and dynamic analyses (\"analysis\": {\"type\": \"static\"} or "
           "{\"type\": \"dynamic\"}); eigen, assembly and kinematic analyses have none");
  expect_object(s, {"variables", "objectives", "method", "relative_step"});
  if (dynamic) require_differentiable_steps(root.child("analysis"), c.analysis.dynamics);
  SensitivitySettings& out = c.sensitivity;
  out.document = root.v;
  out.document.erase("sensitivity");
  const Node variables = s.required("variables");
  if (!variables.v.is_array() || variables.v.empty()) variables.fail("must be a non-empty array of JSON pointers" + variables.got());
  for (size_t k = 0; k < variables.v.size(); ++k) {
    const Node v = variables.at(k);
    const auto pointer = model_value_pointer(root.v, v.v, root.file, v.path, "a design variable is a value of the model");
    const json& value = root.v.at(pointer);
    if (!value.is_number())
      v.fail("names a " + std::string(value.type_name()) + ", and a design variable is one number (a vector's "
             "component: '.../2')");
    const std::string path = v.v.get<std::string>();
    if (std::find(out.variables.begin(), out.variables.end(), path) != out.variables.end())
      v.fail("'" + shown(path) + "' is listed twice");
    out.variables.push_back(path);
    out.values.push_back(value.get<double>());
  }
  const Node objectives = s.required("objectives");
  if (!objectives.v.is_array() || objectives.v.empty())
    objectives.fail("must be a non-empty array of objectives {\"name\", \"type\", ...}" + objectives.got());
  for (size_t k = 0; k < objectives.v.size(); ++k) {
    const Node o = objectives.at(k);
    if (!o.v.is_object()) o.fail("must be an object {\"name\", \"type\", ...}" + o.got());
    out.objectives.push_back(read_objective(o, c.model));
    for (size_t j = 0; j < k; ++j)
      if (out.objectives[j].name == out.objectives[k].name)
        o.child("name").fail("objective '" + shown(out.objectives[k].name) + "' is named twice");
  }
  if (s.has("method")) {
    out.adjoint = get_choice(s.child("method"), {"direct", "adjoint"}, "method") == "adjoint";
    if (out.adjoint && dynamic)
      s.child("method").fail("the adjoint method is computed for static analyses; a dynamic analysis's sensitivities "
                             "are by \"direct\"");
    if (out.adjoint) require_symmetric_statics(s.child("method"), c.model);
  }
  if (s.has("relative_step")) {
    const Node h = s.child("relative_step");
    out.relative_step = get_positive(h);
    if (out.relative_step > 0.1) h.fail("must be at most 0.1 (a central difference's step relative to the value)");
  }
}

Model model_with_variable(const Case& c, size_t k, double value) {
  // The sweep's copy of the document with the value replaced (one copy of a sweep of one value).
  nlohmann::json doc = c.sensitivity.document;
  nlohmann::json parameter = nlohmann::json::object();
  parameter["path"] = c.sensitivity.variables[k];
  parameter["values"] = nlohmann::json::array({value});
  doc["sweep"]["parameters"] = nlohmann::json::array({parameter});
  return load_case_document(SweepCopies(doc, c.source_file)[0].document, c.source_file).model;
}

}  // namespace catenary
