// Further checks of loads, curved references, prescribed motion, damping and the adaptive step,
// each against a closed form or a conservation law.
#include <catch2/catch.hpp>
#include <cmath>

#include "catenary/model/builders.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using catenary::testing::host_constraint_product;
using catenary::testing::host_constraint_residuals;
using catenary::testing::host_constraint_transpose_product;
using catenary::testing::host_external_force;
using catenary::testing::host_internal_force;
using catenary::testing::host_mass_product;
using catenary::testing::node_coordinate;
using catenary::testing::run_model;
using catenary::testing::dynamic_settings;
using catenary::testing::static_settings;
using catenary::testing::pinned_soft_cable;


TEST_CASE("uniform distributed load on a cantilever gives w L^4 / (8 E I)", "[statics][loads]") {
  Model m;
  m.dimension = 2;
  const double L = 1.5, EI = 3.0, w = 2e-3;
  add_straight_line(m, "beam", {0, 0, 0}, {L, 0, 0}, 8, {1e6, EI, 1.0, 0.0});
  finalize_model(m);
  add_fix(m, 0, {0, 1, 2, 3}, "clamp", "/constraints/0");
  add_distributed_load(m, 0, {0, -w, 0}, TimeFunction::constant(1.0));
  const auto r = run_model(m, static_settings(1));
  const double tip = node_coordinate(m, r.frames.back().q, body_node(m, 0, -1), 1);
  CHECK(tip == Approx(-w * std::pow(L, 4) / (8 * EI)).epsilon(1e-3));
  // The clamp reacts the whole load: vertical reaction -lambda_y = w L.
  CHECK(-r.frames.back().lambda[1] == Approx(w * L).epsilon(1e-9));
}

TEST_CASE("curved quarter-circle cantilever matches Castigliano's deflection", "[statics][curved]") {
  // Quarter circle of radius R from (R, 0) (clamped) to (0, R); tip force P along y.
  // Bending moment P R cos(theta) gives the tip deflection along the load pi P R^3 / (4 E I).
  Model m;
  m.dimension = 2;
  const double R = 1.0, EI = 2.0, P = 1e-4;
  add_arc(m, "arc", {0, 0, 0}, R, 0.0, M_PI / 2, 16, {1e8, EI, 1.0, 0.0});
  finalize_model(m);
  add_fix(m, 0, {0, 1, 2, 3}, "clamp", "/constraints/0");
  const int tip = body_node(m, 0, -1);
  add_point_force(m, tip, {0, P, 0}, TimeFunction::constant(1.0));
  const auto r = run_model(m, static_settings(1));
  const double dy = node_coordinate(m, r.frames.back().q, tip, 1) - R;
  CHECK(dy == Approx(M_PI * P * R * R * R / (4 * EI)).epsilon(2e-3));
  // Unloaded, the curved stress-free shape stays where it is with no strain energy: zero up to
  // the round-off of 1/2 EI (kappa^2 - 2 kappa0 kappa + kappa0^2) over the arc, eps EI kappa0^2 L.
  CHECK(r.frames.front().elastic < 1e-15 * EI / (R * R) * (M_PI / 2 * R));
}

TEST_CASE("prescribed harmonic motion is followed exactly", "[dynamics][constraints]") {
  Model m = pinned_soft_cable(0.0);
  m.constraint_rows.clear();
  m.constraint_groups.clear();
  TimeFunction f;
  f.kind = TimeFunction::Kind::Harmonic;
  f.amplitude = 0.05;
  f.frequency = 2.0;
  add_prescribed_motion(m, 0, {0, 1, 2}, {TimeFunction::constant(0.0), TimeFunction::constant(0.0), f}, "drive",
                        "/constraints/0");
  const auto r = run_model(m, dynamic_settings(1e-3, 0.5, -0.1), 0.05);
  for (const auto& fr : r.frames) {
    CHECK(node_coordinate(m, fr.q, 0, 2) == Approx(f.value(fr.time)).margin(1e-12));
    CHECK(node_coordinate(m, fr.q, 0, 0) == Approx(0.0).margin(1e-12));
  }
  // HHT velocities of a driven coordinate converge to the driver's derivative (second order).
  const double t = r.frames.back().time;
  CHECK(node_coordinate(m, r.frames.back().v, 0, 2) == Approx(f.first_derivative(t)).margin(2e-3 * 0.05 * 4 * M_PI));
}

TEST_CASE("material damping dissipates energy, its absence conserves it", "[dynamics][damping]") {
  auto drift = [](double eta) {
    const auto r = run_model(pinned_soft_cable(eta), dynamic_settings(1e-3, 1.0, 0.0), 0.01);
    double E0 = r.frames.front().total(), worst_rise = 0.0;
    double previous = E0;
    for (const auto& f : r.frames) {
      worst_rise = std::max(worst_rise, f.total() - previous);
      previous = f.total();
    }
    return std::make_pair(r.frames.back().total() - E0, worst_rise);
  };
  const auto undamped = drift(0.0), damped = drift(0.01);
  // Undamped: energy change small; damped: a clear loss, and never a rise beyond round-off.
  CHECK(std::fabs(undamped.first) < 0.05 * std::fabs(damped.first));
  CHECK(damped.first < 0.0);
  CHECK(damped.second < 1e-3 * std::fabs(damped.first));
}

