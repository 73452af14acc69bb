// Forward dynamics of rigid bodies in the Model's DAE (assembly/multibody_block.hpp), each
// checked against a closed form or a conservation law.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

#include "catenary/core/errors.hpp"
#include "catenary/multibody/kinematic_analysis.hpp"
#include "catenary/rigid/euler_parameters.hpp"
#include "body_frame_rates.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

TEST_CASE("rigid pendulum: joint reaction equals m g cos(theta) + m v^2 / L along the trajectory", "[multibody]") {
  const double L = 0.8, mass = 2.0;
  const Model m = rigid_pendulum(L, mass, 1.2);
  AnalysisSettings a = dynamic_settings(1e-3, 1.5, -0.05);
  const RunResult r = run_model(m, a);
  REQUIRE(r.frames.size() > 100);
  double worst = 0.0, worst_energy = 0.0;
  const double e0 = r.frames.front().total();
  for (const StoredFrame& f : r.frames) {
    const Vec<3> pos = vec3(f.q[0], f.q[1], f.q[2]);
    const Eigen::Vector3d u = Eigen::Vector3d(pos[0], pos[1], pos[2]) / L;  // pivot to centre of mass
    const double cos_theta = -u[1], v2 = f.v.head<3>().squaredNorm();
    const JointReaction jr = joint_reaction(m.mechanism, 0, f.q, f.lambda);
    const double toward_pivot = -(jr.force[0] * u[0] + jr.force[1] * u[1] + jr.force[2] * u[2]);
    const double expected = mass * 9.81 * cos_theta + mass * v2 / L;
    worst = std::max(worst, std::fabs(toward_pivot - expected));
    worst_energy = std::max(worst_energy, std::fabs(f.total() - e0));
  }
  INFO("largest reaction error " << worst << " N, energy drift " << worst_energy << " J");
  CHECK(worst < 5e-5 * mass * 9.81);
  CHECK(worst_energy < 5e-4 * mass * 9.81 * L);  // HHT alpha = -0.05 dissipates a little
}

namespace {

// Angular momentum of the bodies about the origin, ground frame.
Eigen::Vector3d angular_momentum(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  Eigen::Vector3d H = Eigen::Vector3d::Zero();
  for (size_t b = 0; b < m.mechanism.bodies.size(); ++b) {
    const int o = m.rigid_offset() + 7 * static_cast<int>(b);
    const rigid::BodyState s = rigid::body_state(q.data() + o, v.data() + o);
    const Vec<3> omega_body = testing::body_angular_velocity(s.p, s.pd);
    const Vec<3> spin = rigid::rotate(s.p, mat_vec(m.mechanism.bodies[b].inertia, omega_body));
    const Vec<3> orbit = vec_scale(m.mechanism.bodies[b].mass, cross3(s.r, s.rd));
    for (int k = 0; k < 3; ++k) H[k] += spin[k] + orbit[k];
  }
  return H;
}

struct Drift {
  double energy = 0, momentum_y = 0;
};

// Largest drifts of the total energy and of the vertical angular momentum, relative to the
// kinetic energy and the angular momentum's size at the start.
Drift conservation_drift(const Model& m, const RunResult& r) {
  const StoredFrame& f0 = r.frames.front();
  const Eigen::Vector3d H0 = angular_momentum(m, f0.q, f0.v);
  Drift d;
  for (const StoredFrame& f : r.frames) {
    d.energy = std::max(d.energy, std::fabs(f.total() - f0.total()) / f0.kinetic);
    d.momentum_y = std::max(d.momentum_y, std::fabs(angular_momentum(m, f.q, f.v)[1] - H0[1]) / H0.norm());
  }
  return d;
}

// Largest drift of the total energy, and the largest change of the gravitational energy (the
// energy exchanged), over a run.
std::pair<double, double> energy_drift_and_exchange(const RunResult& r) {
  const StoredFrame& f0 = r.frames.front();
  double drift = 0.0, exchanged = 0.0;
  for (const StoredFrame& f : r.frames) {
    drift = std::max(drift, std::fabs(f.total() - f0.total()));
    exchanged = std::max(exchanged, std::fabs(f.gravitational - f0.gravitational));
  }
  return {drift, exchanged};
}

AnalysisSettings conservative_settings(double h, double T) {
  AnalysisSettings a = dynamic_settings(h, T, 0.0);
  a.dynamics.integrator = DynamicSettings::Integrator::GeneralizedAlpha;
  a.dynamics.rho_infinity = 1.0;
  a.dynamics.newton_tolerance = 1e-12;
  return a;
}

}  // namespace

