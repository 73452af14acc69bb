#pragma once
// The rigid bodies' contacts of a case file (multibody/rigid_contact.hpp): the shapes of a rigid
// body (/model/rigid_bodies/k/shapes), a revolute or spherical joint's "clearance", and a plane
// contact that names rigid bodies (/model/contacts), with their laws, friction and impact model.
// Internal to src/model.
#include <string>
#include <vector>

#include "case_reading.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

// n: a rigid body's "shapes" array; the body is m.mechanism.bodies[body].
void read_rigid_shapes(const case_reading::Node& n, int body, Model& m);

// n: a joint's "clearance" object; the joint (kind, bodies, ground point and axis) as read.
void read_clearance_joint(const case_reading::Node& n, const std::string& name, ClearanceJoint::Kind kind, int body_i,
                          int body_j, const Vec<3>& point, const Vec<3>& axis, Model& m);

// n: a /model/contacts entry of type plane whose bodies are the rigid bodies `bodies`: every shape
// of each touches the plane.
void read_rigid_plane_contact(const case_reading::Node& n, const std::string& name, const std::vector<int>& bodies,
                              Model& m);

}  // namespace catenary
