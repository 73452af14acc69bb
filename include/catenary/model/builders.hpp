#pragma once
// Functions that add bodies, constraints and loads to a Model. The JSON loader and the tests
// build models only through these, so every model passes through the same checks.
#include <string>
#include <vector>

#include "catenary/core/small_matrix.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

using Vec3 = Vec<3>;  // 2D models use the first two components

struct LineProperties {
  double EA = 0.0, EI = 0.0, rhoA = 0.0, eta = 0.0;
  StrainLaw strain_law = StrainLaw::reissner;
};

// Straight line of `elements` elements from start to end. If length > |end - start| the stress-free
// shape is a straight line of that length and the initial shape a circular arc of that length
// through start and end, sagging along sag_direction (a slack cable between two points).
// Returns the body index.
int add_straight_line(Model& m, const std::string& name, const Vec3& start, const Vec3& end,
                      int elements, const LineProperties& props, double length = 0.0,
                      const Vec3& sag_direction = {0.0, 0.0, -1.0});

// Circular arc whose stress-free shape is the arc itself (a curved reference): centre, radius,
// start and end angle (rad) in the plane spanned by the unit vectors u and v (2D: u = x, v = y).
int add_arc(Model& m, const std::string& name, const Vec3& centre, double radius,
            double angle_start, double angle_end, int elements, const LineProperties& props,
            const Vec3& u = {1.0, 0.0, 0.0}, const Vec3& v = {0.0, 1.0, 0.0});

// Line through given nodes with given slopes (stress-free = given shape). Element lengths are
// the arc lengths of the Hermite curve between consecutive nodes.
int add_node_line(Model& m, const std::string& name, const std::vector<Vec3>& positions,
                  const std::vector<Vec3>& slopes, const LineProperties& props);

// The mass of a line body, sum of rhoA times the reference length.
double line_mass(const Model& m, int body);
// The integral of rhoA f over a line body, for the field f whose nodal coordinates (in the model's
// node layout, all nodes) are `field`: Model::initial_positions gives the mass times the centre of
// mass, a vector of velocities the linear momentum.
Vec3 line_first_moment(const Model& m, int body, const std::vector<double>& field);
// Gives a line body the initial velocities of a rigid motion: its centre of mass moves at
// `velocity` and the body turns at `angular_velocity` (ground frame, rad/s; planar models only its
// z component) about that centre. Cubic Hermite shape functions hold every affine field exactly, so
// node i gets r_i' = velocity + w x (r_i - c) and its slope's rate w x dr_i/ds.
void set_rigid_velocity(Model& m, int body, const Vec3& velocity, const Vec3& angular_velocity);

// Constraints. `coordinates` lists coordinate indices within the node (0..2D-1).
void add_fix(Model& m, int node, const std::vector<int>& coordinates, const std::string& name,
             const std::string& json_path);
void add_spherical_to_ground(Model& m, int node, const Vec3& point, const std::string& name,
                             const std::string& json_path);
// Positions of two nodes coincide (hinge in 3D, planar revolute joint in 2D); with
// equal_slopes also their slopes (rigid connection).
void add_node_joint(Model& m, int node_a, int node_b, bool equal_slopes, const std::string& type,
                    const std::string& name, const std::string& json_path);
// Prescribed position: r_i(t) = r_i(0) + f_i(t) for each listed component i.
void add_prescribed_motion(Model& m, int node, const std::vector<int>& components,
                           const std::vector<TimeFunction>& displacement, const std::string& name,
                           const std::string& json_path);

void add_point_force(Model& m, int node, const Vec3& force, const TimeFunction& scale);
void add_distributed_load(Model& m, int body, const Vec3& force_per_length,
                          const TimeFunction& scale);

// A contact surface (elements/surface_contact.hpp) that the line bodies `bodies` touch: their
// elements take its number. An element touches one surface: a body already on another one is
// moved to this one. Leaves the model to be finalized again (the number is part of the element
// record). A height grid's heights (SurfaceKind::grid: grid_size[0] x grid_size[1] of them, x
// fastest; a planar model's profile: grid_size[0]) join the model's contact_heights, and the
// surface's grid_offset is set to them.
void add_contact_surface(Model& m, const std::string& name, ContactSurface surface, const std::vector<int>& bodies,
                         const std::vector<double>& heights = {});

// The water (elements/fluid_kinematics.hpp) for the fluid loads of add_fluid_load: its current
// profile (heights strictly increasing, 3 velocity components each; none: the uniform
// water.current) and its wave components join the model's fluid_values, and water's offsets and
// counts are set to them. Throws ModelError for a density or (with waves) a depth that is not
// positive, or a profile that is not increasing or whose velocities do not match its heights.
void add_water_values(Model& m, FluidLoad& water, const std::vector<double>& profile_heights,
                      const std::vector<double>& profile_velocities, const std::vector<WaveComponent>& waves);
// The water's loads (elements/fluid_load.hpp) on line body `body`: f is the water of
// add_water_values with the body's section (diameter > 0, drag and added mass coefficients >= 0); the body's
// elements take its number. Leaves the model to be finalized again.
void add_fluid_load(Model& m, const FluidLoad& f, int body);

// A contact of the line bodies `bodies` (3D cables) with shapes of a rigid body
// (multibody/cable_shape_contact.hpp): c names the body, its shapes and the law; every element of
// the bodies becomes one of its spans. finalize_model sets the spans' lengths, weights and slots.
void add_cable_shape_contact(Model& m, CableShapeContact c, const std::vector<int>& bodies);

// Node index of a body's node: index >= 0 from the start, < 0 from the end (-1 = last).
int body_node(const Model& m, int body, int index);
int find_body(const Model& m, const std::string& name);  // -1 if absent

}  // namespace catenary