TEST_CASE("spatial double pendulum conserves energy and vertical angular momentum", "[multibody]") {
  const Model m = spatial_double_pendulum();
  const RunResult r = run_model(m, conservative_settings(2e-5, 0.3));
  const Drift d = conservation_drift(m, r);
  INFO("energy drift " << d.energy << ", angular momentum drift " << d.momentum_y << " over "
                       << r.summary.steps << " steps");
  CHECK(d.energy < 1e-6);
  CHECK(d.momentum_y < 1e-6);
}

TEST_CASE("spinning symmetric top conserves energy, vertical angular momentum and spin", "[multibody]") {
  const Model m = spinning_top(0.5, 15.0);
  const RunResult r = run_model(m, conservative_settings(2e-5, 0.2));
  const Drift d = conservation_drift(m, r);
  double spin_drift = 0.0, spin0 = 0.0;
  for (const StoredFrame& f : r.frames) {
    const rigid::BodyState s = rigid::body_state(f.q.data(), f.v.data());
    const double spin = testing::body_angular_velocity(s.p, s.pd)[2];
    if (&f == &r.frames.front()) spin0 = spin;
    spin_drift = std::max(spin_drift, std::fabs(spin - spin0) / std::fabs(spin0));
  }
  INFO("energy drift " << d.energy << ", angular momentum drift " << d.momentum_y << ", spin drift " << spin_drift);
  CHECK(d.energy < 1e-6);
  CHECK(d.momentum_y < 1e-6);
  CHECK(spin_drift < 1e-6);
}

TEST_CASE("cable hanging from a swinging boom: the hook holds, energy is conserved", "[multibody]") {
  const Model m = cable_hanging_from_boom(8);
  const RunResult r = run_model(m, conservative_settings(5e-4, 0.5));
  const int node = m.mechanism.attachments[0].node;
  double gap = 0.0;
  for (const StoredFrame& f : r.frames) {
    const rigid::BodyState boom = rigid::body_state(f.q.data() + m.rigid_offset(), f.v.data() + m.rigid_offset());
    const Vec<3> hook = vec_add(boom.r, rigid::rotate(boom.p, m.mechanism.attachments[0].point));
    for (int k = 0; k < 3; ++k) gap = std::max(gap, std::fabs(f.q[6 * node + k] - hook[k]));
  }
  const auto [drift, swing] = energy_drift_and_exchange(r);
  INFO("hook gap " << gap << " m, energy drift " << drift << " J of " << swing << " J exchanged");
  CHECK(swing > 10.0);  // the boom really swings down
  CHECK(gap < 1e-10);
  CHECK(drift < 1e-3 * swing);
}