TEST_CASE("adaptive step matches a fine fixed step with fewer steps", "[dynamics][adaptive]") {
  const auto c = testing::adaptive_against_fine(pinned_soft_cable(0.0), dynamic_settings(1e-4, 0.5, -0.1));
  REQUIRE(c.end_time == Approx(0.5));
  INFO("adaptive steps " << c.adaptive_steps << " rejected " << c.rejected_steps << ", tip difference "
                         << c.tip_difference << " m");
  CHECK(c.tip_difference < 2e-3);
  CHECK(c.adaptive_steps < c.fine_steps / 2);
}

TEST_CASE("refining a fixed-length cable keeps Newton convergent and the answer converging", "[dynamics][refinement]") {
  // A 10 m cable pinned at one end (the benchmark's material) meshed with 10 to 2000 elements.
  double previous_z = 0.0, previous_change = INFINITY;
  for (int n : {10, 100, 2000}) {
    Model m;
    m.dimension = 3;
    m.gravity[2] = -9.81;
    const double d = 0.02, A = M_PI * d * d / 4, I = M_PI * std::pow(d, 4) / 64, E = 2e9;
    add_straight_line(m, "cable", {0, 0, 0}, {10, 0, 0}, n, {E * A, E * I, 7800 * A, 0.0});
    finalize_model(m);
    add_spherical_to_ground(m, 0, {0, 0, 0}, "pin", "/constraints/0");
    const auto r = run_model(m, dynamic_settings(1e-3, 0.03, -0.2), 0.03);
    const double per_step = double(r.summary.newton_iterations) / r.summary.steps;
    const double z = node_coordinate(m, r.frames.back().q, body_node(m, 0, -1), 2);
    INFO(n << " elements: " << per_step << " Newton iterations per step, tip z = " << z);
    CHECK(per_step <= 3.0);
    if (n > 10) {
      const double change = std::fabs(z - previous_z);
      CHECK(change <= previous_change);
      previous_change = change;
    }
    previous_z = z;
  }
}

TEST_CASE("initial positions and velocities are projected onto the constraints", "[dynamics][initial]") {
  // Two cables whose joined ends start 1 cm apart, with an initial velocity that violates the
  // joint and a pin moving with a prescribed ramp velocity.
  Model m;
  m.dimension = 3;
  add_straight_line(m, "a", {0, 0, 0}, {1, 0, 0}, 3, {1e4, 1.0, 1.0, 0.0});
  add_straight_line(m, "b", {1.01, 0, 0}, {2, 0, 0}, 3, {1e4, 1.0, 1.0, 0.0});
  finalize_model(m);
  add_node_joint(m, body_node(m, 0, -1), body_node(m, 1, 0), false, "hinge", "hinge", "/c/0");
  TimeFunction ramp;
  ramp.kind = TimeFunction::Kind::LinearRamp;
  ramp.t0 = -1.0;
  ramp.t1 = 1.0;
  ramp.v0 = -0.5;
  ramp.v1 = 0.5;  // displacement rate 0.5 m/s at t = 0
  add_prescribed_motion(m, 0, {0, 1, 2}, {ramp, TimeFunction::constant(0.0), TimeFunction::constant(0.0)}, "drive", "/c/1");
  for (int i = 0; i < m.dof_count(); ++i) m.initial_velocities[i] = 0.1 * ((i * 7) % 5 - 2);
  CpuBackend backend(m);
  System sys(m, backend);
  const ConsistentState s = consistent_initial_state(sys, 0.0);
  const auto [phi, velocity_residual] = host_constraint_residuals(sys, s.q, s.v, 0.0);
  CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-14);
  CHECK(velocity_residual.lpNorm<Eigen::Infinity>() < 1e-14);
  CHECK(s.position_change == Approx(0.01).epsilon(0.5));  // the gap is closed by moving the ends
  // Accelerations satisfy the equations of motion: M a + f + C^T lambda = g, C a = b''.
  Eigen::VectorXd Ma, f, Cl, ca;
  host_mass_product(backend, s.a, Ma);
  host_internal_force(backend, s.q, s.v, f);
  const Eigen::VectorXd g = host_external_force(sys, 0.0);
  host_constraint_transpose_product(backend, s.lambda, Cl);
  host_constraint_product(backend, s.a, ca);
  CHECK((Ma + f + Cl - g).lpNorm<Eigen::Infinity>() < 1e-8 * f.lpNorm<Eigen::Infinity>());
  CHECK(ca.lpNorm<Eigen::Infinity>() < 1e-10);
}
