#pragma once
// Euler parameters of a rigid body.
//
// A body's coordinates are q = (r, p): r the centre of mass in the ground frame (3), and the Euler
// parameters p = (e0, e), e = (e1, e2, e3) (4), with p.p = 1 imposed as a constraint. A point
// with body-frame position s' is at r + A(p) s'. References: E. J. Haug, "Computer-Aided
// Kinematics and Dynamics of Mechanical Systems" (1989), ch. 6 and 9 (kinematics), ch. 11 (dynamics);
// P. E. Nikravesh, "Computer-Aided Analysis of Mechanical Systems" (1988), ch. 6 and 11.
//
// Convention: A(p) is the homogeneous quadratic form A = E G^T (Haug ch. 6), equal to the
// rotation matrix when p.p = 1 and to |p|^2 times it otherwise. Every derivative below (B, the
// Jacobians and gammas of the constraints) is the exact derivative of this form, so they hold
// for any p, on or off the normalization manifold; and since A(p) s' is quadratic in p,
//   d/dt (A s') = B(p, s') p',   d2/dt2 (A s') = B(p', s') p' + B(p, s') p''.
//
// Equations of motion of one free body in these coordinates (Nikravesh 1988 ch. 11;
// Haug 1989 ch. 11), lambda_p the multiplier of the normalization constraint:
//   m r''                                          = f                (ground-frame force)
//   4 G^T J' G p'' + 2 p lambda_p                  = 2 G^T n' + 8 G'^T J' G' p
//   2 p . p''                                      = -2 p'.p'         (normalization, gamma)
// with G' = G(p'), J' the body-frame inertia about the centre of mass, n' the body-frame torque.
// The quadratic velocity force 8 G'^T J' G' p is on the RIGHT-hand side: the generalized inertia
// force d/dt(dT/dp') - dT/dp of T = 2 p'^T G^T J' G p' is 4 G^T J' G p'' - 8 G'^T J' G' p
// (inertia_force below; checked against the Lagrange equations in tests/test_rigid_math.cpp).
// The 4x4 mass matrix 4 G^T J' G is singular (it maps p to 0): the system is solvable only
// together with the normalization row. For a free body p^T times the p rows gives
// lambda_p = 2 T (T the rotational kinetic energy), not 0.
#include <math.h>

#include "catenary/core/small_matrix.hpp"

