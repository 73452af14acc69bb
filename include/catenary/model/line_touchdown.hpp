#pragma once
// Where a line leaves the contact surface it lies on: a mooring line's touchdown point on the
// seabed, a rope's lift-off from a sheave. Read from the centreline's cubic interpolation at a
// state q, by the tube's penetration of the surface (surface_contact.hpp: the line is in contact
// where delta > 0).
#include <Eigen/Core>

#include "catenary/model/model.hpp"

namespace catenary {

// The touchdown of a line: the point where its stretch in contact ends, searched from the line's
// end farther off the surface (from its last node back when that node is the farther, else from
// its first node on); none where the line touches nothing or both its ends are in contact. arc_length
// is the unstretched length from the line's first node (m); position the centreline's point.
struct Touchdown {
  bool found = false;
  double arc_length = 0.0;
  Eigen::Vector3d position = Eigen::Vector3d::Zero();
};

// Whether some element of line b names a contact surface (only those can touch down).
bool line_has_contact(const Model& m, const Body& b);

Touchdown line_touchdown(const Model& m, const Body& b, const Eigen::VectorXd& q);

}  // namespace catenary
