// Euler angles (rigid/euler_angles.hpp): against rotation matrices written out by hand for known
// angles and the products of elementary rotations, round trips away from and at the
// singularities, and the case reader's orientation form.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>

#include "catenary/model/case_loader.hpp"
#include "catenary/rigid/euler_angles.hpp"

using namespace catenary;
using namespace catenary::rigid;

namespace {

constexpr double kPi = 3.141592653589793;
constexpr EulerConvention k313 = EulerConvention::z_x_z, k123 = EulerConvention::x_y_z;

Mat<3, 3> rows(std::initializer_list<std::initializer_list<double>> r) {
  Mat<3, 3> a;
  int i = 0;
  for (const auto& row : r) {
    int j = 0;
    for (double x : row) a(i, j++) = x;
    ++i;
  }
  return a;
}

// The elementary rotations about x, y and z written out.
Mat<3, 3> rx(double t) { return rows({{1, 0, 0}, {0, std::cos(t), -std::sin(t)}, {0, std::sin(t), std::cos(t)}}); }
Mat<3, 3> ry(double t) { return rows({{std::cos(t), 0, std::sin(t)}, {0, 1, 0}, {-std::sin(t), 0, std::cos(t)}}); }
Mat<3, 3> rz(double t) { return rows({{std::cos(t), -std::sin(t), 0}, {std::sin(t), std::cos(t), 0}, {0, 0, 1}}); }

Mat<3, 3> reference(const Vec<3>& a, EulerConvention c) {
  return c == k313 ? mat_mul(mat_mul(rz(a[0]), rx(a[1])), rz(a[2])) : mat_mul(mat_mul(rx(a[0]), ry(a[1])), rz(a[2]));
}

double max_difference(const Mat<3, 3>& a, const Mat<3, 3>& b) {
  double d = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) d = std::max(d, std::fabs(a(i, j) - b(i, j)));
  return d;
}

Mat<3, 3> matrix_of(const Vec<3>& angles, EulerConvention c) { return rotation_matrix(from_euler_angles(angles, c)); }

}  // namespace

TEST_CASE("Euler angles: known angles give the rotation matrices written out by hand", "[rigid][euler-angles]") {
  // 3-1-3 (pi/2, 0, 0): a quarter turn about z.
  CHECK(max_difference(matrix_of(vec3(kPi / 2, 0, 0), k313), rows({{0, -1, 0}, {1, 0, 0}, {0, 0, 1}})) < 1e-15);
  // 3-1-3 (0, pi/2, 0): a quarter turn about x.
  CHECK(max_difference(matrix_of(vec3(0, kPi / 2, 0), k313), rows({{1, 0, 0}, {0, 0, -1}, {0, 1, 0}})) < 1e-15);
  // 3-1-3 (pi/2, pi/2, 0): about z, then about the body's new x (the ground y): body x -> ground y,
  // body y -> ground z, body z -> ground x.
  CHECK(max_difference(matrix_of(vec3(kPi / 2, kPi / 2, 0), k313), rows({{0, 0, 1}, {1, 0, 0}, {0, 1, 0}})) < 1e-15);
  // 1-2-3 (0, pi/2, 0): a quarter turn about y; (0, 0, pi/2) about z; (pi/2, 0, 0) about x.
  CHECK(max_difference(matrix_of(vec3(0, kPi / 2, 0), k123), rows({{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}})) < 1e-15);
  CHECK(max_difference(matrix_of(vec3(0, 0, kPi / 2), k123), rows({{0, -1, 0}, {1, 0, 0}, {0, 0, 1}})) < 1e-15);
  CHECK(max_difference(matrix_of(vec3(kPi / 2, 0, 0), k123), rows({{1, 0, 0}, {0, 0, -1}, {0, 1, 0}})) < 1e-15);
  // 1-2-3 (pi/2, 0, pi/2): about x, then about the body's new z (the ground -y).
  CHECK(max_difference(matrix_of(vec3(kPi / 2, 0, kPi / 2), k123), rows({{0, -1, 0}, {0, 0, -1}, {1, 0, 0}})) < 1e-15);
  // Any angles: the product of the elementary rotations about the body's axes.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> angle(-4.0, 4.0);
  for (int k = 0; k < 200; ++k) {
    const Vec<3> a = vec3(angle(rng), angle(rng), angle(rng));
    for (EulerConvention c : {k313, k123}) CHECK(max_difference(matrix_of(a, c), reference(a, c)) < 2e-15);
  }
}

