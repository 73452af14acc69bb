// Coordinate partitioning for the explicit methods (include/catenary/integrators/coordinate_partitioning.hpp)
// against Baumgarte's stabilization: the driven slider-crank (zero degrees of freedom) against
// its closed-form kinematics; the spatial double pendulum's constraint residual and energy over
// a long run, and the cost per step; the rigid pendulum through large swings, where the
// partition is chosen again; the case file's field.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/coordinate_partitioning.hpp"
#include "catenary/model/case_loader.hpp"
#include "multibody_models.hpp"
#include "explicit_method_checks.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

AnalysisSettings explicit_settings(DynamicSettings::Integrator method, double h, double T, bool partitioning) {
  AnalysisSettings a = dynamic_settings(h, T, 0.0);
  a.dynamics.integrator = method;
  a.dynamics.partitioning = partitioning;
  a.dynamics.baumgarte_alpha = a.dynamics.baumgarte_beta = partitioning ? 0.0 : 20.0;
  return a;
}

const char* treatment(bool partitioning) { return partitioning ? "partitioning" : "Baumgarte 20/s"; }

}  // namespace

TEST_CASE("partitioning puts the driven slider-crank on its closed-form kinematics to round-off",
          "[partitioning][explicit][multibody]") {
  // Crank 0.1 m driven at 2 rad/s from 0.3 rad, rod 0.3 m: zero degrees of freedom, so the
  // partition makes every coordinate dependent and the slider's x is the closed form
  // r cos theta + sqrt(L^2 - r^2 sin^2 theta) to round-off, where Baumgarte's terms hold it
  // to their bound of the truncation error. rk4 at 10 ms over 2 s.
  const double r = 0.1, L = 0.3, theta0 = 0.3, omega = 2.0;
  const Model m = driven_slider_crank(r, L, theta0, omega);
  const int slider_x = 2 * 7;  // the third body's x
  double largest[2] = {};
  for (const bool partitioning : {false, true}) {
    const RunResult run = run_model(m, explicit_settings(DynamicSettings::Integrator::RK4, 1e-2, 2.0, partitioning));
    for (const StoredFrame& f : run.frames) {
      const double theta = theta0 + omega * f.time, s = std::sin(theta);
      const double exact = r * std::cos(theta) + std::sqrt(L * L - r * r * s * s);
      largest[partitioning] = std::max(largest[partitioning], std::fabs(f.q[slider_x] - exact));
    }
    std::printf("slider-crank, rk4 h = 10 ms, %s: largest slider error %.3e m\n", treatment(partitioning),
                largest[partitioning]);
  }
  CHECK(largest[1] < 1e-12);
  CHECK(largest[0] > 1e3 * largest[1]);
}

TEST_CASE("partitioning holds the double pendulum's constraints at round-off over a long run, with its energy and cost",
          "[partitioning][explicit][multibody]") {
  // dopri5 at 5 ms and abam order 4 at 2 ms over 20 s (some 12 swings): the largest |Phi| and
  // |Phi'| over the run, the largest energy error relative to the energy the motion exchanges,
  // and the wall time per step, with Baumgarte's terms and with partitioning.
  const Model m = spatial_double_pendulum();
  const double T = 20.0;
  struct Method {
    DynamicSettings::Integrator integrator;
    const char* name;
    double h;
  };
  for (const Method& method : {Method{DynamicSettings::Integrator::DOPRI5, "dopri5", 5e-3},
                               Method{DynamicSettings::Integrator::ABAM, "abam 4", 2e-3}}) {
    double position[2] = {}, energy[2] = {};
    for (const bool partitioning : {false, true}) {
      const auto start = std::chrono::steady_clock::now();
      const RunResult run = run_model(m, explicit_settings(method.integrator, method.h, T, partitioning));
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      REQUIRE(run.frames.back().time == Approx(T));
      const auto [phi, rate] = constraint_violations(m, run);
      position[partitioning] = phi;
      energy[partitioning] = energy_drift(run);
      std::printf("double pendulum, %s h = %g s over %g s, %s: largest |Phi| %.3e, |Phi'| %.3e, energy error %.3e "
                  "of the energy exchanged, %.1f us a step\n",
                  method.name, method.h, T, treatment(partitioning), phi, rate, energy[partitioning],
                  1e6 * seconds / static_cast<double>(run.summary.steps));
      if (partitioning) CHECK(rate < 1e-12);
    }
    CHECK(position[1] < 1e-12);
    CHECK(position[0] > 1e3 * position[1]);
    // The energy error is the method's truncation error either way: partitioning moves the state
    // by the drift, which is of that size.
    CHECK(energy[1] < 1e-5);
    CHECK(energy[0] < 1e-5);
  }
}

