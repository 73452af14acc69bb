// Rigid mechanisms without an integrator: kinematic analysis of driven (zero-DOF) mechanisms
// against closed-form kinematics, inverse dynamics against the closed-form driver torque and pin
// force, and the checks of the constraint Jacobian. (Assembly of deliberately inconsistent
// positions and velocities is the consistent initial state's: test_multibody_dynamics.cpp.)
#include <catch2/catch.hpp>

#include <cmath>

#include "catenary/core/errors.hpp"
#include "catenary/multibody/kinematic_analysis.hpp"
#include "catenary/multibody/mechanism_builders.hpp"
#include "catenary/rigid/euler_parameters.hpp"
#include "multibody_models.hpp"

using namespace catenary;
using catenary::testing::constant_rate;
using catenary::testing::driven_slider_crank;
using catenary::testing::four_bar;
using catenary::testing::four_bar_joint_b;
using catenary::testing::planar_bar;

namespace {

const Vec<3> kZ = vec3(0, 0, 1);

const Mat<3, 3> kPlane = triad(vec3(1, 0, 0), vec3(0, 1, 0), kZ);  // joint axis z

}  // namespace

TEST_CASE("driven slider-crank follows the closed-form kinematics", "[multibody][kinematics]") {
  // Crank r about the origin, rod L, slider on the x axis; spatial joints chosen so that the
  // planar mechanism has no redundant rows: revolute, spherical, universal, translational.
  const double r = 0.2, L = 0.6, theta0 = M_PI / 6, omega = 2 * M_PI;
  const Mechanism m = driven_slider_crank(r, L, theta0, omega).mechanism;
  REQUIRE(m.row_count() == m.coordinate_count());

  const std::vector<KinematicFrame> frames = run_kinematics(m, Vec<3>::zero(), 1.0, 0.01);
  REQUIRE(frames.size() == 101);
  // From the second-order predictor, each step's positions take a Newton iteration or two.
  for (size_t k = 1; k < frames.size(); ++k) CHECK((frames[k].iterations >= 1 && frames[k].iterations <= 3));
  double worst_x = 0, worst_v = 0, worst_a = 0;
  for (const KinematicFrame& f : frames) {
    const double th = theta0 + omega * f.t, s = std::sin(th), c = std::cos(th);
    const double root = std::sqrt(L * L - r * r * s * s);
    const double x = r * c + root;
    const double dx = -r * s - r * r * s * c / root;
    const double ddx = -r * c - r * r * (c * c - s * s) / root - std::pow(r, 4) * s * s * c * c / std::pow(root, 3);
    worst_x = std::max(worst_x, std::fabs(f.q[14] - x));
    worst_v = std::max(worst_v, std::fabs(f.v[14] - omega * dx));
    worst_a = std::max(worst_a, std::fabs(f.a[14] - omega * omega * ddx));
  }
  INFO("slider errors: position " << worst_x << " m, velocity " << worst_v << " m/s, acceleration " << worst_a);
  CHECK(worst_x < 1e-12);
  CHECK(worst_v < 1e-10);
  CHECK(worst_a < 1e-8);
}

TEST_CASE("inverse dynamics of a driven pendulum gives the closed-form torque and pin force",
          "[multibody][kinematics]") {
  const double l = 1.0, mass = 2.0, g = 9.81;
  Mechanism m;
  const Vec<3> gravity = vec3(0, -g, 0);
  m.bodies.push_back(planar_bar("arm", mass, l, vec3(l / 2, 0, 0), 0.0));
  add_joint(m, "pivot", rigid::JointType::Revolute, kGround, 0, Vec<3>::zero(), kPlane);
  TimeFunction swing;
  swing.kind = TimeFunction::Kind::Harmonic;
  swing.amplitude = 0.8;
  swing.frequency = 0.5;
  m.drivers.push_back({"motor", Driver::Kind::Rotation, 0, swing});
  const std::vector<KinematicFrame> frames = run_kinematics(m, gravity, 2.0, 0.01);
  const double I_O = m.bodies[0].inertia(2, 2) + mass * l * l / 4;
  double worst_torque = 0, worst_force = 0;
  for (const KinematicFrame& f : frames) {
    const double th = swing.value(f.t), thd = swing.first_derivative(f.t), thdd = swing.second_derivative(f.t);
    // The driver row's generalized force is -lambda along the angle: the motor torque.
    const double torque = I_O * thdd + mass * g * (l / 2) * std::cos(th);
    worst_torque = std::max(worst_torque, std::fabs(-f.lambda[m.driver_row(0)] - torque));
    // Pin force on the arm: m (a_cm - g), a_cm = (l/2) (thdd (-sin, cos) - thd^2 (cos, sin)).
    const JointReaction pin = joint_reaction(m, 0, f.q, f.lambda);
    const double ax = (l / 2) * (-thdd * std::sin(th) - thd * thd * std::cos(th));
    const double ay = (l / 2) * (thdd * std::cos(th) - thd * thd * std::sin(th));
    worst_force = std::max({worst_force, std::fabs(pin.force[0] - mass * ax), std::fabs(pin.force[1] - mass * (ay + g)),
                            std::fabs(pin.force[2])});
  }
  INFO("largest torque error " << worst_torque << " N m, pin force error " << worst_force << " N");
  CHECK(worst_torque < 1e-8);
  CHECK(worst_force < 1e-8);
}