namespace catenary {
namespace rigid {

// E(p) = [-e, e~ + e0 I] (3x4): global angular velocity omega = 2 E p'.
inline Mat<3, 4> e_matrix(const Vec<4>& p) {
  Mat<3, 4> m;
  m(0, 0) = -p[1], m(0, 1) = p[0], m(0, 2) = -p[3], m(0, 3) = p[2];
  m(1, 0) = -p[2], m(1, 1) = p[3], m(1, 2) = p[0], m(1, 3) = -p[1];
  m(2, 0) = -p[3], m(2, 1) = -p[2], m(2, 2) = p[1], m(2, 3) = p[0];
  return m;
}

// G(p) = [-e, -e~ + e0 I] (3x4): body-frame angular velocity omega' = 2 G p'.
// G is linear in p, G(p) p = 0 for every p, hence G(p) p' = -G(p') p.
inline Mat<3, 4> g_matrix(const Vec<4>& p) {
  Mat<3, 4> m;
  m(0, 0) = -p[1], m(0, 1) = p[0], m(0, 2) = p[3], m(0, 3) = -p[2];
  m(1, 0) = -p[2], m(1, 1) = -p[3], m(1, 2) = p[0], m(1, 3) = p[1];
  m(2, 0) = -p[3], m(2, 1) = p[2], m(2, 2) = -p[1], m(2, 3) = p[0];
  return m;
}

// A(p) = E G^T = (e0^2 - e.e) I + 2 e e^T + 2 e0 e~ (body frame to ground frame).
inline Mat<3, 3> rotation_matrix(const Vec<4>& p) {
  const double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
  const double d = e0 * e0 - e1 * e1 - e2 * e2 - e3 * e3;
  Mat<3, 3> a;
  a(0, 0) = d + 2.0 * e1 * e1;
  a(1, 1) = d + 2.0 * e2 * e2;
  a(2, 2) = d + 2.0 * e3 * e3;
  a(0, 1) = 2.0 * (e1 * e2 - e0 * e3);
  a(1, 0) = 2.0 * (e1 * e2 + e0 * e3);
  a(0, 2) = 2.0 * (e1 * e3 + e0 * e2);
  a(2, 0) = 2.0 * (e1 * e3 - e0 * e2);
  a(1, 2) = 2.0 * (e2 * e3 - e0 * e1);
  a(2, 1) = 2.0 * (e2 * e3 + e0 * e1);
  return a;
}

// A(p) a'
inline Vec<3> rotate(const Vec<4>& p, const Vec<3>& a) { return mat_vec(rotation_matrix(p), a); }

// A(p)^T a (ground frame to body frame when p.p = 1)
inline Vec<3> rotate_back(const Vec<4>& p, const Vec<3>& a) { return mat_t_vec(rotation_matrix(p), a); }

// B(p, a') = d(A(p) a')/dp = 2 [ (e0 I + e~) a',  e a'^T - (e0 I + e~) a'~ ]  (3x4, Haug ch. 9)
// Linear in p; B(p, a') p = 2 A(p) a'.
inline Mat<3, 4> b_matrix(const Vec<4>& p, const Vec<3>& a) {
  const double e0 = p[0];
  const Vec<3> e = vec3(p[1], p[2], p[3]);
  const Vec<3> c0 = vec_add(vec_scale(e0, a), cross3(e, a));  // (e0 I + e~) a'
  const Mat<3, 3> at = skew3(a);
  Mat<3, 3> m = mat_mul(skew3(e), at);  // e~ a'~
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = e[i] * a[j] - e0 * at(i, j) - m(i, j);
  Mat<3, 4> b;
  for (int i = 0; i < 3; ++i) {
    b(i, 0) = 2.0 * c0[i];
    for (int j = 0; j < 3; ++j) b(i, j + 1) = 2.0 * m(i, j);
  }
  return b;
}

// The angular velocity from p, p': omega = 2 E p' (ground frame; in the body frame
// omega' = 2 G p').
inline Vec<3> angular_velocity(const Vec<4>& p, const Vec<4>& pd) {
  return vec_scale(2.0, mat_vec(e_matrix(p), pd));
}

// The inverse for a unit p (E E^T = I, E p = 0): p' = 1/2 E^T omega, the p' with p.p' = 0
// (velocity initial conditions).
inline Vec<4> p_rate_from_angular_velocity(const Vec<4>& p, const Vec<3>& omega) {
  return vec_scale(0.5, mat_t_vec(e_matrix(p), omega));
}

// The quaternion product a (x) b = (a0 b0 - a.b, a0 b + b0 a + a x b): the Euler parameters of
// the rotation A(a) A(b) (b first, then a).
inline Vec<4> quaternion_product(const Vec<4>& a, const Vec<4>& b) {
  return vec4(a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
              a[0] * b[1] + b[0] * a[1] + a[2] * b[3] - a[3] * b[2],
              a[0] * b[2] + b[0] * a[2] + a[3] * b[1] - a[1] * b[3],
              a[0] * b[3] + b[0] * a[3] + a[1] * b[2] - a[2] * b[1]);
}

// p / |p|
inline Vec<4> normalized(const Vec<4>& p) { return vec_scale(1.0 / vec_norm(p), p); }

// p = (cos(angle/2), sin(angle/2) u), u = axis / |axis|: rotation by angle about axis (right hand).
// A zero axis gives the identity.
inline Vec<4> from_axis_angle(const Vec<3>& axis, double angle) {
  const double n = vec_norm(axis);
  if (n == 0.0) return vec4(1.0, 0.0, 0.0, 0.0);
  const double s = sin(0.5 * angle) / n;
  return vec4(cos(0.5 * angle), s * axis[0], s * axis[1], s * axis[2]);
}

// p from a rotation matrix (Shepperd's method): the component with the largest 4 e_k^2 among
//   4 e0^2 = 1 + tr A,  4 e1^2 = 1 + 2 A11 - tr A,  4 e2^2 = 1 + 2 A22 - tr A,  4 e3^2 = 1 + 2 A33 - tr A
// is taken from the diagonal, the others from the off-diagonal sums/differences divided by it,
// so no division by a small number happens (180-degree rotations included). Returned with
// e0 >= 0 (p and -p give the same A) and normalized.
inline Vec<4> from_rotation_matrix(const Mat<3, 3>& a) {
  const double tr = a(0, 0) + a(1, 1) + a(2, 2);
  const double c[4] = {1.0 + tr, 1.0 + 2.0 * a(0, 0) - tr, 1.0 + 2.0 * a(1, 1) - tr, 1.0 + 2.0 * a(2, 2) - tr};
  int k = 0;
  for (int i = 1; i < 4; ++i)
    if (c[i] > c[k]) k = i;
  const double ek = 0.5 * sqrt(c[k]);
  const double f = 0.25 / ek;
  Vec<4> p;
  switch (k) {
    case 0:
      p = vec4(ek, f * (a(2, 1) - a(1, 2)), f * (a(0, 2) - a(2, 0)), f * (a(1, 0) - a(0, 1)));
      break;
    case 1:
      p = vec4(f * (a(2, 1) - a(1, 2)), ek, f * (a(1, 0) + a(0, 1)), f * (a(2, 0) + a(0, 2)));
      break;
    case 2:
      p = vec4(f * (a(0, 2) - a(2, 0)), f * (a(1, 0) + a(0, 1)), ek, f * (a(2, 1) + a(1, 2)));
      break;
    default:
      p = vec4(f * (a(1, 0) - a(0, 1)), f * (a(2, 0) + a(0, 2)), f * (a(2, 1) + a(1, 2)), ek);
      break;
  }
  if (p[0] < 0.0) p = vec_scale(-1.0, p);
  return normalized(p);
}

// Normalization constraint of one body: Phi = p.p - 1, Phi_p = 2 p^T (1x4, zero r columns),
// nu = 0, gamma = -2 p'.p'.
struct NormalizationRow {
  double phi;
  Vec<4> jac_p;
  double gamma;
};

inline NormalizationRow normalization_constraint(const Vec<4>& p, const Vec<4>& pd) {
  NormalizationRow row;
  row.phi = dot(p, p) - 1.0;
  row.jac_p = vec_scale(2.0, p);
  row.gamma = -2.0 * dot(pd, pd);
  return row;
}

// Mass matrix of the rotational coordinates: M_p = 4 G^T J' G (4x4, rank 3), J' the full
// body-frame inertia tensor about the centre of mass. Kinetic energy T = 1/2 p'^T M_p p'
// = 1/2 omega'^T J' omega' (omega' = 2 G p').
inline Mat<4, 4> euler_mass_matrix(const Vec<4>& p, const Mat<3, 3>& inertia) {
  const Mat<3, 4> g = g_matrix(p);
  return mat_scale(4.0, mat_t_mul(g, mat_mul(inertia, g)));
}

// Quadratic velocity force 8 G(p')^T J' G(p') p (right-hand side of the equations above).
inline Vec<4> quadratic_velocity_force(const Vec<4>& p, const Vec<4>& pd, const Mat<3, 3>& inertia) {
  const Mat<3, 4> gd = g_matrix(pd);
  return vec_scale(8.0, mat_t_vec(gd, mat_vec(inertia, mat_vec(gd, p))));
}

// Generalized inertia force of the rotational coordinates, d/dt(dT/dp') - dT/dp
//   = 4 G^T J' G p'' - 8 G(p')^T J' G(p') p.
inline Vec<4> inertia_force(const Vec<4>& p, const Vec<4>& pd, const Vec<4>& pdd, const Mat<3, 3>& inertia) {
  return vec_sub(mat_vec(euler_mass_matrix(p, inertia), pdd), quadratic_velocity_force(p, pd, inertia));
}

// Generalized forces on p (virtual work, unit p):
//   force f (ground frame) at the body point s':  Q_r = f,  Q_p = B(p, s')^T f
//   torque n (ground frame):                      Q_p = 2 E^T n
//   torque n' (body frame):                       Q_p = 2 G^T n'
inline Vec<4> point_force_on_p(const Vec<4>& p, const Vec<3>& s, const Vec<3>& f) {
  return mat_t_vec(b_matrix(p, s), f);
}
inline Vec<4> torque_on_p(const Vec<4>& p, const Vec<3>& n) { return vec_scale(2.0, mat_t_vec(e_matrix(p), n)); }
inline Vec<4> body_torque_on_p(const Vec<4>& p, const Vec<3>& n_body) {
  return vec_scale(2.0, mat_t_vec(g_matrix(p), n_body));
}

}  // namespace rigid
}  // namespace catenary
