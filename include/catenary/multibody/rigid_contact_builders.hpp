#pragma once
// Building rigid contacts (multibody/rigid_contact.hpp): shapes in their body's frame, clearance
// joints placed by a ground point and axis in the bodies' initial configuration (as joints are),
// every number checked (a ModelError names the contact and the rule).
#include <string>

#include "catenary/multibody/mechanism.hpp"

namespace catenary {

// Checks a contact's law, friction and impact numbers; `what` names it in the message.
void check_rigid_contact_law(const RigidContactLaw& law, const std::string& what);

// A shape on shape.body, its frame (centre and axes) given in the body frame. Returns its index.
int add_rigid_shape(Mechanism& m, const RigidShape& shape);

// Shape `shape` against the fixed plane through `point` with normal `normal` (out of the solid).
int add_plane_contact(Mechanism& m, const std::string& name, int shape, const Vec<3>& normal, const Vec<3>& point,
                      const RigidContactLaw& law);

// A revolute (axis: the journal's and the bearing's axis) or spherical joint with clearance whose
// bearing (in body_i) and journal (in body_j) are centred at the ground point `point`.
int add_clearance_joint(Mechanism& m, const std::string& name, ClearanceJoint::Kind kind, int body_i, int body_j,
                        const Vec<3>& point, const Vec<3>& axis, double bearing_radius, double journal_radius,
                        double length, const RigidContactLaw& law);

}  // namespace catenary
