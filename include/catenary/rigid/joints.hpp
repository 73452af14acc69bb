#pragma once
// The classical joint library as compositions of Haug's primitives, and
// drivers that prescribe a joint coordinate as a function of time (Haug 1989, ch. 9).
//
// A joint connects body i and body j through one marker on each: a body-frame point s' and a
// right-handed orthonormal body-frame triad (f', g', h'). Convention used throughout: a joint is
// assembled (Phi = 0) when the two markers coincide in the ground frame, points and triads;
// h is the joint axis. With f_i = A_i f_i' etc. and d = d_ij = P_j - P_i (P = r + A s'):
//
//   joint            rows  equations                                        relative motion left
//   spherical          3   d = 0                                            3 rotations about P
//   revolute           5   d = 0, f_i.h_j = 0, g_i.h_j = 0                  rotation about h
//   cylindrical        4   f_i.h_j = g_i.h_j = 0, f_i.d = g_i.d = 0          rotation about, sliding along h
//   translational      5   cylindrical + f_i.g_j = 0                        sliding along h
//   universal          4   d = 0, f_i.g_j = 0                               rotations about f_i and g_j
//   fixed              6   revolute + f_i.g_j = 0                           none
//   planar             3   f_i.h_j = g_i.h_j = 0, h_i.d = 0                  sliding in the (f_i, g_i) plane,
//                                                                           rotation about h
//   point-on-line      2   f_i.d = g_i.d = 0 (P_j on the line P_i + x h_i)  sliding along h, 3 rotations
//   parallel axes      2   f_i.h_j = g_i.h_j = 0                            3 translations, rotation about h
//   perpendicular axes 1   f_i.g_j = 0                                      3 translations, rotations about
//                                                                           f_i and g_j
//
// Every row is scleronomic (nu = 0). Branches and singularities: the "parallel" pair also holds
// with h_j = -h_i and the twist lock f_i.g_j = 0 also at a half turn about h (assembly must start
// near the intended branch); the Jacobians are regular on both branches.
#include <math.h>

#include "catenary/rigid/constraint_primitives.hpp"

namespace catenary {
namespace rigid {

// Marker: body-frame point and unit axes f', g', h' (h' = f' x g').
struct Marker {
  Vec<3> s;
  Vec<3> f, g, h;
};

// Marker with axis h' = axis/|axis| and some f', g' completing a right-handed triad.
inline Marker marker_from_axis(const Vec<3>& s, const Vec<3>& axis) {
  Marker m;
  m.s = s;
  m.h = vec_scale(1.0 / vec_norm(axis), axis);
  int k = 0;  // the coordinate axis least aligned with h
  for (int i = 1; i < 3; ++i)
    if (fabs(m.h[i]) < fabs(m.h[k])) k = i;
  Vec<3> ek = Vec<3>::zero();
  ek[k] = 1.0;
  const Vec<3> f = vec_sub(ek, vec_scale(m.h[k], m.h));
  m.f = vec_scale(1.0 / vec_norm(f), f);
  m.g = cross3(m.h, m.f);
  return m;
}

// Marker of a body from a ground-frame point and triad (columns f, g, h) at the body's current
// position (unit p): s' = A^T (P - r), axes A^T f etc. Give both bodies of a joint the same
// ground point and triad to assemble the joint there.
inline Marker marker_from_ground(const BodyState& b, const Vec<3>& point, const Mat<3, 3>& frame) {
  Marker m;
  m.s = rotate_back(b.p, vec_sub(point, b.r));
  m.f = rotate_back(b.p, column3(frame, 0));
  m.g = rotate_back(b.p, column3(frame, 1));
  m.h = rotate_back(b.p, column3(frame, 2));
  return m;
}

enum class JointType : int {
  Spherical,
  Revolute,
  Cylindrical,
  Translational,
  Universal,
  Fixed,
  Planar,
  PointOnLine,
  ParallelAxes,
  PerpendicularAxes,
};

constexpr int kMaxJointRows = 6;

inline constexpr int joint_equation_count(JointType t) {
  switch (t) {
    case JointType::Spherical: return 3;
    case JointType::Revolute: return 5;
    case JointType::Cylindrical: return 4;
    case JointType::Translational: return 5;
    case JointType::Universal: return 4;
    case JointType::Fixed: return 6;
    case JointType::Planar: return 3;
    case JointType::PointOnLine: return 2;
    case JointType::ParallelAxes: return 2;
    case JointType::PerpendicularAxes: return 1;
  }
  return 0;
}

// ---- building blocks ---------------------------------------------------------------------------
namespace detail {

inline KinematicVector point_diff(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                       const Marker& mj) {
  return point_difference(bi, mi.s, bj, mj.s);
}

// h_j parallel to h_i: f_i.h_j = 0, g_i.h_j = 0 (two dot-1).
inline ConstraintRows<2> parallel_rows(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                            const Marker& mj) {
  ConstraintRows<2> c;
  set_rows(c, 0, dot1_constraint(bi, mi.f, bj, mj.h));
  set_rows(c, 1, dot1_constraint(bi, mi.g, bj, mj.h));
  return c;
}

// P_j on the line through P_i along h_i: f_i.d = 0, g_i.d = 0 (two dot-2).
inline ConstraintRows<2> line_rows(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                        const Marker& mj) {
  ConstraintRows<2> c;
  set_rows(c, 0, dot2_constraint(bi, mi.f, mi.s, bj, mj.s));
  set_rows(c, 1, dot2_constraint(bi, mi.g, mi.s, bj, mj.s));
  return c;
}

// No relative rotation about h: f_i.g_j = 0 (dot-1).
inline ConstraintRows<1> twist_row(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                        const Marker& mj) {
  return dot1_constraint(bi, mi.f, bj, mj.g);
}

}  // namespace detail

// ---- joints ------------------------------------------------------------------------------------

inline ConstraintRows<3> spherical_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                              const Marker& mj) {
  return spherical_constraint(bi, mi.s, bj, mj.s);
}

inline ConstraintRows<5> revolute_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                             const Marker& mj) {
  ConstraintRows<5> c;
  set_rows(c, 0, spherical_joint(bi, mi, bj, mj));
  set_rows(c, 3, detail::parallel_rows(bi, mi, bj, mj));
  return c;
}

