// A rigid body moved along a prescribed path (a platform's measured motion): it follows the path,
// and what the motion applies to it is Newton's and Euler's laws for that path: the force
// m (a - g) and the torque J alpha + omega x J omega, with the rotation built independently here
// from the roll, pitch and yaw angles (Eigen's AngleAxis) and differenced in time.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include <Eigen/Geometry>

#include "catenary/multibody/mechanism_builders.hpp"
#include "test_helpers.hpp"

using namespace catenary;

namespace {

TimeFunction harmonic(double amplitude, double frequency) {
  TimeFunction f;
  f.kind = TimeFunction::Kind::Harmonic;
  f.amplitude = amplitude;
  f.frequency = frequency;
  return f;
}

// R(t) = Rz(yaw) Ry(pitch) Rx(roll) of the motion's angles.
Eigen::Matrix3d rotation_at(const BodyMotion& m, double t) {
  return (Eigen::AngleAxisd(m.rotation[2].value(t), Eigen::Vector3d::UnitZ()) *
          Eigen::AngleAxisd(m.rotation[1].value(t), Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(m.rotation[0].value(t), Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

// The angular velocity of R(t) (ground frame) from R' R^T, R' by central differences.
Eigen::Vector3d omega_at(const BodyMotion& m, double t) {
  const double h = 1e-5;
  const Eigen::Matrix3d W = (rotation_at(m, t + h) - rotation_at(m, t - h)) / (2.0 * h) * rotation_at(m, t).transpose();
  return Eigen::Vector3d(W(2, 1), W(0, 2), W(1, 0));
}

}  // namespace

TEST_CASE("a body moved along a prescribed path follows it, pushed by m (a - g) and turned by J alpha + omega x J omega",
          "[multibody][dynamics]") {
  Model m;
  m.dimension = 3;
  m.gravity[2] = -9.81;
  const double mass = 5.0;
  const Eigen::Vector3d J(2.0, 3.0, 4.0);
  m.mechanism.bodies.push_back(rigid_body_at_rest("platform", mass, vec3(J[0], J[1], J[2]), vec3(1, 2, -3), vec4(1, 0, 0, 0)));
  BodyMotion motion;
  motion.name = "platform";
  motion.position = vec3(1, 2, -3);
  motion.translation[0] = harmonic(0.2, 0.5);  // surge
  motion.translation[1] = TimeFunction::constant(0.0);
  motion.translation[2] = harmonic(0.1, 0.4);  // heave
  motion.rotation[0] = harmonic(0.05, 0.3);    // roll
  motion.rotation[1] = harmonic(0.04, 0.25);   // pitch
  motion.rotation[2] = harmonic(0.1, 0.2);     // yaw
  m.mechanism.motions.push_back(motion);
  finalize_model(m);
  // HHT alpha = -0.3: the index-3 multipliers of the undamped trapezoidal rule (alpha = 0) swing
  // about their values from step to step (by 30 % of m g here); damped, they settle to O(h^2).
  const testing::RunResult r = testing::run_model(m, testing::dynamic_settings(1e-3, 2.0, -0.3), 0.25);
  double worst_path = 0.0, worst_force = 0.0, worst_torque = 0.0;
  for (const testing::StoredFrame& f : r.frames) {
    if (f.time == 0.0) continue;
    const Eigen::VectorXd x = f.q.segment(m.rigid_offset(), 7);
    // The path: the centre of mass and the orientation (A(p) against R(t)).
    for (int k = 0; k < 3; ++k)
      worst_path = std::max(worst_path, std::fabs(x[k] - motion.position[k] - motion.translation[k].value(f.time)));
    Vec<4> p;
    for (int k = 0; k < 4; ++k) p[k] = x[3 + k];
    const Mat<3, 3> A = rigid::rotation_matrix(p);
    const Eigen::Matrix3d R = rotation_at(motion, f.time);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) worst_path = std::max(worst_path, std::fabs(A(i, j) - R(i, j)));
    // Newton: F = m (a - g).
    const JointReaction reaction = motion_reaction(m.mechanism, 0, x, f.lambda, f.time);
    const Eigen::Vector3d a(motion.translation[0].second_derivative(f.time), 0.0,
                            motion.translation[2].second_derivative(f.time));
    const Eigen::Vector3d force = mass * (a - Eigen::Vector3d(0, 0, -9.81));
    for (int k = 0; k < 3; ++k) worst_force = std::max(worst_force, std::fabs(reaction.force[k] - force[k]) / (mass * 9.81));
    // Euler: n = J_g alpha + omega x J_g omega, J_g = R J R^T, alpha by central differences.
    const double h = 1e-4;
    const Eigen::Vector3d omega = omega_at(motion, f.time);
    const Eigen::Vector3d alpha = (omega_at(motion, f.time + h) - omega_at(motion, f.time - h)) / (2.0 * h);
    const Eigen::Matrix3d Jg = R * J.asDiagonal() * R.transpose();
    const Eigen::Vector3d torque = Jg * alpha + omega.cross(Jg * omega);
    for (int k = 0; k < 3; ++k) worst_torque = std::max(worst_torque, std::fabs(reaction.torque[k] - torque[k]));
  }
  std::printf("platform motion: off its path by %.1e, force off m (a - g) by %.1e of m g, torque off Euler's by %.1e N m\n",
              worst_path, worst_force, worst_torque);
  CHECK(worst_path < 1e-9);
  CHECK(worst_force < 1e-6);
  CHECK(worst_torque < 1e-5);
}
