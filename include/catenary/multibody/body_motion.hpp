#pragma once
// A rigid body moved along a prescribed path: a floating platform's measured motion, a crane's
// vessel, a shaker table. Six constraint rows on the body's 7 coordinates (r, p):
//   r - r0 - d(t) = 0                     d = (x, y, z)(t), the centre of mass's displacement
//   G(q(t)) p = 0                         q(t) = R(t) (x) p0, the target orientation
// where p0 is the body's initial orientation, R(t) the rotation Rz(yaw) Ry(pitch) Rx(roll) about
// the ground axes (roll about x first, then pitch about y, then yaw about z; the angles in rad)
// as a quaternion, (x) the quaternion product, and G(q) p the vector part of conj(q) (x) p, which
// vanishes where p = +-q (with the normalization row, p = q). Velocity and acceleration
// right-hand sides from the time functions' derivatives:
//   nu = (d', -G(q') p),   gamma = (d'', -2 G(q') p' - G(q'') p).
#include <string>

#include "catenary/core/time_function.hpp"
#include "catenary/rigid/constraint_primitives.hpp"

namespace catenary {

struct BodyMotion {
  std::string name;
  int body = 0;
  TimeFunction translation[3];  // x, y, z (m), from the initial centre of mass
  TimeFunction rotation[3];     // roll, pitch, yaw (rad), from the initial orientation
  Vec<3> position = Vec<3>::zero();          // r0
  Vec<4> orientation = vec4(1.0, 0.0, 0.0, 0.0);  // p0
  bool coupled = false;  // the six functions are a coupling program's paths (run/coupled_run.hpp)
};

// The six rows at the body's state b and time t (jac_j: the body's columns).
rigid::ConstraintRows<6> body_motion_rows(const BodyMotion& m, const rigid::BodyState& b, double t);

// The target orientation q(t) and its first and second time derivatives.
struct TargetOrientation {
  Vec<4> q, rate, acceleration;
};
TargetOrientation target_orientation(const BodyMotion& m, double t);

}  // namespace catenary