inline ConstraintRows<4> cylindrical_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                                const Marker& mj) {
  ConstraintRows<4> c;
  set_rows(c, 0, detail::parallel_rows(bi, mi, bj, mj));
  set_rows(c, 2, detail::line_rows(bi, mi, bj, mj));
  return c;
}

inline ConstraintRows<5> translational_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                                  const Marker& mj) {
  ConstraintRows<5> c;
  set_rows(c, 0, cylindrical_joint(bi, mi, bj, mj));
  set_rows(c, 4, detail::twist_row(bi, mi, bj, mj));
  return c;
}

inline ConstraintRows<4> universal_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                              const Marker& mj) {
  ConstraintRows<4> c;
  set_rows(c, 0, spherical_joint(bi, mi, bj, mj));
  set_rows(c, 3, detail::twist_row(bi, mi, bj, mj));
  return c;
}

inline ConstraintRows<6> fixed_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                          const Marker& mj) {
  ConstraintRows<6> c;
  set_rows(c, 0, revolute_joint(bi, mi, bj, mj));
  set_rows(c, 5, detail::twist_row(bi, mi, bj, mj));
  return c;
}

inline ConstraintRows<3> planar_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                           const Marker& mj) {
  ConstraintRows<3> c;
  set_rows(c, 0, detail::parallel_rows(bi, mi, bj, mj));
  set_rows(c, 2, dot2_constraint(bi, mi.h, mi.s, bj, mj.s));
  return c;
}

inline ConstraintRows<2> point_on_line_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                                  const Marker& mj) {
  return detail::line_rows(bi, mi, bj, mj);
}

inline ConstraintRows<2> parallel_axes_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                                  const Marker& mj) {
  return detail::parallel_rows(bi, mi, bj, mj);
}

inline ConstraintRows<1> perpendicular_axes_joint(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                                       const Marker& mj) {
  return detail::twist_row(bi, mi, bj, mj);
}

using JointRows = ConstraintRows<kMaxJointRows>;

