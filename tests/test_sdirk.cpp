// SDIRK (src/integrators/sdirk.cpp): observed orders 2 and 3 with fixed steps on the swinging
// cantilever (linear constraints) and on the spatial double pendulum (rigid bodies, nonlinear
// joints, index 3); the numerically stiff two-mass chain of the multibody chapter (fast mode
// critically overdamped) against its modal closed form with steps far longer than the fast
// period; the adaptive step against a fine reference; the case file's fields.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstdio>

#include <Eigen/Eigenvalues>

#include "catenary/core/errors.hpp"
#include "catenary/model/case_loader.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

AnalysisSettings sdirk_settings(double h, double T, int stages) {
  AnalysisSettings a = dynamic_settings(h, T, 0.0);
  a.dynamics.integrator = DynamicSettings::Integrator::SDIRK;
  a.dynamics.stages = stages;
  a.dynamics.newton_tolerance = 1e-12;
  return a;
}

}  // namespace

TEST_CASE("SDIRK of 2 and 3 stages converges with orders 2 and 3 on a damped pinned cable", "[dynamics][sdirk]") {
  // The falling cable of 8 elements with Kelvin-Voigt damping (eta = 0.01 s): smooth, its stiff
  // modes damped out by the material as by the method (undamped, the L-stable method damps what a
  // fine reference follows, and the orders wander). A pin is a linear constraint: the stages
  // meet it exactly.
  const Model m = pinned_soft_cable(1e-3);
  const double T = 0.1, h0 = 1e-3;
  auto final_q = [&](double h, int stages) { return run_model(m, sdirk_settings(h, T, stages)).frames.back().q; };
  const Eigen::VectorXd reference = final_q(h0 / 64, 3);
  for (int stages : {2, 3}) {
    for (double order : observed_orders_of("damped cable SDIRK" + std::to_string(stages), h0, [&](double h) {
           return (final_q(h, stages) - reference).lpNorm<Eigen::Infinity>();
         }))
      CHECK(order == Approx(stages).margin(0.25));
  }
}

TEST_CASE("SDIRK on rigid bodies with nonlinear joints: order reduction at index 3, none at stabilized index 2",
          "[dynamics][sdirk][multibody]") {
  // The spatial double pendulum's final coordinates against a run of a 64 times smaller step.
  // Index 3 (the joints' position constraints at every stage), a method of stage order 1 converges
  // at first order in the positions (Hairer, Lubich and Roche 1989); with the velocity constraints
  // at the stages and the positions projected (stabilized index 2, an index-2 problem), at order
  // min(p, stage order + 1) = 2.
  const Model m = spatial_double_pendulum();
  const double T = 0.2, h0 = 1e-2;
  for (const auto formulation : {DynamicSettings::Formulation::Index3, DynamicSettings::Formulation::StabilizedIndex2}) {
    const bool index3 = formulation == DynamicSettings::Formulation::Index3;
    for (int stages : {2, 3}) {
      auto final_q = [&](double h) {
        AnalysisSettings a = sdirk_settings(h, T, stages);
        a.dynamics.formulation = formulation;
        return run_model(m, a).frames.back().q;
      };
      const Eigen::VectorXd reference = final_q(h0 / 64);
      const std::string label = std::string(index3 ? "index 3" : "stabilized index 2") + ", rigid SDIRK" +
                                std::to_string(stages);
      for (double order : observed_orders_of(label, h0, [&](double h) {
             return (final_q(h) - reference).lpNorm<Eigen::Infinity>();
           }))
        CHECK(order == Approx(index3 ? 1.0 : 2.0).margin(0.3));
    }
  }
}

