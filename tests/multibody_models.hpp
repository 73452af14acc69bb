#pragma once
// Models with rigid bodies for the multibody dynamics tests.
#include <string>
#include <vector>

#include "catenary/model/builders.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/model/reference_models.hpp"
#include "catenary/multibody/mechanism_builders.hpp"
#include "catenary/rigid/euler_parameters.hpp"
#include "test_helpers.hpp"

namespace catenary::testing {

inline Model empty_3d_model(double gravity_y) {
  Model m;
  m.dimension = 3;
  m.gravity[1] = gravity_y;
  return m;
}

// A compact body of the given mass on a massless arm of length L, hinged at the origin about z,
// released from rest at angle theta0 from the downward vertical (gravity -9.81 y).
inline Model rigid_pendulum(double L, double mass, double theta0) {
  Model m = empty_3d_model(-9.81);
  const Vec<3> z = vec3(0, 0, 1);
  m.mechanism.bodies.push_back(rigid_body_at_rest("bob", mass, vec3(0.01, 0.01, 0.01),
                                                  vec3(L * std::sin(theta0), -L * std::cos(theta0), 0),
                                                  rigid::from_axis_angle(z, theta0)));
  add_joint(m.mechanism, "pivot", rigid::JointType::Revolute, kGround, 0, Vec<3>::zero(), triad_from_axis(z));
  finalize_model(m);
  return m;
}


// Two bodies in a chain of spherical joints from the origin (gravity -9.81 y), started with
// spatial angular velocities: a spatial double pendulum.
inline Model spatial_double_pendulum() {
  Model m = empty_3d_model(-9.81);
  const Vec<4> identity = vec4(1, 0, 0, 0);
  const Vec<3> p1 = vec3(0.4, -0.3, 0.1), p2 = vec3(0.7, -0.7, -0.2);
  RigidBody upper =
      rigid_body_at_rest("upper", 1.5, vec3(0.02, 0.03, 0.012), vec_scale(0.5, p1), identity);
  RigidBody lower = rigid_body_at_rest("lower", 1.0, vec3(0.015, 0.01, 0.02),
                                       vec_scale(0.5, vec_add(p1, p2)), identity);
  upper.angular_velocity = vec3(0.5, 2.0, -1.0);
  upper.velocity = cross3(upper.angular_velocity, upper.position);
  lower.angular_velocity = vec3(-1.0, 1.0, 3.0);
  lower.velocity = vec_add(cross3(upper.angular_velocity, p1),
                                  cross3(lower.angular_velocity, vec_sub(lower.position, p1)));
  m.mechanism.bodies = {upper, lower};
  const Mat<3, 3> frame = triad_from_axis(vec3(0, 0, 1));
  add_joint(m.mechanism, "shoulder", rigid::JointType::Spherical, kGround, 0, Vec<3>::zero(), frame);
  add_joint(m.mechanism, "elbow", rigid::JointType::Spherical, 0, 1, p1, frame);
  finalize_model(m);
  return m;
}

// A symmetric top (I1 = I2 != I3 about its centre, symmetry axis body z) on a spherical joint at
// its tip at the origin, axis tilted by `tilt` from the vertical y, spinning at `spin` about its
// axis and precessing slowly about y.
inline Model spinning_top(double tilt, double spin) {
  Model m = empty_3d_model(-9.81);
  const double l = 0.1;  // tip to centre of mass
  const Vec<4> p = rigid::from_axis_angle(vec3(1, 0, 0), -(M_PI / 2 - tilt));  // body z toward the tilted axis
  const Vec<3> axis = rigid::rotate(p, vec3(0, 0, 1));
  RigidBody top = rigid_body_at_rest("top", 0.5, vec3(2e-3, 2e-3, 3e-3), vec_scale(l, axis), p);
  top.angular_velocity = vec_add(vec_scale(spin, axis), vec3(0, 1.0, 0));
  top.velocity = cross3(top.angular_velocity, top.position);
  m.mechanism.bodies = {top};
  add_joint(m.mechanism, "tip", rigid::JointType::Spherical, kGround, 0, Vec<3>::zero(), triad_from_axis(axis));
  finalize_model(m);
  return m;
}

// A 3D model (gravity -9.81 z) of one rope of `elements` elements from start to end, straight
// (EA 2e5 N, EI 2 N m^2, 0.6 kg/m).
inline Model rope_model(const Vec3& start, const Vec3& end, int elements) {
  Model m;
  m.dimension = 3;
  m.gravity[2] = -9.81;
  LineProperties rope;
  rope.EA = 2e5;
  rope.EI = 2.0;
  rope.rhoA = 0.6;
  add_straight_line(m, "rope", start, end, elements, rope);
  finalize_model(m);
  return m;
}

// A crane boom (rigid bar, 1 m, hinged at the origin about y, released horizontal along x) with
// a rope of `elements` elements hanging 1 m from its tip, its first node attached there with
// its slope free.
inline Model cable_hanging_from_boom(int elements) {
  Model m = rope_model({1.0, 0.0, 0.0}, {1.0, 0.0, -1.0}, elements);
  hang_first_line_from_boom(m, 5.0, 1.0, 0.01, Vec<3>::zero());
  return m;
}

// The boom model held by a rotational spring of stiffness k at its pivot.
inline Model sprung_boom_with_cable(int elements, double k) {
  Model m = cable_hanging_from_boom(elements);
  Rsda spring;
  spring.name = "pivot spring";
  spring.body_i = kGround;
  spring.body_j = 0;
  spring.marker_i = m.mechanism.joints[0].marker_i;
  spring.marker_j = m.mechanism.joints[0].marker_j;
  spring.stiffness = k;
  m.mechanism.forces.rsda.push_back(spring);
  return m;
}

// A sweep's batch (merge_models) of `copies` boom models, copy k's boom 1 + k / 2 times as heavy:
// each boom holds its own cable's first node.
inline Model crane_batch(int copies, int elements) {
  std::vector<Model> models;
  for (int k = 0; k < copies; ++k) {
    models.push_back(cable_hanging_from_boom(elements));
    models.back().mechanism.bodies[0].mass *= 1.0 + 0.5 * k;
  }
  return batch_of(models);
}

// Two cranes (crane_batch) whose cables' last nodes are joined by a hinge (3 rows over two nodes
// of different chains): each boom a block of its chain, the hinge's rows a border.
inline Model cranes_joined_at_the_hook(int elements) {
  Model m = crane_batch(2, elements);
  add_node_joint(m, elements, 2 * elements + 1, false, "revolute", "joined hooks", "/test");
  finalize_model(m);
  return m;
}

// A 1 m rope pinned at its first node, released horizontal, with a compact 2 kg rigid payload
// attached at its centre (position only) to its last node, and no joint of its own.
inline Model cable_with_payload(int elements) {
  Model m = rope_model({0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, elements);
  add_spherical_to_ground(m, 0, {0.0, 0.0, 0.0}, "pin", "/constraints/0");
  m.mechanism.bodies.push_back(rigid_body_at_rest("payload", 2.0, vec3(0.01, 0.01, 0.01), vec3(1.0, 0, 0),
                                                  vec4(1, 0, 0, 0)));
  Attachment hook;
  hook.name = "payload hook";
  hook.body = 0;
  hook.node = m.node_count - 1;
  m.mechanism.attachments.push_back(hook);
  finalize_model(m);
  return m;
}

// The boom model with `bars` more rigid bars, each hinged to the ground (7 coordinates and 6
// rows each, their normalizations included); with tied_to_boom, each bar's centre also pulls on
// the boom's through a spring (a TSDA), so that no body stands alone: borders of any size.
inline Model cable_on_boom_with_bars(int elements, int bars, bool tied_to_boom = false) {
  Model m = cable_hanging_from_boom(elements);
  for (int k = 0; k < bars; ++k) {
    const Vec<3> centre = vec3(-1.0 - k, 0, 0);
    m.mechanism.bodies.push_back(rigid_body_at_rest("bar " + std::to_string(k), 1.0, vec3(0.1, 0.1, 0.1), centre,
                                                    vec4(1, 0, 0, 0)));
    add_joint(m.mechanism, "hinge " + std::to_string(k), rigid::JointType::Revolute, kGround,
              static_cast<int>(m.mechanism.bodies.size()) - 1, centre, triad_from_axis(vec3(0, 1, 0)));
    if (!tied_to_boom) continue;
    Tsda spring;
    spring.name = "tie " + std::to_string(k);
    spring.body_i = 0;
    spring.body_j = static_cast<int>(m.mechanism.bodies.size()) - 1;
    spring.stiffness = 100.0;
    spring.free_length = 1.5 + k;
    m.mechanism.forces.tsda.push_back(spring);
  }
  finalize_model(m);
  return m;
}

// ground - k1 - m1 - k2 - m2 along x: two bodies on translational joints to the ground, two
// TSDAs of free length 1 m between the ground point 0, body 1 at x = 1 + x1 and body 2 at
// x = 2 + x2; no gravity.
inline Model two_mass_chain(double k1, double k2, double m1, double m2, double x1, double x2) {
  Model m = empty_3d_model(0.0);
  const Vec<4> identity = vec4(1, 0, 0, 0);
  m.mechanism.bodies.push_back(
      rigid_body_at_rest("m1", m1, vec3(0.01, 0.01, 0.01), vec3(1 + x1, 0, 0), identity));
  m.mechanism.bodies.push_back(
      rigid_body_at_rest("m2", m2, vec3(0.01, 0.01, 0.01), vec3(2 + x2, 0, 0), identity));
  const Mat<3, 3> along_x = triad_from_axis(vec3(1, 0, 0));
  add_joint(m.mechanism, "slide 1", rigid::JointType::Translational, kGround, 0, vec3(1 + x1, 0, 0), along_x);
  add_joint(m.mechanism, "slide 2", rigid::JointType::Translational, kGround, 1, vec3(2 + x2, 0, 0), along_x);
  Tsda s1;
  s1.name = "k1";
  s1.body_j = 0;
  s1.stiffness = k1;
  s1.free_length = 1.0;
  Tsda s2 = s1;
  s2.name = "k2";
  s2.body_i = 0;
  s2.body_j = 1;
  s2.stiffness = k2;
  m.mechanism.forces.tsda = {s1, s2};
  finalize_model(m);
  return m;
}


// f(t) = rate t: a linear ramp through t = 0 whose kinks lie outside any run.
inline TimeFunction constant_rate(double rate) {
  TimeFunction f;
  f.kind = TimeFunction::Kind::LinearRamp;
  f.t0 = -1.0;
  f.t1 = 100.0;
  f.v0 = -rate;
  f.v1 = rate * 100.0;
  return f;
}

// A slender bar along its body x axis, centre at `centre`, turned by `angle` about z.
inline RigidBody planar_bar(const std::string& name, double mass, double length, const Vec<3>& centre, double angle) {
  return rigid_body_at_rest(
      name, mass, vec3(0.5 * mass * 1e-4, mass * length * length / 12.0, mass * length * length / 12.0), centre,
      rigid::from_axis_angle(vec3(0, 0, 1), angle));
}

// Slider-crank in the x-y plane (crank r about the origin, rod L, slider on the x axis) with the
// crank driven at omega from theta0, joints chosen without redundant rows: revolute, spherical,
// universal, translational; no gravity.
inline Model driven_slider_crank(double r, double L, double theta0, double omega) {
  Model m = empty_3d_model(0.0);
  Mechanism& mech = m.mechanism;
  const Vec<3> z = vec3(0, 0, 1);
  const Vec<3> A = vec3(r * std::cos(theta0), r * std::sin(theta0), 0);
  const double xB = r * std::cos(theta0) + std::sqrt(L * L - r * r * std::sin(theta0) * std::sin(theta0));
  const Vec<3> B = vec3(xB, 0, 0), u = vec_scale(1.0 / L, vec_sub(B, A));
  mech.bodies.push_back(planar_bar("crank", 1.0, r, vec_scale(0.5, A), theta0));
  mech.bodies.push_back(planar_bar("rod", 2.0, L, vec_scale(0.5, vec_add(A, B)), std::atan2(u[1], u[0])));
  mech.bodies.push_back(planar_bar("slider", 1.5, 0.1, B, 0.0));
  add_joint(mech, "crank pivot", rigid::JointType::Revolute, kGround, 0, Vec<3>::zero(), triad_from_axis(z));
  add_joint(mech, "crank pin", rigid::JointType::Spherical, 0, 1, A, triad_from_axis(z));
  add_joint(mech, "wrist pin", rigid::JointType::Universal, 1, 2, B, triad(cross3(z, u), z, u));
  add_joint(mech, "slide", rigid::JointType::Translational, kGround, 2, B,
            triad(vec3(0, 1, 0), z, vec3(1, 0, 0)));
  mech.drivers.push_back({"crank speed", Driver::Kind::Rotation, 0, constant_rate(omega)});
  finalize_model(m);
  return m;
}


// B of a four-bar (ground pivots O2 = 0, O4 = (d, 0); crank a at theta2, coupler b, rocker c):
// the upper intersection of the circles |B - A| = b and |B - O4| = c.
inline Vec<3> four_bar_joint_b(double a, double b, double c, double d, double theta2) {
  const Vec<3> z = vec3(0, 0, 1);
  const Vec<3> A = vec3(a * std::cos(theta2), a * std::sin(theta2), 0), O4 = vec3(d, 0, 0);
  const Vec<3> AO = vec_sub(O4, A);
  const double e = vec_norm(AO), along = (b * b - c * c + e * e) / (2 * e), across = std::sqrt(b * b - along * along);
  const Vec<3> ua = vec_scale(1.0 / e, AO), perp = cross3(z, ua);
  return vec_add(A, vec_add(vec_scale(along, ua), vec_scale(across, perp)));
}

// That four-bar assembled at theta2: revolute, spherical, universal, revolute (no redundant rows).
inline Mechanism four_bar(double a, double b, double c, double d, double theta2) {
  const Vec<3> z = vec3(0, 0, 1);
  const Vec<3> A = vec3(a * std::cos(theta2), a * std::sin(theta2), 0), O4 = vec3(d, 0, 0);
  const Vec<3> B = four_bar_joint_b(a, b, c, d, theta2);
  const Vec<3> uc = vec_scale(1.0 / b, vec_sub(B, A)), ur = vec_scale(1.0 / c, vec_sub(B, O4));
  Mechanism m;
  m.bodies.push_back(planar_bar("crank", 1.0, a, vec_scale(0.5, A), theta2));
  m.bodies.push_back(planar_bar("coupler", 1.0, b, vec_scale(0.5, vec_add(A, B)), std::atan2(uc[1], uc[0])));
  m.bodies.push_back(planar_bar("rocker", 1.0, c, vec_scale(0.5, vec_add(O4, B)), std::atan2(ur[1], ur[0])));
  add_joint(m, "crank pivot", rigid::JointType::Revolute, kGround, 0, Vec<3>::zero(), triad_from_axis(z));
  add_joint(m, "crank pin", rigid::JointType::Spherical, 0, 1, A, triad_from_axis(z));
  add_joint(m, "rocker pin", rigid::JointType::Universal, 1, 2, B, triad(cross3(z, uc), z, uc));
  add_joint(m, "rocker pivot", rigid::JointType::Revolute, kGround, 2, O4, triad_from_axis(z));
  return m;
}

}  // namespace catenary::testing
