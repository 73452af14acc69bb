#pragma once
// Models of the rigid contact tests: a ball over a plane, a box on a plane under tilted gravity
// (an incline), and a slider-crank whose wrist pin has clearance.
#include <cmath>
#include <string>

#include "catenary/multibody/rigid_contact_builders.hpp"
#include "multibody_models.hpp"

namespace catenary::testing {

constexpr double kGravity = 9.81;

// A solid ball (radius R, mass m, I = 2/5 m R^2) with its lowest point `height` above the plane
// z = 0, gravity -z; `law` for its contact with the plane.
inline Model ball_over_plane(double R, double mass, double height, const RigidContactLaw& law,
                             const Vec<3>& velocity = Vec<3>::zero(), const Vec<3>& angular_velocity = Vec<3>::zero()) {
  Model m;
  m.dimension = 3;
  m.gravity[2] = -kGravity;
  const double I = 0.4 * mass * R * R;
  RigidBody ball = rigid_body_at_rest("ball", mass, vec3(I, I, I), vec3(0, 0, R + height), vec4(1, 0, 0, 0));
  ball.velocity = velocity;
  ball.angular_velocity = angular_velocity;
  m.mechanism.bodies.push_back(ball);
  RigidShape s;
  s.name = "ball surface";
  s.body = 0;
  s.kind = ShapeKind::sphere;
  s.radius = R;
  s.frame = rigid::marker_from_axis(Vec<3>::zero(), vec3(0, 0, 1));
  const int shape = add_rigid_shape(m.mechanism, s);
  add_plane_contact(m.mechanism, "floor", shape, vec3(0, 0, 1), Vec<3>::zero(), law);
  finalize_model(m);
  return m;
}

// A box (edges 0.2 x 0.2 x 0.1 m, 1 kg) resting on its four lower corners on the plane z = 0 (the
// corners sunk to the law's static penetration), gravity g (sin theta, 0, -cos theta): the plane
// is an incline of angle theta down +x.
inline Model box_on_incline(double theta, const RigidContactLaw& law) {
  Model m;
  m.dimension = 3;
  m.gravity[0] = kGravity * std::sin(theta);
  m.gravity[2] = -kGravity * std::cos(theta);
  const double mass = 1.0, a = 0.2, c = 0.1;
  const double sink = std::pow(mass * kGravity * std::cos(theta) / (4.0 * law.law.stiffness), 1.0 / law.law.exponent);
  m.mechanism.bodies.push_back(rigid_body_at_rest("block", mass,
                                                  vec3(mass * (a * a + c * c) / 12.0, mass * (a * a + c * c) / 12.0,
                                                       mass * 2.0 * a * a / 12.0),
                                                  vec3(0, 0, 0.5 * c - sink), vec4(1, 0, 0, 0)));
  RigidShape s;
  s.name = "block surface";
  s.body = 0;
  s.kind = ShapeKind::box;
  s.size = vec3(a, a, c);
  s.frame.s = Vec<3>::zero();
  s.frame.f = vec3(1, 0, 0);
  s.frame.g = vec3(0, 1, 0);
  s.frame.h = vec3(0, 0, 1);
  const int shape = add_rigid_shape(m.mechanism, s);
  add_plane_contact(m.mechanism, "incline", shape, vec3(0, 0, 1), Vec<3>::zero(), law);
  finalize_model(m);
  return m;
}

// A slider-crank in the x-y plane (crank r = 0.05 m about the origin, rod L = 0.12 m, slider on
// the x axis; the bars of driven_slider_crank, no gravity), the crank driven at omega from
// theta = 0, whose wrist pin between rod and slider has the given radial clearance (journal
// radius 10 mm, bearing in the slider) and law. The crank pin is revolute, so the rod turns in the
// plane about it and the clearance is the one free play.
inline Model slider_crank_with_clearance(double clearance, const RigidContactLaw& law, double omega) {
  const double r = 0.05, L = 0.12;
  Model m = empty_3d_model(0.0);
  Mechanism& mech = m.mechanism;
  const Vec<3> z = vec3(0, 0, 1), A = vec3(r, 0, 0), B = vec3(r + L, 0, 0);
  mech.bodies.push_back(planar_bar("crank", 1.0, r, vec_scale(0.5, A), 0.0));
  mech.bodies.push_back(planar_bar("rod", 2.0, L, vec_scale(0.5, vec_add(A, B)), 0.0));
  mech.bodies.push_back(planar_bar("slider", 1.5, 0.1, B, 0.0));
  add_joint(mech, "crank pivot", rigid::JointType::Revolute, kGround, 0, Vec<3>::zero(), triad_from_axis(z));
  add_joint(mech, "crank pin", rigid::JointType::Revolute, 0, 1, A, triad_from_axis(z));
  add_joint(mech, "slide", rigid::JointType::Translational, kGround, 2, B, triad(vec3(0, 1, 0), z, vec3(1, 0, 0)));
  mech.drivers.push_back({"crank speed", Driver::Kind::Rotation, 0, constant_rate(omega)});
  add_clearance_joint(mech, "wrist pin", ClearanceJoint::Kind::revolute, 2, 1, B, z, 0.01 + clearance, 0.01, 0.0, law);
  finalize_model(m);
  return m;
}

}  // namespace catenary::testing
