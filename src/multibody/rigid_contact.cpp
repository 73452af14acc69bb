// Contact of rigid bodies (see include/catenary/multibody/rigid_contact.hpp).
#include "catenary/multibody/rigid_contact.hpp"

#include <cmath>

#include "catenary/core/time_function.hpp"
#include "catenary/rigid/constraint_primitives.hpp"
#include "catenary/rigid/euler_parameters.hpp"
#include "body_load.hpp"

namespace catenary {
namespace {

using namespace rigid;

// The regularized sign of a speed x: STEP(x, -v_s, -1, v_s, 1), odd, and +-1 beyond v_s.
double regularized_unit(double x, double v_s) { return smooth_step(x, -v_s, -1.0, v_s, 1.0); }

// mu(u) at the slip speed u >= 0: 0 at rest, mu_s at v_s, mu_d from v_d on.
double friction_coefficient(const RigidFriction& f, double u) {
  if (u < f.stiction_velocity) return f.static_coefficient * regularized_unit(u, f.stiction_velocity);
  return smooth_step(u, f.stiction_velocity, f.static_coefficient, f.transition_velocity, f.dynamic_coefficient);
}

BodyState state_of(int body, const double* q, const double* v) {
  return body == kGround ? ground_state() : body_state(q + 7 * body, v + 7 * body);
}

// The ground-frame unit vector of a body-frame axis.
Vec<3> normalized_axis(const rigid::BodyState& b, const Vec<3>& body_axis) {
  const Vec<3> a = rotate(b.p, body_axis);
  return vec_scale(1.0 / vec_norm(a), a);
}

// Fills the velocities of point c at ground point c.point between bodies i and j.
void set_rates(const BodyState& bi, const BodyState& bj, RigidContactPoint& c) {
  const Vec<3> relative = vec_sub(material_velocity(bj, c.point), material_velocity(bi, c.point));
  c.gap_rate = dot(c.normal, relative);
  c.slip = vec_sub(relative, vec_scale(c.gap_rate, c.normal));
  c.spin = vec_sub(angular_velocity(bj.p, bj.pd), angular_velocity(bi.p, bi.pd));
}

// The points of a shape against a plane through `origin` with unit normal n.
void shape_points(const RigidShape& s, const BodyState& b, const Vec<3>& n, const Vec<3>& origin,
                  std::vector<RigidContactPoint>& out) {
  const Vec<3> centre = vec_add(b.r, rotate(b.p, s.frame.s));
  const auto add = [&](const Vec<3>& surface_point, double rolling_radius) {
    RigidContactPoint c;
    c.point = surface_point;
    c.normal = n;
    c.gap = dot(n, vec_sub(surface_point, origin));
    c.rolling_radius = rolling_radius;
    set_rates(ground_state(), b, c);
    out.push_back(c);
  };
  // A sphere of radius R at x touches the plane at x - R n.
  const auto sphere = [&](const Vec<3>& x) { add(vec_sub(x, vec_scale(s.radius, n)), s.radius); };
  const Vec<3> axis = normalized_axis(b, s.frame.h);
  switch (s.kind) {
    case ShapeKind::sphere: sphere(centre); break;
    case ShapeKind::capsule:
      for (double side : {-0.5, 0.5}) sphere(vec_add(centre, vec_scale(side * s.length, axis)));
      break;
    case ShapeKind::cylinder: {
      // Each end circle touches at its point furthest along -n: x - R w, w the unit part of n
      // normal to the axis. A cylinder standing on an end face (n along the axis) has no such
      // point; w = 0 then takes the face's centre, which is as low as its rim.
      Vec<3> w = vec_sub(n, vec_scale(dot(n, axis), axis));
      const double wn = vec_norm(w);
      w = wn > 1e-9 ? vec_scale(1.0 / wn, w) : Vec<3>::zero();
      for (double side : {-0.5, 0.5})
        add(vec_sub(vec_add(centre, vec_scale(side * s.length, axis)), vec_scale(s.radius, w)), s.radius);
      break;
    }
    case ShapeKind::box:
      for (int corner = 0; corner < 8; ++corner) {
        Vec<3> local = s.frame.s;
        const Vec<3>* axes[3] = {&s.frame.f, &s.frame.g, &s.frame.h};
        for (int k = 0; k < 3; ++k)
          local = vec_add(local, vec_scale(((corner >> k) & 1 ? 0.5 : -0.5) * s.size[k], *axes[k]));
        add(vec_add(b.r, rotate(b.p, local)), 0.0);
      }
      break;
  }
}

// The points of a clearance joint (see ClearanceJoint).
void clearance_points(const ClearanceJoint& cj, const BodyState& bi, const BodyState& bj,
                      std::vector<RigidContactPoint>& out) {
  const Vec<3> bearing = vec_add(bi.r, rotate(bi.p, cj.marker_i.s));
  const Vec<3> axis_i = normalized_axis(bi, cj.marker_i.h), axis_j = normalized_axis(bj, cj.marker_j.h);
  const Vec<3> journal = vec_add(bj.r, rotate(bj.p, cj.marker_j.s));
  const int points = cj.point_count();
  for (int k = 0; k < points; ++k) {
    const double side = points == 1 ? 0.0 : (k == 0 ? -0.5 : 0.5);
    const Vec<3> centre = vec_add(journal, vec_scale(side * cj.length, axis_j));
    Vec<3> e = vec_sub(centre, bearing);
    if (cj.kind == ClearanceJoint::Kind::revolute) e = vec_sub(e, vec_scale(dot(e, axis_i), axis_i));
    const double eccentricity = vec_norm(e);
    RigidContactPoint c;
    c.weight = 1.0 / points;
    c.gap = cj.clearance() - eccentricity;
    // Centred journal: no direction, and (the clearance being positive) no contact either.
    const Vec<3> outward = eccentricity > 0.0 ? vec_scale(1.0 / eccentricity, e) : Vec<3>::zero();
    c.normal = vec_scale(-1.0, outward);
    c.point = vec_add(centre, vec_scale(cj.journal_radius, outward));
    set_rates(bi, bj, c);
    out.push_back(c);
  }
}

}  // namespace

int shape_point_count(const RigidShape& s) {
  switch (s.kind) {
    case ShapeKind::sphere: return 1;
    case ShapeKind::capsule:
    case ShapeKind::cylinder: return 2;
    case ShapeKind::box: return 8;
  }
  return 0;
}

const RigidContactLaw& RigidContacts::law(int c) const {
  const int np = static_cast<int>(planes.size());
  return c < np ? planes[c].law : clearance_joints[c - np].law;
}
const std::string& RigidContacts::name(int c) const {
  const int np = static_cast<int>(planes.size());
  return c < np ? planes[c].name : clearance_joints[c - np].name;
}
int RigidContacts::body_i(int c) const {
  const int np = static_cast<int>(planes.size());
  return c < np ? kGround : clearance_joints[c - np].body_i;
}
int RigidContacts::body_j(int c) const {
  const int np = static_cast<int>(planes.size());
  return c < np ? shapes[planes[c].shape].body : clearance_joints[c - np].body_j;
}
int RigidContacts::point_count(int c) const {
  const int np = static_cast<int>(planes.size());
  return c < np ? shape_point_count(shapes[planes[c].shape]) : clearance_joints[c - np].point_count();
}
bool RigidContacts::any_impact() const {
  for (int c = 0; c < count(); ++c)
    if (law(c).impact()) return true;
  return false;
}

std::vector<RigidContactPoint> rigid_contact_points(const RigidContacts& rc, int contact, const double* q,
                                                    const double* v) {
  std::vector<RigidContactPoint> out;
  const int np = static_cast<int>(rc.planes.size());
  if (contact < np) {
    const PlaneContact& pc = rc.planes[contact];
    const RigidShape& s = rc.shapes[pc.shape];
    shape_points(s, state_of(s.body, q, v), pc.normal, pc.point, out);
  } else {
    const ClearanceJoint& cj = rc.clearance_joints[contact - np];
    clearance_points(cj, state_of(cj.body_i, q, v), state_of(cj.body_j, q, v), out);
  }
  return out;
}

RigidContactForce rigid_contact_force(const RigidContactLaw& law, const RigidContactPoint& p) {
  RigidContactForce out;
  if (!(p.gap < 0.0)) return out;
  const double delta = -p.gap;
  out.normal = p.weight * contact_normal_force(law.law, delta, -p.gap_rate).value;
  out.energy = p.weight * contact_energy_density(law.law, delta);
  const RigidFriction& f = law.friction;
  if (out.normal == 0.0 || !f.any()) return out;
  const double v_s = f.stiction_velocity;
  const double u = vec_norm(p.slip);
  if (u > 0.0) out.friction = vec_scale(-friction_coefficient(f, u) * out.normal / u, p.slip);
  if (p.rolling_radius > 0.0) {
    const double spin_n = dot(p.spin, p.normal);
    const Vec<3> rolling = vec_sub(p.spin, vec_scale(spin_n, p.normal));
    const double w = vec_norm(rolling);
    if (f.rolling > 0.0 && w > 0.0)
      out.torque = vec_scale(-f.rolling * out.normal * regularized_unit(p.rolling_radius * w, v_s) / w, rolling);
    if (f.spinning > 0.0)
      out.torque = vec_sub(out.torque, vec_scale(f.spinning * out.normal * regularized_unit(p.rolling_radius * spin_n, v_s),
                                                 p.normal));
  }
  return out;
}

Vec<3> material_velocity(const BodyState& b, const Vec<3>& x) {
  return vec_add(b.rd, cross3(angular_velocity(b.p, b.pd), vec_sub(x, b.r)));
}

// s' solves A(p) s' = x - r, A = |p|^2 times a rotation.
void add_body_load(int body, const double* q, const Vec<3>& x, const Vec<3>& f, const Vec<3>& n, double* Q) {
  if (body == kGround) return;
  const double* qb = q + 7 * body;
  const Vec<3> r = vec3(qb[0], qb[1], qb[2]);
  const Vec<4> p = vec4(qb[3], qb[4], qb[5], qb[6]);
  const double pp = dot(p, p);
  const Vec<3> s = vec_scale(1.0 / (pp * pp), rotate_back(p, vec_sub(x, r)));
  const Vec<4> qp = vec_add(point_force_on_p(p, s, f), torque_on_p(p, n));
  double* Qb = Q + 7 * body;
  for (int k = 0; k < 3; ++k) Qb[k] += f[k];
  for (int k = 0; k < 4; ++k) Qb[3 + k] += qp[k];
}

double add_rigid_contact_forces(const RigidContacts& rc, const double* q, const double* v, double* Q) {
  double energy = 0.0;
  for (int c = 0; c < rc.count(); ++c) {
    const RigidContactLaw& law = rc.law(c);
    for (const RigidContactPoint& p : rigid_contact_points(rc, c, q, v)) {
      const RigidContactForce F = rigid_contact_force(law, p);
      if (F.normal == 0.0) continue;
      const Vec<3> force = vec_add(vec_scale(F.normal, p.normal), F.friction);
      add_body_load(rc.body_j(c), q, p.point, force, F.torque, Q);
      add_body_load(rc.body_i(c), q, p.point, vec_scale(-1.0, force), vec_scale(-1.0, F.torque), Q);
      energy += F.energy;
    }
  }
  return energy;
}

}  // namespace catenary
