// The planar beam (beam2d) under the Reissner strain law against the geometrically exact
// (extensible, shear-rigid) rod: a clamped cantilever with a tip force P = 3 EI / L^2 across its
// axis, compared with Reissner's rod equations solved in this file by shooting (RK4). The
// reference itself is checked by halving its step and, in the inextensible limit, against
// Mattiasson's elastica table. The Green-Lagrange law's departure from that reference is measured
// as a contrast.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <limits>

#include "catenary/model/builders.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using catenary::testing::node_coordinate;
using catenary::testing::run_model;
using catenary::testing::static_settings;

namespace {

// Tip position of Reissner's planar rod, clamped at s = 0 along +x, with the tip force (0, -P):
// the internal force n = (0, -P) is constant, and in the reference arc length s
//   theta' = M / EI, M' = P (1 + eps) cos(theta), x' = (1 + eps) cos(theta), y' = (1 + eps) sin(theta),
//   eps = T / EA, T = n . t = -P sin(theta),
// with theta(0) = x(0) = y(0) = 0 and M(L) = 0. Shooting on M(0) by bisection (M(L) = M(0) + P x(L)
// rises with M(0); M(0) in [-P L (1 + 2 P / EA), 0]), RK4 with `steps` steps. EA = infinity gives
// the inextensible elastica.
struct Tip {
  double x, y;
};

Tip reissner_rod_tip(double L, double EA, double EI, double P, int steps) {
  auto integrate = [&](double M0, Tip& tip) {
    const double h = L / steps;
    double s[4] = {0.0, M0, 0.0, 0.0};  // theta, M, x, y
    auto f = [&](const double* u, double* d) {
      const double c = std::cos(u[0]), sn = std::sin(u[0]), stretch = 1.0 + (-P * sn) / EA;
      d[0] = u[1] / EI;
      d[1] = P * stretch * c;
      d[2] = stretch * c;
      d[3] = stretch * sn;
    };
    double k1[4], k2[4], k3[4], k4[4], u[4];
    for (int i = 0; i < steps; ++i) {
      f(s, k1);
      for (int j = 0; j < 4; ++j) u[j] = s[j] + 0.5 * h * k1[j];
      f(u, k2);
      for (int j = 0; j < 4; ++j) u[j] = s[j] + 0.5 * h * k2[j];
      f(u, k3);
      for (int j = 0; j < 4; ++j) u[j] = s[j] + h * k3[j];
      f(u, k4);
      for (int j = 0; j < 4; ++j) s[j] += h / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    }
    tip = {s[2], s[3]};
    return s[1];  // M(L), must vanish
  };
  double lo = -P * L * (1.0 + 2.0 * P / EA), hi = 0.0;
  Tip tip{0.0, 0.0};
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    if (integrate(mid, tip) > 0.0) hi = mid; else lo = mid;
  }
  integrate(0.5 * (lo + hi), tip);
  return tip;
}

// The steel cantilever of these tests: L = 2 m, E = 2.07e11 Pa, square 0.1 m section.
constexpr double kL = 2.0, kE = 2.07e11, kSide = 0.1;
constexpr double kEA = kE * kSide * kSide, kEI = kE * kSide * kSide * kSide * kSide / 12.0;
constexpr double kP = 3.0 * kEI / (kL * kL);

// Tip position of the clamped beam2d cantilever of `elements` elements under the tip force.
Tip fe_cantilever_tip(int elements, StrainLaw law) {
  Model m;
  m.dimension = 2;
  const LineProperties p{kEA, kEI, 7850.0 * kSide * kSide, 0.0, law};
  add_straight_line(m, "beam", {0, 0, 0}, {kL, 0, 0}, elements, p);
  finalize_model(m);
  add_fix(m, 0, {0, 1, 2, 3}, "clamp", "/constraints/0");
  const int tip = body_node(m, 0, -1);
  add_point_force(m, tip, {0, -kP, 0}, TimeFunction::constant(1.0));
  const auto r = run_model(m, static_settings(6));
  REQUIRE(r.summary.end_time == Approx(1.0));  // the full load reached (a failed load step throws)
  const Eigen::VectorXd& q = r.frames.back().q;
  return {node_coordinate(m, q, tip, 0), node_coordinate(m, q, tip, 1)};
}

}  // namespace

TEST_CASE("the shooting reference of Reissner's rod is converged in its step and reproduces the elastica",
          "[statics][reissner]") {
  const Tip a = reissner_rod_tip(kL, kEA, kEI, kP, 20000), b = reissner_rod_tip(kL, kEA, kEI, kP, 40000);
  const double step_change = std::hypot(a.x - b.x, a.y - b.y) / std::hypot(a.x - kL, a.y);
  std::printf("Reissner rod reference tip (L = 2 m, P = 3 EI / L^2): x = %.15g m, y = %.15g m; "
              "change on halving the RK4 step %.2e relative\n", a.x, a.y, step_change);
  CHECK(step_change < 1e-10);
  // Inextensible limit, k = P L^2 / EI = 2: Mattiasson (1981), shortening 0.16064 L, deflection 0.49346 L.
  const double inf = std::numeric_limits<double>::infinity();
  const Tip e = reissner_rod_tip(1.0, inf, 1.0, 2.0, 20000);
  CHECK(1.0 - e.x == Approx(0.16064).margin(2e-5));
  CHECK(-e.y == Approx(0.49346).margin(2e-5));
}

TEST_CASE("the Reissner-law beam2d cantilever converges to the tip of Reissner's rod within 1e-6 at 64 elements",
          "[statics][reissner]") {
  const Tip ref = reissner_rod_tip(kL, kEA, kEI, kP, 20000);
  const double displacement = std::hypot(ref.x - kL, ref.y);  // |tip displacement| of the reference
  double previous = std::numeric_limits<double>::infinity();
  for (int elements : {8, 16, 32, 64}) {
    const Tip t = fe_cantilever_tip(elements, StrainLaw::reissner);
    const double ex = std::fabs(t.x - ref.x), ey = std::fabs(t.y - ref.y);
    const double error = std::max(ex, ey) / displacement;
    std::printf("Reissner law, %3d elements: tip error x %.2e, y %.2e relative to |tip displacement| "
                "(%.2e, %.2e relative to L)\n", elements, ex / displacement, ey / displacement, ex / kL, ey / kL);
    INFO(elements << " elements: error " << error);
    CHECK(error < previous);
    previous = error;
    if (elements == 64) CHECK(error < 1e-6);
  }
}

TEST_CASE("the Green-Lagrange-law beam2d cantilever departs from Reissner's rod by far more than the discretization error",
          "[statics][reissner]") {
  // Not a discretization error: the Green-Lagrange law is Hooke's law on the Green-Lagrange strain
  // (and bends with the spatial curvature), not on the engineering strain and material curvature
  // of Reissner's rod, so it converges to another solution.
  const Tip ref = reissner_rod_tip(kL, kEA, kEI, kP, 20000);
  const double displacement = std::hypot(ref.x - kL, ref.y);
  const Tip t = fe_cantilever_tip(64, StrainLaw::green_lagrange);
  const double ex = std::fabs(t.x - ref.x), ey = std::fabs(t.y - ref.y);
  std::printf("Green-Lagrange law, 64 elements: tip departure x %.2e, y %.2e relative to |tip displacement| "
              "(%.2e, %.2e relative to L)\n", ex / displacement, ey / displacement, ex / kL, ey / kL);
  CHECK(std::max(ex, ey) / displacement > 1e-4);
}
