// A line body's initial rigid motion (a body's "velocity" and "angular_velocity" in a case file)
// against closed forms: the nodal velocities of a rigid motion, the kinetic energy of a spinning
// rod, the centre of mass moving in a straight line (HHT keeps the linear momentum of a free body
// exactly) and the rod turning as a rigid body.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "catenary/model/builders.hpp"
#include "catenary/model/case_loader.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using catenary::testing::dynamic_settings;
using catenary::testing::run_model;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A free steel rod along x from (0, 0, 0) to (L, 0, 0) without gravity, moving at v and turning
// at w about its centre.
Model free_rod(const std::string& velocity, const std::string& angular_velocity, int dimension = 3) {
  const std::string point = dimension == 3 ? "[%s, 0, 0]" : "[%s, 0]";
  auto at = [&](const char* x) {
    char text[32];
    std::snprintf(text, sizeof text, point.c_str(), x);
    return std::string(text);
  };
  const std::string text = std::string(R"({"name": "free_rod", "model": {"dimension": )") + std::to_string(dimension) +
                           R"(, "materials": {"steel": {"youngs_modulus": 2e11, "density": 8000}},
    "sections": {"rod": {"shape": "circle", "diameter": 0.02}},
    "bodies": [{"name": "rod", "element": ")" +
                           (dimension == 3 ? "cable3d" : "beam2d") + R"(", "generator": "straight", "start": )" +
                           at("0") + R"(, "end": )" + at("2") + R"(, "elements": 8,
      "material": "steel", "section": "rod", "velocity": )" +
                           velocity + R"(, "angular_velocity": )" + angular_velocity + R"(}]},
    "analysis": {"type": "dynamic", "end_time": 0.5, "step": 1e-3}})";
  const std::string path = std::to_string(::getpid()) + "_catenary_initial_velocity.json";
  std::ofstream(path) << text;
  const Case c = load_case(path);
  std::remove(path.c_str());
  return c.model;
}

}  // namespace

TEST_CASE("a line body's initial rigid motion: nodal velocities and kinetic energy", "[loader][initial_velocity]") {
  const double L = 2.0, w = 3.0, area = kPi * 0.01 * 0.01, mass = 8000 * area * L;
  const Vec3 v = {0.5, -1.0, 0.25};
  const Model m = free_rod("[0.5, -1, 0.25]", "[0, 0, 3]");
  REQUIRE(line_mass(m, 0) == Approx(mass).epsilon(1e-12));
  const Vec3 centre = line_first_moment(m, 0, m.initial_positions);
  CHECK(centre[0] / mass == Approx(1.0).epsilon(1e-12));
  for (int node = 0; node < m.node_count; ++node) {
    const double x = m.initial_positions[6 * node];
    // v + w z x (r - c) with r - c = (x - 1, 0, 0); the slope (1, 0, 0) turns at w z x (1, 0, 0).
    CHECK(m.initial_velocities[6 * node + 0] == Approx(v[0]).epsilon(1e-14));
    CHECK(m.initial_velocities[6 * node + 1] == Approx(v[1] + w * (x - 1.0)).epsilon(0).margin(1e-14));
    CHECK(m.initial_velocities[6 * node + 2] == Approx(v[2]).epsilon(1e-14));
    CHECK(m.initial_velocities[6 * node + 3] == 0.0);
    CHECK(m.initial_velocities[6 * node + 4] == Approx(w).epsilon(1e-14));
    CHECK(m.initial_velocities[6 * node + 5] == 0.0);
  }
  // The first frame's kinetic energy: translation of the centre plus rotation of a rod about its
  // centre, I = m L^2 / 12 (the cubic Hermite field and the mass matrix's quadrature are exact).
  const auto r = run_model(m, dynamic_settings(1e-3, 1e-3, 0.0));
  const double expected = 0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 0.5 * mass * L * L / 12 * w * w;
  CHECK(r.frames.front().kinetic == Approx(expected).epsilon(1e-12));

  SECTION("a planar beam takes the rotation rate about z as a number") {
    const Model planar = free_rod("[0, 0.5]", "-2", 2);
    for (int node = 0; node < planar.node_count; ++node) {
      const double x = planar.initial_positions[4 * node];
      CHECK(planar.initial_velocities[4 * node + 0] == 0.0);
      CHECK(planar.initial_velocities[4 * node + 1] == Approx(0.5 - 2.0 * (x - 1.0)).epsilon(0).margin(1e-14));
      CHECK(planar.initial_velocities[4 * node + 3] == Approx(-2.0).epsilon(1e-14));
    }
  }
}

TEST_CASE("a free spinning rod keeps its momentum and turns as a rigid body", "[dynamics][initial_velocity]") {
  const double w = 3.0, T = 0.5;
  const Vec3 v = {0.5, -1.0, 0.25};
  const Model m = free_rod("[0.5, -1, 0.25]", "[0, 0, 3]");
  const auto r = run_model(m, dynamic_settings(1e-3, T, 0.0), 0.1);
  REQUIRE(r.frames.back().time == Approx(T));
  const double mass = line_mass(m, 0);
  const std::vector<double> q(r.frames.back().q.data(), r.frames.back().q.data() + m.dof_count());
  const std::vector<double> qdot(r.frames.back().v.data(), r.frames.back().v.data() + m.dof_count());
  const Vec3 centre = line_first_moment(m, 0, q), momentum = line_first_moment(m, 0, qdot);
  // No force has a net resultant: the centre moves at v (Newmark's update is exact for it).
  for (int i = 0; i < 3; ++i) {
    CHECK(momentum[i] / mass == Approx(v[i]).epsilon(0).margin(1e-10));
    CHECK(centre[i] / mass == Approx((i == 0 ? 1.0 : 0.0) + v[i] * T).epsilon(0).margin(1e-10));
  }
  // The end sits where a rigid rod's would, turned by w T about the centre, to the step's phase
  // error: 4.9e-6 m at h = 1e-3, 1.6e-6 at h / 2 and 0.7e-6 at h / 4 (second order, over about
  // 0.4e-6 m of the steel's stretch and axial vibration at 3 rad/s).
  const int end = 6 * (m.node_count - 1);
  const double expected[3] = {1.0 + v[0] * T + std::cos(w * T), v[1] * T + std::sin(w * T), v[2] * T};
  for (int i = 0; i < 3; ++i) CHECK(q[end + i] == Approx(expected[i]).epsilon(0).margin(1e-5));
}