TEST_CASE("kinematic analysis refuses a mechanism that is not fully driven", "[multibody][kinematics]") {
  Mechanism m;
  m.bodies.push_back(planar_bar("arm", 1.0, 1.0, vec3(0.5, 0, 0), 0.0));
  add_joint(m, "pivot", rigid::JointType::Revolute, kGround, 0, Vec<3>::zero(), kPlane);
  CHECK_THROWS_AS(run_kinematics(m, Vec<3>::zero(), 1.0, 0.1), ModelError);
}

TEST_CASE("redundant joints are found before the run and named", "[multibody][kinematics]") {
  // A planar four-bar made of four revolute joints: 20 joint rows, 3 normalization rows and a
  // driver for 21 coordinates; the out-of-plane conditions repeat each other.
  const double a = 0.3, b = 0.9, c = 0.8, d = 1.0;
  Mechanism m;
  // A consistent square-ish configuration: crank straight up from O2, coupler horizontal.
  const Vec<3> A = vec3(0, a, 0), O4 = vec3(d, 0, 0);
  const double h = std::sqrt(c * c - (d - b) * (d - b));
  const Vec<3> B = vec3(b, h, 0);
  m.bodies.push_back(planar_bar("crank", 1.0, a, vec_scale(0.5, A), M_PI / 2));
  const Vec<3> AB = vec_sub(B, A), O4B = vec_sub(B, O4);
  m.bodies.push_back(planar_bar("coupler", 1.0, vec_norm(AB), vec_scale(0.5, vec_add(A, B)),
                         std::atan2(AB[1], AB[0])));
  m.bodies.push_back(planar_bar("rocker", 1.0, c, vec_scale(0.5, vec_add(O4, B)), std::atan2(O4B[1], O4B[0])));
  add_joint(m, "O2", rigid::JointType::Revolute, kGround, 0, Vec<3>::zero(), kPlane);
  add_joint(m, "A", rigid::JointType::Revolute, 0, 1, A, kPlane);
  add_joint(m, "B", rigid::JointType::Revolute, 1, 2, B, kPlane);
  add_joint(m, "O4", rigid::JointType::Revolute, kGround, 2, O4, kPlane);
  m.drivers.push_back({"crank", Driver::Kind::Rotation, 0, constant_rate(1.0)});
  try {
    run_kinematics(m, Vec<3>::zero(), 0.1, 0.01);
    FAIL("the redundant four-bar was accepted");
  } catch (const ModelError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("is redundant") != std::string::npos);
    CHECK(what.find("joint 'O4'") != std::string::npos);  // the loop closes at the last joint
    CHECK(what.find("joint 'O2'") != std::string::npos);
  }
}