TEST_CASE("stiff two-mass chain: BDF follows the slow mode with steps far beyond the fast period", "[multibody][bdf]") {
  const double k1 = 1e4, k2 = 1e9, mass = 1.0;
  // Modes of K = [k1 + k2, -k2; -k2, k2], M = I.
  Eigen::Matrix2d K;
  K << k1 + k2, -k2, -k2, k2;
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> modes(K / mass);
  const double w_slow = std::sqrt(modes.eigenvalues()[0]), w_fast = std::sqrt(modes.eigenvalues()[1]);
  CHECK(w_slow / (2 * M_PI) == Approx(11.25).epsilon(1e-3));
  CHECK(w_fast / (2 * M_PI) == Approx(7117.6).epsilon(1e-4));
  const Eigen::Vector2d slow = modes.eigenvectors().col(0), fast = modes.eigenvectors().col(1);
  // Start in the slow mode (1 cm) with a 1 um fast-mode component that the method must damp.
  const Eigen::Vector2d x0 = 0.01 * slow / slow[0] + 1e-6 * fast / fast.cwiseAbs().maxCoeff();
  const Model m = two_mass_chain(k1, k2, mass, mass, x0[0], x0[1]);
  const double T = 0.5, eta0 = slow.dot(x0);
  const RunResult r = run_model(m, adaptive_settings(bdf_settings(1e-5, T, 5), 1e-7), 0.0);
  double worst = 0.0;
  for (const StoredFrame& f : r.frames) {
    const Eigen::Vector2d x(f.q[0] - 1.0, f.q[7] - 2.0);
    worst = std::max(worst, std::fabs(slow.dot(x) - eta0 * std::cos(w_slow * f.time)));
  }
  const double mean_step = T / r.summary.steps, fast_period = 2 * M_PI / w_fast;
  std::printf("two-mass chain: BDF %ld steps (%ld rejected), mean step %.2e s = %.0f fast periods, "
              "slow-mode error %.2e m of %.2e m\n",
              r.summary.steps, r.summary.rejected_steps, mean_step, mean_step / fast_period, worst, std::fabs(eta0));
  CHECK(r.frames.back().time == Approx(T));
  // Measured: 191 steps (22 rejected), mean step 19 fast periods, slow-mode error 0.3 % of its
  // amplitude: orders 1, 2 and 5 on the oscillation (bdf.cpp); with orders 3 and 4 allowed and
  // capped after rejections, 694 steps of 5 fast periods and 1.1 %.
  CHECK(worst < 0.02 * std::fabs(eta0));
  CHECK(mean_step > 3 * fast_period);
}

TEST_CASE("a slider-crank driven past its limit position reports the singular joints and the time", "[multibody]") {
  // Crank 0.3 m longer than the rod 0.2 m: the crank cannot turn past sin(theta) = 2/3
  // (theta = 0.7297 rad, t = 0.4646 s at pi/2 rad/s), where the constraint Jacobian is singular.
  const Model m = driven_slider_crank(0.3, 0.2, 0.0, M_PI / 2);
  auto check_message = [](const std::string& what) {
    INFO(what);
    CHECK(what.find("singular (smallest singular value") != std::string::npos);
    CHECK(what.find("joint 'slide'") != std::string::npos);
  };
  SECTION("kinematic analysis") {
    try {
      run_kinematics(m.mechanism, m.gravity, 1.0, 0.01);
      FAIL("the kinematic analysis passed the limit position");
    } catch (const SimulationError& e) {
      check_message(e.what());
      CHECK(std::string(e.what()).find("at t = 0.47 s") != std::string::npos);
    }
  }
  SECTION("forward dynamics, adaptive HHT") {
    try {
      run_model(m, adaptive_settings(dynamic_settings(0.01, 1.0, -0.1), 1e-6));
      FAIL("the dynamic analysis passed the limit position");
    } catch (const SimulationError& e) {
      check_message(e.what());
      CHECK(std::string(e.what()).find("nearly singular") != std::string::npos);
      CHECK(std::string(e.what()).find("failed at t = 0.464") != std::string::npos);
    }
  }
}

TEST_CASE("rigid bodies keep the integrators' orders: generalized-alpha 2, BDF 1 and 2", "[multibody][bdf]") {
  // Final positions of the spatial double pendulum against a run with a 32 times smaller step.
  const Model m = spatial_double_pendulum();
  const double T = 0.2, h0 = 4e-3;
  auto final_q = [&](const AnalysisSettings& a) { return run_model(m, a).frames.back().q; };
  auto ga = [&](double h) {
    AnalysisSettings a = conservative_settings(h, T);
    a.dynamics.rho_infinity = 0.8;
    return a;
  };
  auto bdf = [&](int order) {
    return [=](double h) {
      AnalysisSettings a = bdf_settings(h, T, order);
      a.dynamics.newton_tolerance = 1e-12;
      return a;
    };
  };
  SECTION("generalized-alpha, rho_infinity 0.8") {
    const Eigen::VectorXd reference = final_q(ga(h0 / 32));
    for (double order : observed_orders_of("rigid generalized-alpha", h0, [&](double h) {
           return (final_q(ga(h)) - reference).lpNorm<Eigen::Infinity>();
         }))
      CHECK(order == Approx(2.0).margin(0.15));
  }
  for (int k : {1, 2}) {
    DYNAMIC_SECTION("BDF of order " << k) {
      const Eigen::VectorXd reference = final_q(bdf(k)(h0 / 32));
      for (double order : observed_orders_of("rigid BDF" + std::to_string(k), h0, [&](double h) {
             return (final_q(bdf(k)(h)) - reference).lpNorm<Eigen::Infinity>();
           }))
        CHECK(order == Approx(k).margin(0.15));
    }
  }
}

