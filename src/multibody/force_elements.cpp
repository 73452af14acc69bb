// Force elements on rigid bodies (see include/catenary/multibody/force_elements.hpp).
#include "catenary/multibody/force_elements.hpp"

#include <cmath>
#include <stdexcept>

namespace catenary {
namespace {

using namespace rigid;

constexpr double kTwoPi = 6.283185307179586;

BodyState state_of(int body, const double* q, const double* v) {
  return body == kGround ? ground_state() : body_state(q + 7 * body, v + 7 * body);
}

// Ground-frame force f at the body-frame point s' of `body`: Q_r += f, Q_p += B(p, s')^T f.
// B is the exact derivative of A(p) s', so this is the virtual work of f for any p.
void add_point_force(int body, const Vec<4>& p, const Vec<3>& s, const Vec<3>& f, double* Q) {
  if (body == kGround) return;
  double* Qb = Q + 7 * body;
  const Vec<4> qp = point_force_on_p(p, s, f);
  for (int k = 0; k < 3; ++k) Qb[k] += f[k];
  for (int k = 0; k < 4; ++k) Qb[3 + k] += qp[k];
}

void add_p_force(int body, const Vec<4>& qp, double* Q) {
  if (body == kGround) return;
  for (int k = 0; k < 4; ++k) Q[7 * body + 3 + k] += qp[k];
}

// Geometry of a TSDA: unit direction u = d / l from P_i to P_j, length, rate l' = u . d'.
struct TsdaGeometry {
  BodyState bi, bj;
  Vec<3> u;
  double length, rate;
};

TsdaGeometry tsda_geometry(const Tsda& e, const double* q, const double* v) {
  TsdaGeometry g;
  g.bi = state_of(e.body_i, q, v);
  g.bj = state_of(e.body_j, q, v);
  // P = r + A s',  P' = r' + B(p, s') p'
  const Vec<3> d = vec_sub(vec_add(g.bj.r, rotate(g.bj.p, e.point_j)), vec_add(g.bi.r, rotate(g.bi.p, e.point_i)));
  const Vec<3> dd = vec_sub(vec_add(g.bj.rd, mat_vec(b_matrix(g.bj.p, e.point_j), g.bj.pd)),
                            vec_add(g.bi.rd, mat_vec(b_matrix(g.bi.p, e.point_i), g.bi.pd)));
  g.length = vec_norm(d);
  // Coincident points: the line, and so the force direction and l', are undefined. We take
  // u = 0, i.e. no force and l' = 0, rather than produce NaN. This is the continuous limit for
  // a pure spring of free length 0 (force k d -> 0); otherwise it is a measure-zero event.
  g.u = g.length > 0.0 ? vec_scale(1.0 / g.length, d) : Vec<3>::zero();
  g.rate = dot(g.u, dd);
  return g;
}

double tsda_force(const Tsda& e, double length, double rate, double t) {
  const double stop = e.has_impact ? impact_force(e.impact, e.free_length, length, rate).value : 0.0;
  return e.stiffness * (length - e.free_length) + e.damping * rate - stop + (e.has_actuator ? e.actuator.value(t) : 0.0);
}

// RSDA angle from rigid::rotation_coordinate (value, dtheta/dq_i, dtheta/dq_j, theta'), with the
// deflection from free_angle wrapped into [-pi, pi].
struct RsdaGeometry {
  KinematicScalar theta;
  double deflection;
};

RsdaGeometry rsda_geometry(const Rsda& e, const double* q, const double* v) {
  const BodyState bi = state_of(e.body_i, q, v), bj = state_of(e.body_j, q, v);
  // theta = atan2(g_i.f_j, f_i.f_j) has no value or derivative when f_j is along h_i.
  const Vec<3> fj = rotate(bj.p, e.marker_j.f);
  const double u = dot(rotate(bi.p, e.marker_i.g), fj), w = dot(rotate(bi.p, e.marker_i.f), fj);
  if (!(std::hypot(u, w) > 1e-12 * vec_norm(fj) * vec_norm(rotate(bi.p, e.marker_i.f))))
    throw std::runtime_error("RSDA '" + e.name + "': marker j's f axis is along marker i's h axis, angle undefined");
  RsdaGeometry g;
  g.theta = rotation_coordinate(bi, e.marker_i, bj, e.marker_j);
  g.deflection = std::remainder(g.theta.value - e.free_angle, kTwoPi);
  return g;
}

double rsda_torque(const Rsda& e, double deflection, double rate, double t) {
  return e.stiffness * deflection + e.damping * rate + (e.has_actuator ? e.actuator.value(t) : 0.0);
}

}  // namespace

TsdaState tsda_state(const Tsda& e, const double* q, const double* v, double t) {
  const TsdaGeometry g = tsda_geometry(e, q, v);
  return {g.length, g.rate, tsda_force(e, g.length, g.rate, t)};
}

RsdaState rsda_state(const Rsda& e, const double* q, const double* v, double t) {
  const RsdaGeometry g = rsda_geometry(e, q, v);
  return {e.free_angle + g.deflection, g.theta.rate, rsda_torque(e, g.deflection, g.theta.rate, t)};
}

double add_force_element_forces(const ForceElements& fe, const double* q, const double* v, double t, double* Q) {
  double energy = 0.0;

  // TSDA: force -F u on j at P_j, +F u on i at P_i (Q = -F dl/dq).
  for (const Tsda& e : fe.tsda) {
    const TsdaGeometry g = tsda_geometry(e, q, v);
    const double F = tsda_force(e, g.length, g.rate, t);
    add_point_force(e.body_i, g.bi.p, e.point_i, vec_scale(F, g.u), Q);
    add_point_force(e.body_j, g.bj.p, e.point_j, vec_scale(-F, g.u), Q);
    const double x = g.length - e.free_length;
    energy += 0.5 * e.stiffness * x * x;
    if (e.has_impact) energy += impact_energy(e.impact, e.free_length, g.length);
  }

  // RSDA: Q = -T dtheta/dq (theta has no r dependence; its p columns are B-matrix products).
  for (const Rsda& e : fe.rsda) {
    const RsdaGeometry g = rsda_geometry(e, q, v);
    const double T = rsda_torque(e, g.deflection, g.theta.rate, t);
    for (int c = 0; c < 7; ++c) {
      if (e.body_i != kGround) Q[7 * e.body_i + c] -= T * g.theta.jac_i(0, c);
      if (e.body_j != kGround) Q[7 * e.body_j + c] -= T * g.theta.jac_j(0, c);
    }
    energy += 0.5 * e.stiffness * g.deflection * g.deflection;
  }

  for (const BodyLoad& e : fe.loads) {
    if (e.body == kGround) continue;
    const Vec<4> p = body_state(q + 7 * e.body, v + 7 * e.body).p;
    const double s = e.scale.value(t);
    // Body-frame force turned with the unit p, so a drift of |p| off 1 does not scale it.
    const Vec<3> f = e.body_frame ? rotate(normalized(p), vec_scale(s, e.force)) : vec_scale(s, e.force);
    add_point_force(e.body, p, e.point, f, Q);
    const Vec<3> n = vec_scale(s, e.torque);
    add_p_force(e.body, e.body_frame ? body_torque_on_p(p, n) : torque_on_p(p, n), Q);
  }
  return energy;
}

}  // namespace catenary
