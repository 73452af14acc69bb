#pragma once
// The Model: everything about a simulation that does not change while it runs, in flat arrays
// (MuJoCo's mjModel / Pinocchio's Model style) so the same data can be mirrored on a device.
//
// One model has one spatial dimension D: 3 for spatial ANCF cables, 2 for planar ANCF beams.
// Every node carries 2D coordinates [r, dr/ds]; global coordinate index = node * 2D + k. Rigid
// bodies (3D models only) follow the nodes, 7 coordinates each (r, Euler parameters), from
// rigid_offset(). Constraint rows: the linear rows of constraint_rows, then the mechanism's
// nonlinear rows (joints, drivers, attachments, normalizations) from linear_constraint_count().
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "catenary/core/host_device.hpp"
#include "catenary/core/time_function.hpp"
#include "catenary/elements/fluid_load.hpp"
#include "catenary/elements/gradient_deficient_math.hpp"
#include "catenary/elements/surface_contact.hpp"
#include "catenary/multibody/mechanism.hpp"

namespace catenary {

// A named chain of nodes and elements (a cable or beam), for output and for node references.
struct Body {
  std::string name;
  std::string element_type;  // "cable3d" or "beam2d"
  int first_node = 0, node_count = 0;
  int first_element = 0, element_count = 0;
  double diameter = 0.0;  // the section's outer diameter (m), for drawing; 0 where none is given
};

// All gradient-deficient elements, structure of arrays.
struct ElementBlock {
  std::vector<int> node_a, node_b;
  std::vector<ElementProperties> properties;
  std::vector<double> reference;        // 4*D per element: stress-free e_ref
  std::vector<double> scalar_mass;      // 16 per element: element_scalar_mass
  std::vector<double> shape_integrals;  // 4 per element: element_shape_integrals
  std::vector<ReferenceQuadrature> quadrature;  // the reference at the quadrature points
  // The contact surfaces elements name (ElementProperties::contact), and each one's name.
  std::vector<ContactSurface> contact_surfaces;
  std::vector<std::string> contact_names;
  std::vector<double> contact_heights;  // the height grids' values (ContactSurface::grid_offset)
  // The water's loads elements take (ElementProperties::fluid): a section in its water each, the
  // line body's name for each, and their current profiles' and wave components' values.
  std::vector<FluidLoad> fluid_loads;
  std::vector<std::string> fluid_names;
  std::vector<double> fluid_values;
  int size() const { return static_cast<int>(node_a.size()); }
  ContactSurfaceList contact_list() const {
    return {contact_surfaces.data(), static_cast<int>(contact_surfaces.size()), contact_heights.data()};
  }
  // The fluid loads at time t under gravity g.
  FluidLoadList fluid_list(double t, const Vec<3>& g) const {
    return {fluid_loads.data(), static_cast<int>(fluid_loads.size()), fluid_values.data(), t, {g[0], g[1], g[2]}};
  }
  // Whether any element has material damping (eta > 0), a contact whose law or friction reads
  // velocities or drag in water: only then do the elements' forces read the velocities.
  bool damped() const {
    for (const ElementProperties& p : properties)
      if (p.eta > 0.0) return true;
    for (const ContactSurface& c : contact_surfaces)
      if (contact_reads_velocity(c)) return true;
    for (const FluidLoad& f : fluid_loads)
      if (fluid_reads_velocity(f)) return true;
    return false;
  }
};

// One scalar constraint equation, linear in the coordinates:
//   phi(q, t) = sum_k coefficient_k q[dof_k] - (offset + motion(t)) = 0.
// Every constraint type of the core (fixed coordinates, spherical joint to ground, hinge, rigid
// and planar revolute joints between nodes, prescribed node motion) is a set of such rows, so
// the constraint Jacobian is constant.
struct ConstraintRow {
  std::vector<int> dofs;
  std::vector<double> coefficients;
  double offset = 0.0;
  bool has_motion = false;
  TimeFunction motion;
};

// A user-level constraint: a named group of consecutive rows.
struct ConstraintGroup {
  std::string name;       // user's name or "constraints[i]"
  std::string type;       // "fix", "spherical", "hinge", "rigid", "revolute", "prescribed"
  std::string json_path;  // where it was defined, for messages
  int first_row = 0, row_count = 0;
  std::vector<std::string> row_labels;  // e.g. "x", "y", "slope_z"
};

// Point force on one coordinate: F(t) = value * scale(t).
struct PointLoad {
  int dof = 0;
  double value = 0.0;
  TimeFunction scale = TimeFunction::constant(1.0);
};

// Force per unit reference length on a range of elements: f(t) = force * scale(t).
struct DistributedLoad {
  int first_element = 0, element_count = 0;
  double force[3] = {0.0, 0.0, 0.0};
  TimeFunction scale = TimeFunction::constant(1.0);
};

struct Model {
  int dimension = 3;  // D
  int node_count = 0;
  std::vector<double> reference_coordinates;  // stress-free nodal coordinates (output only)
  std::vector<double> initial_positions;      // q0
  std::vector<double> initial_velocities;     // v0
  std::vector<Body> bodies;
  std::unordered_map<std::string, int> body_index;  // body name -> index in bodies (find_body)
  ElementBlock elements;
  Vec<3> gravity = Vec<3>::zero();  // the one gravity of the model, rigid bodies' included
  std::vector<PointLoad> point_loads;
  std::vector<DistributedLoad> distributed_loads;
  std::vector<ConstraintRow> constraint_rows;
  std::vector<ConstraintGroup> constraint_groups;
  double characteristic_length = 1.0;  // model size, for tolerances on positions
  bool finalized = false;              // finalize_model has run since the last body was added
  // Per-node length scale for the norms where copies of different size share one model (a
  // sweep's batch); empty: characteristic_length everywhere.
  std::vector<double> node_length_scale;
  // Rigid bodies, joints, drivers and node attachments (empty for a cable-only model); its
  // gravity is the model's.
  Mechanism mechanism;