TEST_CASE("SDIRK on the numerically stiff two-mass chain: the slow mode followed, the fast one damped out",
          "[dynamics][sdirk]") {
  // The chapter's example: k1 = 1e4, k2 = 1e9 N/m, 1 kg each, c1 = 100, c2 = 1e8 N s/m (the fast
  // mode overdamped: its eigenvalues near -2e8 and -10 1/s); m1 displaced 0.01 m. Closed form:
  // z(t) = V exp(L t) V^-1 z0 of the first-order form.
  const double k1 = 1e4, k2 = 1e9, c1 = 100, c2 = 1e8, T = 0.5;
  Model m = two_mass_chain(k1, k2, 1.0, 1.0, 0.01, 0.0);
  m.mechanism.forces.tsda[0].damping = c1;
  m.mechanism.forces.tsda[1].damping = c2;
  Eigen::Matrix4d A = Eigen::Matrix4d::Zero();
  A.topRightCorner<2, 2>() = Eigen::Matrix2d::Identity();
  A.bottomLeftCorner<2, 2>() << -(k1 + k2), k2, k2, -k2;
  A.bottomRightCorner<2, 2>() << -(c1 + c2), c2, c2, -c2;
  const Eigen::EigenSolver<Eigen::Matrix4d> modes(A);
  const Eigen::Vector4cd z0(0.01, 0.0, 0.0, 0.0);
  const Eigen::Vector4cd w = modes.eigenvectors().partialPivLu().solve(z0);
  const auto exact = [&](double t) -> Eigen::Vector4d {
    Eigen::Vector4cd e;
    for (int k = 0; k < 4; ++k) e[k] = std::exp(modes.eigenvalues()[k] * t) * w[k];
    return (modes.eigenvectors() * e).real();
  };
  for (int stages : {2, 3}) {
    const double h = 5e-3;  // the slow period is 0.09 s; the fast time constant 5e-9 s
    const RunResult r = run_model(m, sdirk_settings(h, T, stages));
    double worst = 0.0;
    for (const StoredFrame& f : r.frames) {
      const Eigen::Vector4d z = exact(f.time);
      REQUIRE(z.allFinite());
      worst = std::max({worst, std::fabs(f.q[0] - 1.0 - z[0]), std::fabs(f.q[7] - 2.0 - z[1])});
    }
    std::printf("stiff damped chain, SDIRK%d, h = %g s: %ld steps, largest position error %.3e m\n", stages, h,
                r.summary.steps, worst);
    CHECK(worst < (stages == 2 ? 1e-4 : 2e-5));
  }
}

TEST_CASE("adaptive SDIRK meets its tolerance on a damped cable, and 3 stages take fewer steps than 2",
          "[dynamics][sdirk]") {
  const Model m = pinned_soft_cable(0.01);
  const double T = 0.5;
  const auto fine = run_model(m, dynamic_settings(1e-5, T, 0.0), T);
  long steps[4] = {};
  for (int stages : {2, 3}) {
    const auto r = run_model(m, adaptive_settings(sdirk_settings(1e-4, T, stages), 1e-6), T);
    REQUIRE(r.frames.back().time == Approx(T));
    const int tip = m.node_count - 1;
    double d = 0.0;
    for (int k = 0; k < 3; ++k)
      d = std::max(d, std::fabs(node_coordinate(m, r.frames.back().q, tip, k) - node_coordinate(m, fine.frames.back().q, tip, k)));
    std::printf("adaptive SDIRK%d, tolerance 1e-6: %ld steps (%ld rejected), tip difference %.3e m\n", stages,
                r.summary.steps, r.summary.rejected_steps, d);
    CHECK(d < 2e-3);
    steps[stages] = r.summary.steps;
  }
  CHECK(steps[3] < steps[2]);
}

TEST_CASE("the case file's sdirk integrator and its stages", "[dynamics][sdirk][loader]") {
  const std::string base = dynamic_bar_case_text() + R"(, "integrator": "sdirk")";
  const Case c = load_cases_from_text(base + R"(, "stages": 2}})", "sdirk.json").front().c;
  CHECK(c.analysis.dynamics.integrator == DynamicSettings::Integrator::SDIRK);
  CHECK(c.analysis.dynamics.stages == 2);
  const Case defaults = load_cases_from_text(base + "}}", "sdirk.json").front().c;
  CHECK(defaults.analysis.dynamics.stages == 3);
  CHECK(defaults.analysis.dynamics.formulation == DynamicSettings::Formulation::StabilizedIndex2);
  CHECK(load_cases_from_text(base + R"(, "formulation": "index3"}})", "sdirk.json").front().c.analysis.dynamics.formulation ==
        DynamicSettings::Formulation::Index3);
  try {
    load_cases_from_text(base + R"(, "stages": 4}})", "sdirk.json");
    FAIL("4 stages were accepted");
  } catch (const InputError& e) {
    CHECK(e.json_path() == "/analysis/stages");
    CHECK_THAT(e.what(), Catch::Contains("must be 2 or 3 (got 4)"));
  }
  try {
    load_cases_from_text(base + R"(, "alpha": -0.1}})", "sdirk.json");
    FAIL("alpha was accepted for sdirk");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("is a parameter of the hht integrator; this analysis uses sdirk"));
  }
}