TEST_CASE("partitioning chooses the partition again as the pendulum swings over", "[partitioning][explicit][multibody]") {
  // The rigid pendulum released at 3 rad swings through most of a circle. Its frames from a run
  // with Baumgarte's terms (off the constraints by their bound) projected one after another: a
  // coordinate the first partition solves for comes to a turning point, the pivot ratio falls
  // and a new partition takes over; every projected state meets the constraints to round-off.
  // The run with partitioning keeps the energy to dopri5's accuracy.
  const Model m = rigid_pendulum(1.0, 1.0, 3.0);
  AnalysisSettings baumgarte = explicit_settings(DynamicSettings::Integrator::DOPRI5, 2e-3, 4.0, false);
  const RunResult run = run_model(m, baumgarte);
  CpuBackend backend(m);
  System sys(m, backend);
  CoordinatePartitioning partitioning(sys);
  double phi_before = 0.0, phi_after = 0.0, rate_after = 0.0;
  for (const StoredFrame& f : run.frames) {
    Vector q = uploaded(backend, f.q), v = uploaded(backend, f.v);
    phi_before = std::max(phi_before, host_constraint_residuals(sys, f.q, f.v, f.time).first.lpNorm<Eigen::Infinity>());
    partitioning.project(f.time, q, v);
    const auto [phi, rate] = host_constraint_residuals(sys, downloaded(backend, q), downloaded(backend, v), f.time);
    phi_after = std::max(phi_after, phi.lpNorm<Eigen::Infinity>());
    rate_after = std::max(rate_after, rate.lpNorm<Eigen::Infinity>());
  }
  const RunResult projected = run_model(m, explicit_settings(DynamicSettings::Integrator::DOPRI5, 2e-3, 4.0, true));
  std::printf("rigid pendulum from 3 rad, dopri5 h = 2 ms: %d partitions over %zu frames; largest |Phi| %.3e before the "
              "projection, %.3e and |Phi'| %.3e after; the run with partitioning: energy error %.3e\n",
              partitioning.partitions(), run.frames.size(), phi_before, phi_after, rate_after, energy_drift(projected));
  CHECK(partitioning.partitions() > 1);
  CHECK(phi_after < 1e-12);
  CHECK(rate_after < 1e-12);
  CHECK(energy_drift(projected) < 1e-6);
}

TEST_CASE("the case file's constraints choice for the explicit methods", "[partitioning][loader]") {
  const std::string base = dynamic_bar_case_text();
  for (const char* method : {"rk4", "dopri5", "abam"}) {
    const DynamicSettings d =
        load_cases_from_text(base + R"(, "integrator": ")" + method + R"(", "constraints": "partitioning"}})", "e.json")
            .front()
            .c.analysis.dynamics;
    CHECK(d.partitioning);
  }
  CHECK(!load_cases_from_text(base + R"(, "integrator": "rk4", "constraints": "baumgarte"}})", "e.json")
             .front()
             .c.analysis.dynamics.partitioning);
  const auto fails = [&](const std::string& analysis, const std::string& path, const std::string& message) {
    check_refused(base + analysis + "}}", path, message);
  };
  fails(R"(, "integrator": "dopri5", "constraints": "partitioning", "baumgarte": {"alpha": 5})", "/analysis/baumgarte",
        "which \"constraints\": \"partitioning\" replaces");
  fails(R"(, "integrator": "rk4", "constraints": "projection")", "/analysis/constraints", "projection");
  fails(R"(, "integrator": "hht", "constraints": "partitioning")", "/analysis/constraints",
        "is a parameter of the rk4, dopri5 and abam integrators; this analysis uses hht");
}