TEST_CASE("static equilibrium of a sprung boom carrying a hanging cable matches k phi = W cos(phi)",
          "[multibody][statics]") {
  // The boom (5 kg, 1 m) and the cable (0.6 kg/m, 1 m, its weight hanging from the tip) are held
  // by a rotational spring k at the pivot: k phi = (m_boom g L / 2 + m_cable g L) cos(phi), phi the
  // boom's angle below the horizontal.
  const double k = 300.0, g = 9.81, W = 5.0 * g * 0.5 + 0.6 * 1.0 * g * 1.0;
  const Model m = sprung_boom_with_cable(8, k);
  double phi = 0.0;  // Newton on k phi - W cos(phi) = 0
  for (int it = 0; it < 50; ++it) phi -= (k * phi - W * std::cos(phi)) / (k + W * std::sin(phi));
  const RunResult r = run_model(m, static_settings(4));
  const Eigen::VectorXd& q = r.frames.back().q;
  const rigid::BodyState boom = rigid::body_state(q.data() + m.rigid_offset(), q.data() + m.rigid_offset());
  const Vec<3> axis = rigid::rotate(boom.p, vec3(1, 0, 0));
  const double phi_solver = std::atan2(-axis[2], axis[0]);
  // The cable hangs straight down from the hook.
  const int last = m.node_count - 1;
  INFO("phi " << phi_solver << " rad, closed form " << phi);
  CHECK(phi_solver == Approx(phi).epsilon(1e-8));
  CHECK(q[6 * last + 0] == Approx(q[0]).margin(1e-9));
}

TEST_CASE("statics brings a pendulum released at 1.2 rad to hang straight down, the pin carrying m g",
          "[multibody][statics]") {
  // At lambda = 0 nothing resists the free rotation: the static solver must regularize (mu M).
  const double mass = 2.0;
  const Model m = rigid_pendulum(0.8, mass, 1.2);
  const RunResult r = run_model(m, static_settings(2));
  const StoredFrame& f = r.frames.back();
  const JointReaction jr = joint_reaction(m.mechanism, 0, f.q, f.lambda);
  CHECK(std::fabs(f.q[0]) < 1e-9);          // centre of mass under the pivot
  CHECK(f.q[1] == Approx(-0.8).epsilon(1e-12));
  CHECK(jr.force[1] == Approx(mass * 9.81).epsilon(1e-9));
  CHECK(std::fabs(jr.force[0]) < 1e-9);
}

TEST_CASE("attachment rows (position and slope alignment): Jacobian and gamma by finite differences",
          "[multibody]") {
  Mechanism mech;
  mech.bodies.push_back(rigid_body_at_rest("hub", 3.0, vec3(0.1, 0.2, 0.3), vec3(0.1, -0.2, 0.3),
                                           rigid::normalized(vec4(0.9, 0.2, -0.3, 0.1))));
  Attachment clamp;
  clamp.name = "clamp";
  clamp.point = vec3(0.4, 0.1, -0.2);
  clamp.align_slope = true;
  clamp.axis = vec3(1.0, 0.5, -0.2);
  mech.attachments.push_back(clamp);
  REQUIRE(mech.coordinate_count() == 13);
  REQUIRE(mech.row_count() == 5 + 1);
  Eigen::VectorXd q(13), v(13);
  q << 0.1, -0.2, 0.3, 0.9, 0.2, -0.3, 0.1, 0.5, 0.2, -0.1, 0.8, 0.3, -0.4;
  v << 0.3, -0.1, 0.2, 0.05, -0.2, 0.1, 0.3, -0.4, 0.2, 0.1, 0.6, -0.5, 0.2;
  const ConstraintState s = evaluate_constraints(mech, q, v, 0.0);
  const Eigen::MatrixXd J(s.jacobian);
  const double h = 1e-6;
  for (int k = 0; k < 13; ++k) {
    Eigen::VectorXd qp = q, qm = q;
    qp[k] += h;
    qm[k] -= h;
    const Eigen::VectorXd column =
        (evaluate_constraints(mech, qp, v, 0.0).phi - evaluate_constraints(mech, qm, v, 0.0).phi) / (2 * h);
    CHECK((column - J.col(k)).lpNorm<Eigen::Infinity>() < 1e-8);
  }
  // Along q + tau v (q'' = 0): d2 Phi / d tau^2 = -gamma.
  const double e = 1e-4;
  const Eigen::VectorXd second = (evaluate_constraints(mech, q + e * v, v, 0.0).phi - 2 * s.phi +
                                  evaluate_constraints(mech, q - e * v, v, 0.0).phi) / (e * e);
  CHECK((second + s.gamma).lpNorm<Eigen::Infinity>() < 1e-6);
}

