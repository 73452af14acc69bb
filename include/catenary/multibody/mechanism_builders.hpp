#pragma once
// Building mechanisms the way a user describes them: joints placed at a ground point with a
// ground triad in the bodies' initial configuration (as ADAMS markers are placed), rather than
// by body-frame markers.
#include <string>

#include "catenary/multibody/mechanism.hpp"

namespace catenary {

// The triad with columns f, g, h.
Mat<3, 3> triad(const Vec<3>& f, const Vec<3>& g, const Vec<3>& h);
// A right-handed triad whose h is axis / |axis| (f, g: some completion).
Mat<3, 3> triad_from_axis(const Vec<3>& axis);

// A body at rest: its mass, principal moments of inertia about its centre of mass (body axes),
// initial centre of mass and Euler parameters.
RigidBody rigid_body_at_rest(const std::string& name, double mass, const Vec<3>& principal_inertia,
                             const Vec<3>& position, const Vec<4>& orientation);

// Adds a joint of the given type between body_i and body_j (kGround for the ground) whose
// markers on both bodies coincide, in the bodies' initial positions, with the ground point and
// triad (columns f, g, h; h is the joint axis). Returns the joint's index.
int add_joint(Mechanism& m, const std::string& name, rigid::JointType type, int body_i, int body_j,
              const Vec<3>& point, const Mat<3, 3>& frame);

}  // namespace catenary