TEST_CASE("driven four-bar follows the closed-form kinematics", "[multibody][kinematics]") {
  const double a = 0.3, b = 0.9, c = 0.8, d = 1.0, theta0 = M_PI / 3, omega = 2.0;
  Mechanism m = four_bar(a, b, c, d, theta0);
  m.drivers.push_back({"crank speed", Driver::Kind::Rotation, 0, constant_rate(omega)});
  REQUIRE(m.row_count() == m.coordinate_count());
  // Closed form: the rocker angle from B; its rate and acceleration by central differences in time
  // of that closed form (step 1e-4 s: truncation about 1e-8 rad/s and 1e-7 rad/s^2).
  auto rocker_angle = [&](double t) {
    const Vec<3> B = four_bar_joint_b(a, b, c, d, theta0 + omega * t);
    return std::atan2(B[1], B[0] - d);
  };
  const std::vector<KinematicFrame> frames = run_kinematics(m, Vec<3>::zero(), 1.0, 0.02);
  REQUIRE(frames.size() == 51);
  const double dt = 1e-4;
  double worst_angle = 0, worst_rate = 0, worst_acceleration = 0;
  for (const KinematicFrame& f : frames) {
    const rigid::BodyState rocker = rigid::body_state(f.q.data() + 14, f.v.data() + 14);
    const Vec<3> axis = rigid::rotate(rocker.p, vec3(1, 0, 0));
    Vec<4> pdd;
    for (int k = 0; k < 4; ++k) pdd[k] = f.a[14 + 3 + k];
    const double angle = std::atan2(axis[1], axis[0]);
    const double rate = rigid::angular_velocity(rocker.p, rocker.pd)[2];
    const double acceleration = rigid::angular_velocity(rocker.p, pdd)[2];  // 2 E p'' (E' p' = 0)
    const double t = f.t, th = rocker_angle(t), thp = rocker_angle(t + dt), thm = rocker_angle(t - dt);
    worst_angle = std::max(worst_angle, std::fabs(angle - th));
    worst_rate = std::max(worst_rate, std::fabs(rate - (thp - thm) / (2 * dt)));
    worst_acceleration = std::max(worst_acceleration, std::fabs(acceleration - (thp - 2 * th + thm) / (dt * dt)));
  }
  INFO("rocker errors: angle " << worst_angle << " rad, rate " << worst_rate << " rad/s, acceleration "
                               << worst_acceleration << " rad/s^2");
  CHECK(worst_angle < 1e-12);
  CHECK(worst_rate < 1e-7);
  CHECK(worst_acceleration < 1e-4);
}

TEST_CASE("drivers on any joint-frame axis: a body on a planar joint driven along f and g and about h",
          "[multibody][kinematics]") {
  // Planar joint to the ground at the origin, plane normal z (f = x, g = y, h = z): drivers
  // prescribe the in-plane position of the joint point (X along f, Y along g) and the rotation
  // about h, so r(t) = (X, Y, 0) + R_z(theta) r0.
  Mechanism m;
  const Vec<3> r0 = vec3(0.3, 0.1, 0.0);
  m.bodies.push_back(planar_bar("plate", 2.0, 0.5, r0, 0.0));
  add_joint(m, "plane", rigid::JointType::Planar, kGround, 0, Vec<3>::zero(), kPlane);
  auto harmonic = [](double amplitude, double frequency) {
    TimeFunction f;
    f.kind = TimeFunction::Kind::Harmonic;
    f.amplitude = amplitude;
    f.frequency = frequency;
    return f;
  };
  const TimeFunction X = harmonic(0.2, 0.3), Y = constant_rate(0.1), theta = harmonic(0.5, 0.5);
  m.drivers.push_back({"x", Driver::Kind::Translation, 0, X, 0});
  m.drivers.push_back({"y", Driver::Kind::Translation, 0, Y, 1});
  m.drivers.push_back({"turn", Driver::Kind::Rotation, 0, theta, 2});
  REQUIRE(m.row_count() == m.coordinate_count());
  double worst_position = 0, worst_angle = 0, worst_velocity = 0;
  for (const KinematicFrame& f : run_kinematics(m, Vec<3>::zero(), 2.0, 0.05)) {
    const double th = theta.value(f.t), c = std::cos(th), s = std::sin(th);
    const Eigen::Vector3d r(X.value(f.t) + c * r0[0] - s * r0[1], Y.value(f.t) + s * r0[0] + c * r0[1], 0.0);
    const double thd = theta.first_derivative(f.t);
    const Eigen::Vector3d rd(X.first_derivative(f.t) - thd * (s * r0[0] + c * r0[1]),
                             Y.first_derivative(f.t) + thd * (c * r0[0] - s * r0[1]), 0.0);
    const rigid::BodyState b = rigid::body_state(f.q.data(), f.v.data());
    const Vec<3> x_axis = rigid::rotate(b.p, vec3(1, 0, 0));
    worst_position = std::max(worst_position, (f.q.head<3>() - r).lpNorm<Eigen::Infinity>());
    worst_velocity = std::max(worst_velocity, (f.v.head<3>() - rd).lpNorm<Eigen::Infinity>());
    worst_angle = std::max(worst_angle, std::fabs(std::atan2(x_axis[1], x_axis[0]) - th));
  }
  INFO("errors: position " << worst_position << " m, velocity " << worst_velocity << " m/s, angle " << worst_angle);
  CHECK(worst_position < 1e-12);
  CHECK(worst_velocity < 1e-10);
  CHECK(worst_angle < 1e-12);
}
