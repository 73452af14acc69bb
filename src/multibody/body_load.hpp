#pragma once
// Loads on rigid bodies at ground points, shared by the rigid contacts and the cables' contacts
// with body shapes (the 7-coordinate (r, p) layout of multibody/mechanism.hpp).
#include "catenary/multibody/ground.hpp"
#include "catenary/rigid/constraint_primitives.hpp"

namespace catenary {

// The velocity of the material point of a body (state b) that is at the ground point x now.
Vec<3> material_velocity(const rigid::BodyState& b, const Vec<3>& x);

// Ground-frame force f at the ground point x and torque n on `body` (7 coordinates at q + 7 body):
// Q_r += f, Q_p += B(p, s')^T f with s' the body-frame point at x, Q_p += 2 E^T n. Nothing for
// kGround.
void add_body_load(int body, const double* q, const Vec<3>& x, const Vec<3>& f, const Vec<3>& n, double* Q);

}  // namespace catenary
