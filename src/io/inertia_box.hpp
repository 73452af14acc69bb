#pragma once
// The box a rigid body without contact shapes is drawn as in the VTU frames: the solid box of
// uniform density with the body's mass and inertia about its centre of mass. Its edges lie along
// the inertia tensor's principal axes and its edge lengths a, b, c follow from the principal
// moments I1, I2, I3 of a box, I1 = m (b^2 + c^2) / 12 and so on:
//   a^2 = 6 (I2 + I3 - I1) / m,  b^2 = 6 (I1 + I3 - I2) / m,  c^2 = 6 (I1 + I2 - I3) / m.
// Fallbacks, so that every body shows as a solid: an edge whose square comes out below 1e-4 of the
// longest's (a rod or a plate, whose moments meet the triangle inequality I1 + I2 >= I3 with
// equality) is drawn at 1/100 of the longest edge; a body whose longest edge is not positive and
// finite (zero or negative mass or inertia, which case files refuse but models built in code may
// hold) is drawn as a cube of edge `fallback_edge`.
#include "catenary/multibody/mechanism.hpp"
#include "catenary/multibody/rigid_contact.hpp"

namespace catenary {

constexpr double kInertiaBoxThinEdge = 0.01;  // the shortest edge drawn, as a share of the longest

// The box as a shape of body index `body` (its frame at the centre of mass, right-handed).
RigidShape inertia_box(const RigidBody& rigid_body, int body, double fallback_edge);

}  // namespace catenary