TEST_CASE("a cable clamped into a swinging boom keeps its slope along the boom axis and conserves energy",
          "[multibody]") {
  Model m = cable_hanging_from_boom(8);
  m.mechanism.attachments[0].align_slope = true;
  m.mechanism.attachments[0].axis = vec3(0, 0, -1);  // the cable leaves the tip downwards
  const RunResult r = run_model(m, conservative_settings(5e-4, 0.5));
  const int node = m.mechanism.attachments[0].node;
  double misalignment = 0.0;
  for (const StoredFrame& f : r.frames) {
    const rigid::BodyState boom = rigid::body_state(f.q.data() + m.rigid_offset(), f.v.data() + m.rigid_offset());
    const Vec<3> axis = rigid::rotate(boom.p, vec3(0, 0, -1));
    const Eigen::Vector3d slope = f.q.segment<3>(6 * node + 3), a(axis[0], axis[1], axis[2]);
    misalignment = std::max(misalignment, slope.cross(a).norm() / slope.norm());
  }
  const auto [drift, swing] = energy_drift_and_exchange(r);
  INFO("misalignment " << misalignment << ", energy drift " << drift << " J of " << swing << " J");
  CHECK(swing > 10.0);
  CHECK(misalignment < 1e-10);
  CHECK(drift < 1e-3 * swing);
}

TEST_CASE("initial conditions assemble a misplaced four-bar, keeping the body of large assembly weight",
          "[multibody][assembly]") {
  Model m = empty_3d_model(-9.81);
  m.mechanism = four_bar(0.3, 0.9, 0.8, 1.0, M_PI / 3);
  const Mechanism exact = m.mechanism;
  RigidBody &crank = m.mechanism.bodies[0], &coupler = m.mechanism.bodies[1], &rocker = m.mechanism.bodies[2];
  coupler.position = vec_add(coupler.position, vec3(0.03, -0.02, 0.01));
  rocker.position = vec_add(rocker.position, vec3(-0.02, 0.03, 0.0));
  rocker.orientation = rigid::normalized(vec_add(rocker.orientation, vec4(0.0, 0.0, 0.0, 0.04)));
  crank.angular_velocity = vec3(0, 0, 2.0);  // given crank rate; the others start at rest
  crank.velocity = cross3(crank.angular_velocity, crank.position);
  crank.assembly_weight = 1e8;
  finalize_model(m);
  CpuBackend backend(m);
  System sys(m, backend);
  const ConsistentState s = consistent_initial_state(sys, 0.0);
  const Eigen::VectorXd given = initial_coordinates(m), given_v = initial_rates(m), target = exact.initial_positions();
  const double crank_moved = (s.q.head(7) - given.head(7)).lpNorm<Eigen::Infinity>();
  const double others_moved = (s.q.tail(14) - given.tail(14)).lpNorm<Eigen::Infinity>();
  INFO("violation " << s.constraint_violation << ", crank moved " << crank_moved << ", others " << others_moved);
  CHECK(s.constraint_violation < 1e-10);
  CHECK(crank_moved < 1e-6 * others_moved);
  // With the crank kept, the loop closes where the exact four-bar is (same branch).
  CHECK((s.q.tail(14) - target.tail(14)).lpNorm<Eigen::Infinity>() < 1e-6);
  // Velocities: the crank's rate is kept, the rest follows the constraints.
  CHECK(host_constraint_residuals(sys, s.q, s.v, 0.0).second.lpNorm<Eigen::Infinity>() < 1e-10);
  CHECK((s.v.head(7) - given_v.head(7)).lpNorm<Eigen::Infinity>() < 1e-6);
}

