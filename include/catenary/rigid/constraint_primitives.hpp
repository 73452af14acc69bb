#pragma once
// Haug's basic constraints between two rigid bodies i and j: dot-1, dot-2,
// spherical and distance (E. J. Haug, "Computer-Aided Kinematics and Dynamics of Mechanical
// Systems", 1989, ch. 9).
//
// Every constraint row gives, at the state (q, q') of the two bodies,
//   phi    the value Phi(q, t)
//   jac_i  dPhi/dq_i, q_i = (r_i, p_i): columns 0..2 r, 3..6 p   (jac_j likewise)
//   nu     velocity right-hand side:      Phi_q q'  = nu     (nu = -Phi_t; 0 for these)
//   gamma  acceleration right-hand side:  Phi_q q'' = gamma, gamma = -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt
// so that Phi_q q'' = gamma is the second time derivative of Phi = 0. The ground is a body with
// r = 0, p = (1, 0, 0, 0), zero velocities: the caller drops its Jacobian block.
//
// The rows are built from "kinematic vectors", ground-frame vectors w(q) such as a body axis
// A_i a_i' or the point-to-point vector d_ij, carried with their Jacobian, their rate
// w' = w_q q' and their quadratic velocity term w_qq(q', q') = d2w/dt2 at q'' = 0. A dot product
// u.v then has  Phi_q = v^T u_q + u^T v_q  and  gamma = -(u_qq.v + 2 u'.v' + u.v_qq).
#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {
namespace rigid {

// Coordinates and velocities of one body (ground: r = 0, p = (1,0,0,0), rd = pd = 0).
struct BodyState {
  Vec<3> r;   // centre of mass, ground frame
  Vec<4> p;   // Euler parameters (e0, e1, e2, e3)
  Vec<3> rd;  // r'
  Vec<4> pd;  // p'
};

// From the 7 coordinates (r, p) and their 7 rates, as laid out per body in q and q'.
inline BodyState body_state(const double* q, const double* qd) {
  BodyState b;
  for (int k = 0; k < 3; ++k) b.r[k] = q[k], b.rd[k] = qd[k];
  for (int k = 0; k < 4; ++k) b.p[k] = q[3 + k], b.pd[k] = qd[3 + k];
  return b;
}

inline BodyState ground_state() {
  BodyState b;
  b.r = Vec<3>::zero();
  b.rd = Vec<3>::zero();
  b.p = vec4(1.0, 0.0, 0.0, 0.0);
  b.pd = Vec<4>::zero();
  return b;
}

// N constraint rows between bodies i and j.
template <int N>
struct ConstraintRows {
  static constexpr int kRows = N;
  Vec<N> phi;
  Mat<N, 7> jac_i, jac_j;
  Vec<N> nu, gamma;
  static ConstraintRows zero() {
    ConstraintRows c;
    c.phi = Vec<N>::zero();
    c.jac_i = Mat<N, 7>::zero();
    c.jac_j = Mat<N, 7>::zero();
    c.nu = Vec<N>::zero();
    c.gamma = Vec<N>::zero();
    return c;
  }
};

// Copies the M rows of `in` into `out` starting at row `first`.
template <int N, int M>
inline void set_rows(ConstraintRows<N>& out, int first, const ConstraintRows<M>& in) {
  for (int k = 0; k < M; ++k) {
    out.phi[first + k] = in.phi[k];
    out.nu[first + k] = in.nu[k];
    out.gamma[first + k] = in.gamma[k];
    for (int c = 0; c < 7; ++c) {
      out.jac_i(first + k, c) = in.jac_i(k, c);
      out.jac_j(first + k, c) = in.jac_j(k, c);
    }
  }
}

// A ground-frame vector w(q_i, q_j) with its derivatives (see the header comment).
struct KinematicVector {
  Vec<3> value;
  Mat<3, 7> jac_i, jac_j;
  Vec<3> rate;  // w' = w_q q'
  Vec<3> quad;  // d2w/dt2 at q'' = 0
};

// A scalar s(q_i, q_j) with the same derivatives.
struct KinematicScalar {
  double value;
  Mat<1, 7> jac_i, jac_j;
  double rate;
  double quad;
};

enum class Side : int { I = 0, J = 1 };

namespace detail {

// w = c r + A(p) a' of one body (c = 1 for a point, 0 for a direction):
//   w_r = c I, w_p = B(p, a'), w' = c r' + B(p, a') p', w_qq = B(p', a') p'.
inline KinematicVector body_vector(const BodyState& b, const Vec<3>& a, double c, Side side) {
  KinematicVector w;
  const Mat<3, 4> bm = b_matrix(b.p, a);
  w.value = vec_add(vec_scale(c, b.r), rotate(b.p, a));
  w.rate = vec_add(vec_scale(c, b.rd), mat_vec(bm, b.pd));
  w.quad = mat_vec(b_matrix(b.pd, a), b.pd);
  Mat<3, 7> jac = Mat<3, 7>::zero();
  for (int k = 0; k < 3; ++k) {
    jac(k, k) = c;
    for (int l = 0; l < 4; ++l) jac(k, 3 + l) = bm(k, l);
  }
  w.jac_i = side == Side::I ? jac : Mat<3, 7>::zero();
  w.jac_j = side == Side::J ? jac : Mat<3, 7>::zero();
  return w;
}

}  // namespace detail

// Body-fixed direction a = A a' of the body on the given side.
inline KinematicVector body_direction(const BodyState& b, const Vec<3>& a_body, Side side) {
  return detail::body_vector(b, a_body, 0.0, side);
}

// Ground position r + A s' of the body point s' of the body on the given side.
inline KinematicVector body_point(const BodyState& b, const Vec<3>& s_body, Side side) {
  return detail::body_vector(b, s_body, 1.0, side);
}

// u - v (every field is linear).
inline KinematicVector kv_sub(const KinematicVector& u, const KinematicVector& v) {
  KinematicVector w;
  w.value = vec_sub(u.value, v.value);
  w.jac_i = mat_sub(u.jac_i, v.jac_i);
  w.jac_j = mat_sub(u.jac_j, v.jac_j);
  w.rate = vec_sub(u.rate, v.rate);
  w.quad = vec_sub(u.quad, v.quad);
  return w;
}

// d_ij = r_j + A_j s_j' - r_i - A_i s_i'
inline KinematicVector point_difference(const BodyState& bi, const Vec<3>& si, const BodyState& bj,
                                             const Vec<3>& sj) {
  return kv_sub(body_point(bj, sj, Side::J), body_point(bi, si, Side::I));
}

// u . v:  s_q = v^T u_q + u^T v_q,  s' = u'.v + u.v',  s_qq = u_qq.v + 2 u'.v' + u.v_qq.
inline KinematicScalar kv_dot(const KinematicVector& u, const KinematicVector& v) {
  KinematicScalar s;
  s.value = dot(u.value, v.value);
  for (int c = 0; c < 7; ++c) {
    double ji = 0.0, jj = 0.0;
    for (int k = 0; k < 3; ++k) {
      ji += v.value[k] * u.jac_i(k, c) + u.value[k] * v.jac_i(k, c);
      jj += v.value[k] * u.jac_j(k, c) + u.value[k] * v.jac_j(k, c);
    }
    s.jac_i(0, c) = ji;
    s.jac_j(0, c) = jj;
  }
  s.rate = dot(u.rate, v.value) + dot(u.value, v.rate);
  s.quad = dot(u.quad, v.value) + 2.0 * dot(u.rate, v.rate) + dot(u.value, v.quad);
  return s;
}

// Constraint rows Phi = w (3 rows) and Phi = s (1 row), scleronomic: nu = 0, gamma = -w_qq.
inline ConstraintRows<3> vector_rows(const KinematicVector& w) {
  ConstraintRows<3> c;
  c.phi = w.value;
  c.jac_i = w.jac_i;
  c.jac_j = w.jac_j;
  c.nu = Vec<3>::zero();
  c.gamma = vec_scale(-1.0, w.quad);
  return c;
}

inline ConstraintRows<1> scalar_row(const KinematicScalar& s) {
  ConstraintRows<1> c;
  c.phi[0] = s.value;
  c.jac_i = s.jac_i;
  c.jac_j = s.jac_j;
  c.nu[0] = 0.0;
  c.gamma[0] = -s.quad;
  return c;
}

// ---- Haug's primitives ------------------------------------------------------------------------
// Body vectors a_i', a_j' and points s_i', s_j' in the body frames; a_i = A_i a_i' etc.

// dot-1: a_i . a_j = 0 (a_i perpendicular to a_j).
//   Phi_pi = a_j^T B(p_i, a_i'),  Phi_pj = a_i^T B(p_j, a_j'),  Phi_r = 0
//   gamma  = -a_j^T B(p_i', a_i') p_i' - a_i^T B(p_j', a_j') p_j' - 2 (B(p_i, a_i') p_i').(B(p_j, a_j') p_j')
inline ConstraintRows<1> dot1_constraint(const BodyState& bi, const Vec<3>& ai, const BodyState& bj,
                                              const Vec<3>& aj) {
  return scalar_row(kv_dot(body_direction(bi, ai, Side::I), body_direction(bj, aj, Side::J)));
}

// dot-2: a_i . d_ij = 0 (the point s_j of body j stays in the plane through s_i normal to a_i).
//   Phi_ri = -a_i^T, Phi_pi = d_ij^T B(p_i, a_i') - a_i^T B(p_i, s_i'), Phi_rj = a_i^T, Phi_pj = a_i^T B(p_j, s_j')
inline ConstraintRows<1> dot2_constraint(const BodyState& bi, const Vec<3>& ai, const Vec<3>& si,
                                              const BodyState& bj, const Vec<3>& sj) {
  return scalar_row(kv_dot(body_direction(bi, ai, Side::I), point_difference(bi, si, bj, sj)));
}

// spherical: d_ij = r_j + A_j s_j' - r_i - A_i s_i' = 0 (3 rows).
//   Phi_ri = -I, Phi_pi = -B(p_i, s_i'), Phi_rj = I, Phi_pj = B(p_j, s_j')
//   gamma  = B(p_i', s_i') p_i' - B(p_j', s_j') p_j'
inline ConstraintRows<3> spherical_constraint(const BodyState& bi, const Vec<3>& si, const BodyState& bj,
                                                   const Vec<3>& sj) {
  return vector_rows(point_difference(bi, si, bj, sj));
}

// distance: d_ij . d_ij - L^2 = 0. Its Jacobian 2 d^T vanishes at L = 0: use the spherical
// constraint there.
inline ConstraintRows<1> distance_constraint(const BodyState& bi, const Vec<3>& si, const BodyState& bj,
                                                  const Vec<3>& sj, double length) {
  const KinematicVector d = point_difference(bi, si, bj, sj);
  ConstraintRows<1> c = scalar_row(kv_dot(d, d));
  c.phi[0] -= length * length;
  return c;
}

}  // namespace rigid
}  // namespace catenary