// All rows of a joint of runtime type t into the first joint_equation_count(t) rows of `out`
// (the others are zeroed); returns the row count.
inline int evaluate_joint(JointType t, const BodyState& bi, const Marker& mi, const BodyState& bj,
                               const Marker& mj, JointRows& out) {
  out = JointRows::zero();
  switch (t) {
    case JointType::Spherical: set_rows(out, 0, spherical_joint(bi, mi, bj, mj)); break;
    case JointType::Revolute: set_rows(out, 0, revolute_joint(bi, mi, bj, mj)); break;
    case JointType::Cylindrical: set_rows(out, 0, cylindrical_joint(bi, mi, bj, mj)); break;
    case JointType::Translational: set_rows(out, 0, translational_joint(bi, mi, bj, mj)); break;
    case JointType::Universal: set_rows(out, 0, universal_joint(bi, mi, bj, mj)); break;
    case JointType::Fixed: set_rows(out, 0, fixed_joint(bi, mi, bj, mj)); break;
    case JointType::Planar: set_rows(out, 0, planar_joint(bi, mi, bj, mj)); break;
    case JointType::PointOnLine: set_rows(out, 0, point_on_line_joint(bi, mi, bj, mj)); break;
    case JointType::ParallelAxes: set_rows(out, 0, parallel_axes_joint(bi, mi, bj, mj)); break;
    case JointType::PerpendicularAxes: set_rows(out, 0, perpendicular_axes_joint(bi, mi, bj, mj)); break;
  }
  return joint_equation_count(t);
}

// ---- joint coordinates and drivers -------------------------------------------------------------
// A driver is one row Phi = x(q) - f(t) for a joint coordinate x, with f, f' = df/dt, f'' given:
//   nu = f',   gamma = -x_qq(q', q') + f''     (Phi_qt = 0: time enters only through f)
// so that x(q(t)) follows f(t). Add it to a joint that leaves that coordinate free.

// Rotation angle of body j relative to body i about h_i, from f_i to f_j (right hand about h_i):
//   theta = atan2(g_i.f_j, f_i.f_j),  theta_q = (v u_q - u v_q) / (u^2 + v^2)  (u = g_i.f_j, v = f_i.f_j)
//   theta_qq = (v u_qq - u v_qq) / rho^2 - 2 theta' (u u' + v v') / rho^2,  rho^2 = u^2 + v^2.
// Value in (-pi, pi]. Needs h_j parallel to h_i (revolute, cylindrical): singular when f_j is
// parallel to h_i (rho = 0).
inline KinematicScalar rotation_coordinate(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                                const Marker& mj) {
  const KinematicVector fj = body_direction(bj, mj.f, Side::J);
  const KinematicScalar u = kv_dot(body_direction(bi, mi.g, Side::I), fj);
  const KinematicScalar v = kv_dot(body_direction(bi, mi.f, Side::I), fj);
  const double rho2 = u.value * u.value + v.value * v.value;
  KinematicScalar th;
  th.value = atan2(u.value, v.value);
  for (int c = 0; c < 7; ++c) {
    th.jac_i(0, c) = (v.value * u.jac_i(0, c) - u.value * v.jac_i(0, c)) / rho2;
    th.jac_j(0, c) = (v.value * u.jac_j(0, c) - u.value * v.jac_j(0, c)) / rho2;
  }
  th.rate = (v.value * u.rate - u.value * v.rate) / rho2;
  th.quad = (v.value * u.quad - u.value * v.quad) / rho2 -
            2.0 * th.rate * (u.value * u.rate + v.value * v.rate) / rho2;
  return th;
}

// Displacement of P_j from P_i along h_i: x = h_i . d_ij (a dot-2 quantity).
inline KinematicScalar translation_coordinate(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                                   const Marker& mj) {
  return kv_dot(body_direction(bi, mi.h, Side::I), detail::point_diff(bi, mi, bj, mj));
}

// Phi = x(q) - f with the rates above.
inline ConstraintRows<1> driver_row(const KinematicScalar& x, double f, double fd, double fdd) {
  ConstraintRows<1> c = scalar_row(x);
  c.phi[0] -= f;
  c.nu[0] = fd;
  c.gamma[0] += fdd;
  return c;
}

// Revolute/cylindrical angle driver: theta - f(t), the difference wrapped into (-pi, pi] so that
// f may grow past pi (several turns); continuous as long as |theta - f| < pi.
inline ConstraintRows<1> rotation_driver(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                              const Marker& mj, double f, double fd, double fdd) {
  ConstraintRows<1> c = driver_row(rotation_coordinate(bi, mi, bj, mj), f, fd, fdd);
  c.phi[0] = remainder(c.phi[0], 6.283185307179586);  // 2 pi
  return c;
}

// Translational/cylindrical displacement driver: h_i . d_ij - f(t).
inline ConstraintRows<1> translation_driver(const BodyState& bi, const Marker& mi, const BodyState& bj,
                                                 const Marker& mj, double f, double fd, double fdd) {
  return driver_row(translation_coordinate(bi, mi, bj, mj), f, fd, fdd);
}

}  // namespace rigid
}  // namespace catenary