TEST_CASE("stabilized index-2 formulation: positions and velocities both on their constraints, same motion",
          "[multibody][index2]") {
  const Model m = spatial_double_pendulum();
  auto run = [&](DynamicSettings::Formulation formulation, DynamicSettings::Integrator integrator) {
    AnalysisSettings a = conservative_settings(1e-3, 0.5);
    a.dynamics.integrator = integrator;
    a.dynamics.rho_infinity = 0.8;
    a.dynamics.formulation = formulation;
    return run_model(m, a);
  };
  auto violations = [&](const RunResult& r) { return constraint_violations(m, r); };
  for (auto integrator : {DynamicSettings::Integrator::GeneralizedAlpha, DynamicSettings::Integrator::BDF}) {
    const RunResult index3 = run(DynamicSettings::Formulation::Index3, integrator);
    const RunResult index2 = run(DynamicSettings::Formulation::StabilizedIndex2, integrator);
    const auto [p3, v3] = violations(index3);
    const auto [p2, v2] = violations(index2);
    const double apart = (index3.frames.back().q - index2.frames.back().q).lpNorm<Eigen::Infinity>();
    std::printf("%s: index 3: |Phi| %.1e, |Phi_q v - nu| %.1e; stabilized index 2: %.1e, %.1e; final positions "
                "%.1e apart\n",
                integrator == DynamicSettings::Integrator::BDF ? "BDF" : "generalized-alpha", p3, v3, p2, v2, apart);
    CHECK(p2 < 1e-10);
    CHECK(v2 < 1e-9);
    CHECK(v2 < 1e-3 * v3);  // index 3 leaves O(h^2) velocity violations
    CHECK(apart < 1e-2);    // the same motion, to the methods' error at h = 1e-3
  }
  // Generalized-alpha keeps its order in the stabilized index-2 form.
  const double T = 0.2, h0 = 4e-3;
  auto final_q = [&](double h) {
    AnalysisSettings a = conservative_settings(h, T);
    a.dynamics.rho_infinity = 0.8;
    a.dynamics.formulation = DynamicSettings::Formulation::StabilizedIndex2;
    return run_model(m, a).frames.back().q;
  };
  const Eigen::VectorXd reference = final_q(h0 / 32);
  for (double order : observed_orders_of("index-2 generalized-alpha", h0, [&](double h) {
         return (final_q(h) - reference).lpNorm<Eigen::Infinity>();
       }))
    CHECK(order == Approx(2.0).margin(0.15));
}

TEST_CASE("stabilized index 2 on a cable with a prescribed end motion: same motion as index 3, velocities exact",
          "[dynamics][index2]") {
  // A soft cable pinned at one end, its other end driven up and down: with a rheonomic constraint
  // index 3 meets b'(t) only to O(h^2).
  Model m = pinned_soft_cable(0.0);
  TimeFunction shake;
  shake.kind = TimeFunction::Kind::Harmonic;
  shake.amplitude = 0.05;
  shake.frequency = 2.0;
  add_prescribed_motion(m, m.node_count - 1, {2}, {shake}, "shaker", "/constraints/1");
  finalize_model(m);
  AnalysisSettings a = dynamic_settings(1e-3, 0.5, -0.1);
  const RunResult index3 = run_model(m, a);
  a.dynamics.formulation = DynamicSettings::Formulation::StabilizedIndex2;
  const RunResult index2 = run_model(m, a);
  REQUIRE(index2.frames.size() == index3.frames.size());
  const auto [position, velocity] = constraint_violations(m, index2);
  const double velocity3 = constraint_violations(m, index3).second;
  double apart = 0;
  for (size_t k = 0; k < index2.frames.size(); ++k)
    apart = std::max(apart, (index2.frames[k].q - index3.frames[k].q).lpNorm<Eigen::Infinity>());
  INFO("index 2: violations " << position << " m, " << velocity << " m/s; index 3: " << velocity3
                              << " m/s; positions apart " << apart << " m");
  CHECK(position < 1e-12);
  CHECK(velocity < 1e-12);
  CHECK(velocity3 > 1e3 * velocity);
  CHECK(apart < 1e-3);  // 1 m cable: the two formulations differ by the methods' O(h^2) error
}

