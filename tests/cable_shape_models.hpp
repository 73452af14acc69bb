#pragma once
// Models of the tests of cables touching rigid bodies' shapes: the Atwood machine with a massive
// sheave, and a ball dropped on a pinned cable.
#include <cmath>
#include <string>

#include "catenary/model/builders.hpp"
#include "catenary/multibody/mechanism_builders.hpp"
#include "catenary/multibody/rigid_contact_builders.hpp"
#include "contact_models.hpp"

namespace catenary::testing {

// A solid ball of radius r and mass m at rest at x (principal inertia 2/5 m r^2).
inline RigidBody ball_body(const std::string& name, double mass, double r, const Vec<3>& x) {
  const double I = 0.4 * mass * r * r;
  return rigid_body_at_rest(name, mass, vec3(I, I, I), x, vec4(1, 0, 0, 0));
}

// The Atwood machine with a massive sheave: a rope (EA = 1e6 N, EI = 1e-3 N m^2, 0.1 kg/m, 60
// elements, tube radius 0.01 m) over a sheave, a rigid cylinder of radius 0.5 m, 0.1 m wide and
// 2 kg (J = 0.25 kg m^2 about its axle) turning freely on a revolute joint about y at the origin;
// legs of 1.5 m hang on either side, the left one carrying a ball of m1, the right one of m2
// (attached at their centres to the rope's end nodes), gravity -z. The rope lies on the tread
// (Hertz, K = 1e8 N/m^2.5) with friction mu (regularized at 1e-2 m/s). Starts at rest.
struct AtwoodSheave {
  static constexpr double kRadius = 0.5, kTube = 0.01, kLeg = 1.5, kSheaveMass = 2.0, kRopeMass = 0.1;
  static double pitch_radius() { return kRadius + kTube; }
  static double inertia() { return 0.5 * kSheaveMass * kRadius * kRadius; }
  static double rope_length() { return 2.0 * kLeg + M_PI * pitch_radius(); }
};

inline Model atwood_sheave(double m1, double m2, double mu) {
  const double Rw = AtwoodSheave::pitch_radius(), leg = AtwoodSheave::kLeg, L = AtwoodSheave::rope_length();
  const int elements = 60;
  Model m;
  m.dimension = 3;
  m.gravity[2] = -9.81;
  const int rope = add_straight_line(m, "rope", {0, 0, 0}, {L, 0, 0}, elements, {1e6, 1e-3, AtwoodSheave::kRopeMass, 0.0});
  const double a = AtwoodSheave::kRadius, width = 0.1, Ms = AtwoodSheave::kSheaveMass;
  const double across = Ms * (3.0 * a * a + width * width) / 12.0;
  m.mechanism.bodies.push_back(rigid_body_at_rest("sheave", Ms, vec3(across, AtwoodSheave::inertia(), across),
                                                  Vec<3>::zero(), vec4(1, 0, 0, 0)));
  add_joint(m.mechanism, "axle", rigid::JointType::Revolute, kGround, 0, Vec<3>::zero(), triad_from_axis(vec3(0, 1, 0)));
  RigidShape tread;
  tread.name = "tread";
  tread.body = 0;
  tread.kind = ShapeKind::cylinder;
  tread.radius = a;
  tread.length = width;
  tread.frame = rigid::marker_from_axis(Vec<3>::zero(), vec3(0, 1, 0));
  const int shape = add_rigid_shape(m.mechanism, tread);
  m.mechanism.bodies.push_back(ball_body("left weight", m1, 0.05, vec3(-Rw, 0, -leg)));
  m.mechanism.bodies.push_back(ball_body("right weight", m2, 0.05, vec3(Rw, 0, -leg)));
  for (int side = 0; side < 2; ++side) {
    Attachment hook;
    hook.name = side == 0 ? "left hook" : "right hook";
    hook.body = 1 + side;
    hook.node = side == 0 ? 0 : elements;
    m.mechanism.attachments.push_back(hook);
  }
  CableShapeContact contact;
  contact.name = "rope on sheave";
  contact.body = 0;
  contact.shapes = {shape};
  contact.radius = AtwoodSheave::kTube;
  contact.law = {1e8, 1.5, 0.0, 0.0};
  contact.friction_axial = contact.friction_lateral = mu;
  contact.slip_velocity = 1e-2;
  add_cable_shape_contact(m, contact, {rope});
  finalize_model(m);
  drape_over_drum(m, elements, Rw, leg);
  return m;
}

// A ball (radius 0.1 m, 1 kg) `drop` m above a horizontal cable of 2 m (EA = 1e4 N, EI = 0.1 N
// m^2, 0.5 kg/m, 40 elements, tube radius 5 mm) pinned at both ends, gravity -z; Hertz contact
// (K = 1e7 N/m^2.5), no damping, no friction: nothing dissipates.
inline Model ball_on_cable(double drop) {
  Model m;
  m.dimension = 3;
  m.gravity[2] = -9.81;
  const int cable = add_straight_line(m, "cable", {-1, 0, 0}, {1, 0, 0}, 40, {1e4, 0.1, 0.5, 0.0});
  add_spherical_to_ground(m, 0, {-1, 0, 0}, "left pin", "");
  add_spherical_to_ground(m, 40, {1, 0, 0}, "right pin", "");
  const double radius = 0.1, tube = 0.005;
  m.mechanism.bodies.push_back(ball_body("ball", 1.0, radius, vec3(0.0, 0, radius + tube + drop)));
  RigidShape surface;
  surface.name = "ball surface";
  surface.body = 0;
  surface.kind = ShapeKind::sphere;
  surface.radius = radius;
  surface.frame = rigid::marker_from_axis(Vec<3>::zero(), vec3(0, 0, 1));
  CableShapeContact contact;
  contact.name = "ball on cable";
  contact.body = 0;
  contact.shapes = {add_rigid_shape(m.mechanism, surface)};
  contact.radius = tube;
  contact.law = {1e7, 1.5, 0.0, 0.0};
  add_cable_shape_contact(m, contact, {cable});
  finalize_model(m);
  return m;
}

}  // namespace catenary::testing
