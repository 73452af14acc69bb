// Static analyses against closed-form solutions: the small-deflection cantilever, the
// large-deflection elastica (Mattiasson's table, re-derived here by shooting) and the catenary.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "catenary/model/builders.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using catenary::testing::node_coordinate;
using catenary::testing::run_model;
using catenary::testing::dynamic_settings;
using catenary::testing::static_settings;

namespace {

// Inextensible elastica of a cantilever with a tip force perpendicular to its initial axis:
// theta'' = -k cos(theta), theta(0) = 0, theta'(1) = 0, s in [0, 1]. Shooting on theta'(0)
// with RK4; returns the tip displacement (along the axis shortening, transverse deflection)/L.
void elastica(double k, double& shortening, double& deflection) {
  auto integrate = [&](double kappa0, double& x, double& y) {
    const int n = 4000;
    const double h = 1.0 / n;
    double th = 0.0, w = kappa0;
    x = y = 0.0;
    for (int i = 0; i < n; ++i) {
      // state (theta, theta', x, y)
      auto f = [&](double t, double ww, double d[4]) {
        d[0] = ww;
        d[1] = -k * std::cos(t);
        d[2] = std::cos(t);
        d[3] = std::sin(t);
      };
      double k1[4], k2[4], k3[4], k4[4];
      f(th, w, k1);
      f(th + 0.5 * h * k1[0], w + 0.5 * h * k1[1], k2);
      f(th + 0.5 * h * k2[0], w + 0.5 * h * k2[1], k3);
      f(th + h * k3[0], w + h * k3[1], k4);
      th += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]);
      w += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]);
      x += h / 6 * (k1[2] + 2 * k2[2] + 2 * k3[2] + k4[2]);
      y += h / 6 * (k1[3] + 2 * k2[3] + 2 * k3[3] + k4[3]);
    }
    return w;  // theta'(1), must vanish
  };
  double lo = 0.0, hi = k;  // theta'(0) = moment at the clamp / EI lies in (0, k]
  double x = 0, y = 0;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (integrate(mid, x, y) > 0.0) hi = mid; else lo = mid;
  }
  integrate(0.5 * (lo + hi), x, y);
  shortening = 1.0 - x;
  deflection = y;
}

}  // namespace

TEST_CASE("small-deflection cantilever matches F L^3 / (3 E I)", "[statics]") {
  for (int dim : {2, 3}) {
    Model m;
    m.dimension = dim;
    LineProperties p{1e7, 2.0, 1.0, 0.0};
    add_straight_line(m, "beam", {0, 0, 0}, {2.0, 0, 0}, 8, p);
    finalize_model(m);
    std::vector<int> all;
    for (int k = 0; k < 2 * dim; ++k) all.push_back(k);
    add_fix(m, 0, all, "clamp", "/constraints/0");
    const double F = 1e-3, L = 2.0, EI = 2.0;
    const Vec3 force = dim == 3 ? Vec3{0, 0, -F} : Vec3{0, -F, 0};
    add_point_force(m, body_node(m, 0, -1), force, TimeFunction::constant(1.0));
    const auto r = run_model(m, static_settings(1));
    const double tip = node_coordinate(m, r.frames.back().q, body_node(m, 0, -1), dim - 1);
    const double expected = -F * L * L * L / (3 * EI);
    INFO("dimension " << dim);
    CHECK(tip == Approx(expected).epsilon(1e-3));
  }
}