  int coordinates_per_node() const { return 2 * dimension; }
  int node_dof_count() const { return node_count * coordinates_per_node(); }
  int rigid_offset() const { return node_dof_count(); }
  int dof_count() const { return node_dof_count() + mechanism.body_coordinate_count(); }
  int linear_constraint_count() const { return static_cast<int>(constraint_rows.size()); }
  int constraint_count() const { return linear_constraint_count() + mechanism.row_count(); }
  // true for slopes and Euler parameters (dimensionless), false for positions (metres)
  bool is_dimensionless(int dof) const {
    return dof < node_dof_count() ? (dof % coordinates_per_node()) >= dimension : (dof - rigid_offset()) % 7 >= 3;
  }
};

// Global coordinate of local coordinate i of an element between nodes a and b (local order:
// node a's 2D coordinates, then node b's, matching e = [r_A, r'_A, r_B, r'_B]); n = 2D.
CATENARY_HD int local_to_global_dof(int node_a, int node_b, int n, int i) {
  return (i < n ? node_a : node_b) * n + (i % n);
}
inline int element_global_dof(const Model& m, int e, int i) {
  return local_to_global_dof(m.elements.node_a[e], m.elements.node_b[e], m.coordinates_per_node(), i);
}

// Shares equal element records and sets the characteristic length once the nodes, elements and
// bodies are in place: called once, after the last body (by the case loader, the reference
// models, the tests), so that building a model of many bodies stays linear. A backend refuses a
// model that is not finalized (require_finalized).
void finalize_model(Model& model);
// The constants of elements first.. (quadrature at the reference, scalar mass, shape integrals),
// which the builders compute for each body they add.
void compute_element_constants(Model& model, int first);
// Throws std::logic_error where a model with elements has not been finalized since its last body.
inline void require_finalized(const Model& m) {
  if (!m.finalized && m.elements.size() > 0)
    throw std::logic_error("the model is not finalized: call finalize_model after adding its last body");
}

}  // namespace catenary