TEST_CASE("a cable end both pinned and attached to a hinged boom is refused, naming the pin and the joint",
          "[multibody]") {
  Model m = cable_hanging_from_boom(4);
  add_spherical_to_ground(m, 0, {1.0, 0.0, 0.0}, "tip pin", "/constraints/0");
  finalize_model(m);
  const MultibodyLayout layout = multibody_layout(m);
  const Eigen::VectorXd q = initial_coordinates(m);
  Eigen::VectorXd x(layout.dofs.size());
  for (size_t k = 0; k < layout.dofs.size(); ++k) x[k] = q[layout.dofs[k]];
  REQUIRE(attached_node_rows(m, layout).size() == 3);
  CHECK_NOTHROW(check_redundant_constraints(m.mechanism, x, 0.0));  // the mechanism alone is fine
  try {
    check_redundant_constraints(m.mechanism, x, 0.0, attached_node_rows(m, layout));
    FAIL("the over-constrained boom was accepted");
  } catch (const ModelError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("attachment 'hook'") != std::string::npos);
    CHECK(what.find("constraint 'tip pin'") != std::string::npos);
    CHECK(what.find("joint 'boom pivot'") != std::string::npos);
  }
}

TEST_CASE("body loads on a free body: a ground-frame force and a body-frame torque give the closed-form motion",
          "[multibody]") {
  // No joints, no gravity: r = r0 + F t^2 / (2 m); a torque tau about the principal axis z spins the
  // body up as omega = tau t / I_z, theta = tau t^2 / (2 I_z).
  Model m = empty_3d_model(0.0);
  const double mass = 2.0, Iz = 0.3, force = 4.0, torque = 0.6;
  m.mechanism.bodies.push_back(rigid_body_at_rest("free", mass, vec3(0.2, 0.25, Iz), vec3(1, 2, 3),
                                                  rigid::from_axis_angle(vec3(1, 1, 0), 0.4)));
  BodyLoad push;
  push.name = "push";
  push.force = vec3(force, 0, 0);
  BodyLoad twist;
  twist.name = "twist";
  twist.torque = vec3(0, 0, torque);
  twist.body_frame = true;
  m.mechanism.forces.loads = {push, twist};
  finalize_model(m);
  const double T = 1.0;
  const RunResult r = run_model(m, conservative_settings(1e-3, T));
  const StoredFrame& f = r.frames.back();
  const rigid::BodyState s = rigid::body_state(f.q.data(), f.v.data());
  const Vec<3> omega_body = testing::body_angular_velocity(s.p, s.pd);
  CHECK(s.r[0] == Approx(1.0 + force * T * T / (2 * mass)).epsilon(1e-10));
  CHECK(s.r[1] == Approx(2.0).epsilon(1e-12));
  CHECK(s.rd[0] == Approx(force * T / mass).epsilon(1e-8));
  CHECK(omega_body[2] == Approx(torque * T / Iz).epsilon(1e-5));  // 4e-7 at h = 1e-3 (second order)
  CHECK(std::fabs(omega_body[0]) < 1e-9);
  // The spin angle about the body z axis: the relative rotation from the start.
  const Eigen::Quaterniond p0(r.frames.front().q[3], r.frames.front().q[4], r.frames.front().q[5], r.frames.front().q[6]);
  const Eigen::Quaterniond p1(f.q[3], f.q[4], f.q[5], f.q[6]);
  const Eigen::AngleAxisd turn(p0.conjugate() * p1);
  CHECK(turn.angle() == Approx(torque * T * T / (2 * Iz)).epsilon(1e-5));
}