TEST_CASE("large-deflection cantilever matches the elastica (Mattiasson)", "[statics]") {
  // Mattiasson (1981), tip displacements / L for k = F L^2 / (E I): shortening, deflection.
  const double table[4][3] = {{1, 0.05643, 0.30172}, {2, 0.16064, 0.49346},
                              {5, 0.38763, 0.71379}, {10, 0.55500, 0.81061}};
  for (const auto& row : table) {
    const double k = row[0];
    double u_ref, w_ref;
    elastica(k, u_ref, w_ref);
    // The shooting solution reproduces the published table (a check of the reference itself).
    CHECK(u_ref == Approx(row[1]).margin(2e-5));
    CHECK(w_ref == Approx(row[2]).margin(2e-5));

    Model m;
    m.dimension = 3;
    const double L = 1.0, EI = 1.0;
    LineProperties p{1e8, EI, 1.0, 0.0};  // EA / (F) >= 1e7: extension negligible
    add_straight_line(m, "cable", {0, 0, 0}, {L, 0, 0}, 32, p);
    finalize_model(m);
    add_fix(m, 0, {0, 1, 2, 3, 4, 5}, "clamp", "/constraints/0");
    const int tip = body_node(m, 0, -1);
    add_point_force(m, tip, {0, 0, -k * EI / (L * L)}, TimeFunction::constant(1.0));
    const auto r = run_model(m, static_settings(static_cast<int>(2 * k)));
    const Eigen::VectorXd& q = r.frames.back().q;
    const double u = L - node_coordinate(m, q, tip, 0), w = -node_coordinate(m, q, tip, 2);
    std::printf("elastica k = %g: u / L = %.6f (shooting %.6f), w / L = %.6f (%.6f); %ld load steps (%ld rejected), "
                "%ld Newton iterations\n",
                k, u / L, u_ref, w / L, w_ref, r.summary.steps, r.summary.rejected_steps, r.summary.newton_iterations);
    INFO("k = " << k << " u = " << u << " (ref " << u_ref << "), w = " << w << " (ref " << w_ref << ")");
    CHECK(std::fabs(u - u_ref * L) < 5e-4 * L);
    CHECK(std::fabs(w - w_ref * L) < 5e-4 * L);
    // Each load step starts from the secant through the last two equilibria, and a bisected
    // increment doubles again after easy steps (performance.md, "Load steps in statics"): here
    // 237 to 600 iterations; from the last equilibrium with the increments kept halved, k = 10
    // took more than 3,000.
    CHECK(r.summary.newton_iterations < 1000);
  }
}

TEST_CASE("hanging cable matches the analytic catenary", "[statics]") {
  // Span d, length S: S = 2 a sinh(d / (2 a)), sag = a (cosh(d / (2 a)) - 1).
  const double d = 10.0, S = 12.0;
  double a = 1.0, lo = 0.1, hi = 1000.0;
  for (int it = 0; it < 200; ++it) {  // bisection on a
    a = 0.5 * (lo + hi);
    if (2 * a * std::sinh(d / (2 * a)) > S) lo = a; else hi = a;
  }
  const double sag = a * (std::cosh(d / (2 * a)) - 1.0);

  Model m;
  m.dimension = 3;
  m.gravity[2] = -9.81;
  // Strain under the ~60 N tension is 6e-7 and the bending length sqrt(EI / T) is 4 mm, so
  // extension and bending change the sag by far less than the tolerance. The initial guess is the
  // builder's catenary of the cable's length: Newton must keep the stable hanging shape.
  LineProperties p{1e8, 1e-3, 1.0, 0.0};
  add_straight_line(m, "cable", {0, 0, 0}, {d, 0, 0}, 40, p, S, {0, 0, -1});
  finalize_model(m);
  add_spherical_to_ground(m, 0, {0, 0, 0}, "left", "/constraints/0");
  add_spherical_to_ground(m, body_node(m, 0, -1), {d, 0, 0}, "right", "/constraints/1");
  AnalysisSettings settings = static_settings(1);
  settings.statics.max_iterations = 60;
  const auto r = run_model(m, settings);
  double lowest = 0.0;
  const Eigen::VectorXd& q = r.frames.back().q;
  for (int n = 0; n < m.node_count; ++n) lowest = std::min(lowest, node_coordinate(m, q, n, 2));
  INFO("sag " << -lowest << " analytic " << sag);
  CHECK(-lowest == Approx(sag).epsilon(5e-3));
  CHECK(r.summary.newton_iterations < 60);
  // Vertical support reactions carry the whole weight: 2 * (-lambda_z) = rho A S g.
  const Eigen::VectorXd& lambda = r.frames.back().lambda;
  CHECK(-(lambda[2] + lambda[5]) == Approx(1.0 * S * 9.81).epsilon(1e-9));
}