TEST_CASE("Euler angles: angles -> parameters -> angles away from the singularities, and parameters -> angles -> "
          "rotation for any orientation",
          "[rigid][euler-angles]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst_angle = 0.0, worst_matrix = 0.0;
  for (int k = 0; k < 1000; ++k) {
    // a, c in (-pi, pi); b in 3-1-3's (0, pi) and 1-2-3's (-pi/2, pi/2), 1e-3 rad or more from the ends.
    const Vec<3> a313 = vec3(kPi * u(rng), 0.5 * kPi + (0.5 * kPi - 1e-3) * u(rng), kPi * u(rng));
    const Vec<3> a123 = vec3(kPi * u(rng), (0.5 * kPi - 1e-3) * u(rng), kPi * u(rng));
    for (const auto& [angles, c] : {std::pair{a313, k313}, std::pair{a123, k123}}) {
      const Vec<3> back = euler_angles(from_euler_angles(angles, c), c);
      for (int i = 0; i < 3; ++i) worst_angle = std::max(worst_angle, std::fabs(back[i] - angles[i]));
    }
    // A random p of any length: its angles give its rotation back.
    const Vec<4> p = vec4(u(rng), u(rng), u(rng), u(rng));
    for (EulerConvention c : {k313, k123}) {
      const Mat<3, 3> a = rotation_matrix(normalized(p));
      worst_matrix = std::max(worst_matrix, max_difference(matrix_of(euler_angles(p, c), c), a));
    }
  }
  INFO("largest angle error " << worst_angle << ", largest matrix error " << worst_matrix);
  // 1e-3 rad from a singularity the undefined combination of a and c is multiplied by about 5e-4.
  CHECK(worst_angle < 1e-12);  // measured 4.2e-14
  CHECK(worst_matrix < 1e-14);  // measured 1.2e-15
}

TEST_CASE("Euler angles at and near the singularities: c = 0, a the defined sum or difference, and the rotation "
          "round-trips",
          "[rigid][euler-angles]") {
  const double a = 0.7, c = 0.4;
  struct Singular {
    EulerConvention convention;
    double b, expected_a;
  };
  // 3-1-3 at b = 0 and 1-2-3 at b = pi/2 define a + c; 3-1-3 at b = pi and 1-2-3 at b = -pi/2, a - c.
  for (const Singular& s : {Singular{k313, 0.0, a + c}, Singular{k313, kPi, a - c}, Singular{k123, 0.5 * kPi, a + c},
                            Singular{k123, -0.5 * kPi, a - c}}) {
    INFO("convention " << (s.convention == k313 ? "313" : "123") << ", b = " << s.b);
    const Vec<3> given = vec3(a, s.b, c);
    const Vec<3> back = euler_angles(from_euler_angles(given, s.convention), s.convention);
    CHECK(back[0] == Approx(s.expected_a).margin(1e-14));
    CHECK(back[1] == Approx(s.b).margin(1e-15));
    CHECK(back[2] == 0.0);
    CHECK(max_difference(matrix_of(back, s.convention), reference(given, s.convention)) < 1e-15);
    // Close to the singularity the angles change fast, the rotation does not.
    for (double off : {1e-13, 1e-10, 1e-7, 1e-4}) {
      const Vec<3> near = vec3(a, s.b + (s.b > 0.0 ? -off : off), c);
      const Vec<3> again = euler_angles(from_euler_angles(near, s.convention), s.convention);
      CHECK(max_difference(matrix_of(again, s.convention), reference(near, s.convention)) < 4e-15);
    }
  }
}

TEST_CASE("a rigid body's orientation is read as Euler angles in either convention", "[rigid][euler-angles][loader]") {
  for (const std::string convention : {"313", "123"}) {
    const std::string text = R"({"name": "angles", "model": {"dimension": 3, "gravity": [0, 0, -9.81],
      "rigid_bodies": [{"name": "b", "mass": 1, "inertia": [1, 2, 3], "position": [0, 0, 0],
                        "orientation": {"euler_angles": [0.3, 1.2, -2.0], "convention": ")" +
                             convention + R"("}}]},
      "analysis": {"type": "dynamic", "end_time": 1, "step": 0.1}})";
    const Case cs = load_cases_from_text(text, "angles.json").at(0).c;
    const EulerConvention c = convention == "313" ? k313 : k123;
    const Vec<4> p = cs.model.mechanism.bodies.at(0).orientation;
    CHECK(max_difference(rotation_matrix(p), reference(vec3(0.3, 1.2, -2.0), c)) < 1e-15);
  }
}
