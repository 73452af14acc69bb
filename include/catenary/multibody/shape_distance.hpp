#pragma once
// The signed distance from a point to a rigid body's shape (multibody/rigid_contact.hpp), in the
// body frame: how far the point lies outside the shape's surface (negative inside) and the
// surface's outward unit normal there. Exact outside every shape; inside, the distance and
// normal of the nearest face (a box's, or a cylinder's side or end face). A cable's centreline
// tube of radius R touches the shape where the distance is below R
// (multibody/cable_shape_contact.hpp).
#include "catenary/multibody/rigid_contact.hpp"

namespace catenary {

struct ShapeDistance {
  double distance = 0.0;
  Vec<3> normal = Vec<3>::zero();  // body frame, unit
};

// The distance of the body-frame point x from shape s.
ShapeDistance shape_distance(const RigidShape& s, const Vec<3>& x);

}  // namespace catenary
