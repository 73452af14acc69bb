#pragma once
// Euler angles (a, b, c) of a rigid body's orientation, for input and output; the body keeps its
// Euler parameters (rigid/euler_parameters.hpp). Both conventions turn the body about its own
// axes (body-fixed, intrinsic): about its z (3-1-3) or x (1-2-3) axis by a, about its new x
// (3-1-3) or y (1-2-3) axis by b, about its newest z axis by c:
//   3-1-3:  A = Rz(a) Rx(b) Rz(c),  b in [0, pi]           singular at b = 0 and b = pi
//   1-2-3:  A = Rx(a) Ry(b) Rz(c),  b in [-pi/2, pi/2]     (Bryant, Cardan) singular at b = +-pi/2
// (the same as turning about the ground axes in the reverse order: by c about z first).
// At a singularity only a + c (3-1-3 at b = 0, 1-2-3 at b = pi/2) or a - c (3-1-3 at b = pi,
// 1-2-3 at b = -pi/2) is defined: euler_angles then returns c = 0 and that sum or difference as a.
//
// The angles come from the Euler parameters rather than A, through half-angle pairs in which each
// of a + c and a - c is an atan2 (Nikravesh 1988, ch. 6, for 3-1-3; 1-2-3 likewise):
//   3-1-3:  (e0, e3) = cos(b/2) (cos s, sin s),            (e1, e2) = sin(b/2) (cos d, sin d)
//   1-2-3:  (e0 + e2, e1 + e3) = sqrt(2) cos(b/2 - pi/4) (cos s, sin s),
//           (e0 - e2, e1 - e3) = sqrt(2) cos(b/2 + pi/4) (cos d, sin d)
// with s = (a + c) / 2 and d = (a - c) / 2. Near a singularity the angle that becomes undefined
// is multiplied by the small pair's length, so the rotation is recovered to round-off everywhere.
#include <math.h>

#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {
namespace rigid {

enum class EulerConvention { z_x_z, x_y_z };  // 3-1-3, 1-2-3

// The unit p (e0 >= 0) of the angles' rotation: the product of the three turns about body axes.
inline Vec<4> from_euler_angles(const Vec<3>& angles, EulerConvention convention) {
  const Vec<3> x = vec3(1, 0, 0), y = vec3(0, 1, 0), z = vec3(0, 0, 1);
  const bool zxz = convention == EulerConvention::z_x_z;
  const Vec<4> p = quaternion_product(
      quaternion_product(from_axis_angle(zxz ? z : x, angles[0]), from_axis_angle(zxz ? x : y, angles[1])),
      from_axis_angle(z, angles[2]));
  return normalized(p[0] < 0.0 ? vec_scale(-1.0, p) : p);
}

// The angles of p (any nonzero length), a and c in [-pi, pi]. A pair shorter than 1e-15 |p|
// (b within 2e-15 rad of a singularity: the round-off of p) counts as the singularity.
inline Vec<3> euler_angles(const Vec<4>& p, EulerConvention convention) {
  constexpr double kPi = 3.141592653589793, kSingular = 1e-15;
  const bool zxz = convention == EulerConvention::z_x_z;
  // The pairs (|| cos s, sin s) and (|| cos d, sin d) of the comment above.
  const double sc = zxz ? p[0] : p[0] + p[2], ss = zxz ? p[3] : p[1] + p[3];
  const double dc = zxz ? p[1] : p[0] - p[2], ds = zxz ? p[2] : p[1] - p[3];
  const double sum_length = hypot(sc, ss), difference_length = hypot(dc, ds);
  const double half_b = atan2(difference_length, sum_length);  // 3-1-3: b / 2; 1-2-3: pi/4 - b/2
  const double b = zxz ? 2.0 * half_b : 0.5 * kPi - 2.0 * half_b;
  const double scale = kSingular * vec_norm(p);
  const double sum = 2.0 * atan2(ss, sc), difference = 2.0 * atan2(ds, dc);  // a + c, a - c
  if (difference_length <= scale) return vec3(remainder(sum, 2.0 * kPi), b, 0.0);
  if (sum_length <= scale) return vec3(remainder(difference, 2.0 * kPi), b, 0.0);
  return vec3(remainder(0.5 * (sum + difference), 2.0 * kPi), b, remainder(0.5 * (sum - difference), 2.0 * kPi));
}

}  // namespace rigid
}  // namespace catenary
