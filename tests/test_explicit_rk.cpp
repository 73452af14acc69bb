// The explicit integrators rk4 and dopri5 (src/integrators/explicit_rk.cpp) with Baumgarte's
// stabilization: observed orders 4 and 5 on the undamped soft pinned cable (a linear constraint,
// met exactly) and on the spatial double pendulum (nonlinear joints and Euler parameters,
// stabilized); the constraint drift of the double pendulum without and with the stabilization;
// the energy of the undamped rigid pendulum; the adaptive dopri5 against a fine reference; the
// message of a step beyond the stability limit; the case file's fields.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "catenary/core/errors.hpp"
#include "catenary/model/case_loader.hpp"
#include "explicit_method_checks.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

AnalysisSettings explicit_settings(DynamicSettings::Integrator method, double h, double T, double baumgarte = 0.0) {
  AnalysisSettings a = dynamic_settings(h, T, 0.0);
  a.dynamics.integrator = method;
  a.dynamics.baumgarte_alpha = baumgarte;
  a.dynamics.baumgarte_beta = baumgarte;
  return a;
}

struct Method {
  DynamicSettings::Integrator integrator;
  const char* name;
  double order;
};
const Method kMethods[] = {{DynamicSettings::Integrator::RK4, "rk4", 4.0},
                           {DynamicSettings::Integrator::DOPRI5, "dopri5", 5.0}};

}  // namespace

TEST_CASE("rk4 and dopri5 converge with orders 4 and 5 on the undamped soft pinned cable", "[dynamics][explicit]") {
  // 8 elements of 0.125 m, E = 2e7 Pa, 7800 kg/m^3: the axial wave speed is sqrt(E / rho) =
  // 50.6 m/s and the highest frequency, an axial mode of the cubic elements, between 3,540 and
  // 4,040 rad/s (rk4, stable to omega h = 2.83, runs at h = 0.7 ms and not at 0.8 ms), so the
  // steps 2e-4 down to 5e-5 s keep omega_max h below 0.81, within dopri5's 1.0. The pin is a linear constraint, which
  // every stage meets (no Baumgarte needed). Reference: the same method at a 16 times smaller step.
  // Over 0.2 s dopri5's error at 5e-5 s (1e-12) stays above the round-off that 4,000 steps add.
  const Model m = pinned_soft_cable(0.0);
  const double T = 0.2, h0 = 2e-4;
  for (const Method& method : kMethods) {
    auto final_q = [&](double h) { return run_model(m, explicit_settings(method.integrator, h, T)).frames.back().q; };
    const Eigen::VectorXd reference = final_q(h0 / 16);
    for (double order : observed_orders_of(std::string("soft cable ") + method.name, h0, [&](double h) {
           return (final_q(h) - reference).lpNorm<Eigen::Infinity>();
         }))
      CHECK(order == Approx(method.order).margin(0.3));
  }
}

TEST_CASE("rk4 and dopri5 with Baumgarte converge with orders 4 and 5 on the spatial double pendulum",
          "[dynamics][explicit][multibody]") {
  // The stabilized equations are an ODE for (q, v): the method's order holds in the positions
  // (dopri5's error falls a little faster than h^5 at these steps: at least the order is asked).
  const Model m = spatial_double_pendulum();
  const double T = 0.2, h0 = 1e-2;
  for (const Method& method : kMethods) {
    auto final_q = [&](double h) {
      return run_model(m, explicit_settings(method.integrator, h, T, 20.0)).frames.back().q;
    };
    const Eigen::VectorXd reference = final_q(h0 / 16);
    for (double order : observed_orders_of(std::string("double pendulum, Baumgarte 20/s, ") + method.name, h0,
                                           [&](double h) { return (final_q(h) - reference).lpNorm<Eigen::Infinity>(); }))
      CHECK((order > method.order - 0.3 && order < method.order + 0.7));
  }
}

TEST_CASE("the double pendulum's constraints drift off without Baumgarte and stay met with it",
          "[dynamics][explicit][multibody]") {
  // rk4 at h = 10 ms over 2 s: the largest |Phi| over the first and the second second.
  const Model m = spatial_double_pendulum();
  const double T = 2.0, h = 1e-2;
  double halves[2][2] = {};
  for (int stabilized : {0, 1}) {
    const RunResult r = run_model(m, explicit_settings(DynamicSettings::Integrator::RK4, h, T, stabilized ? 20.0 : 0.0));
    REQUIRE(r.frames.back().time == Approx(T));
    halves[stabilized][0] = constraint_violations(m, r, 0.0, 1.0).first;
    halves[stabilized][1] = constraint_violations(m, r, 1.0, 2.0).first;
    std::printf("double pendulum, rk4 h = %g s, Baumgarte %s: largest |Phi| %.3e (0-1 s), %.3e (1-2 s)\n", h,
                stabilized ? "alpha = beta = 20/s" : "off", halves[stabilized][0], halves[stabilized][1]);
  }
  CHECK(halves[0][1] > 2.0 * halves[0][0]);      // without: grows
  CHECK(halves[1][1] < 2.0 * halves[1][0]);      // with: bounded
  CHECK(halves[1][1] < 0.1 * halves[0][1]);
}

TEST_CASE("rk4 and dopri5 keep the undamped rigid pendulum's energy to their accuracy", "[dynamics][explicit][multibody]") {
  // 1 m, 1 kg, from 1 rad at rest: a period of about 2.2 s, one run over 2 s; the energy error
  // falls with the method's order.
  const Model m = rigid_pendulum(1.0, 1.0, 1.0);
  for (const Method& method : kMethods) {
    double drift[2] = {};
    for (int k : {0, 1}) {
      const double h = k == 0 ? 2e-2 : 1e-2;
      drift[k] = energy_drift(run_model(m, explicit_settings(method.integrator, h, 2.0, 20.0)));
      std::printf("rigid pendulum, %s h = %g s: energy drift %.3e of the energy released\n", method.name, h, drift[k]);
    }
    CHECK(drift[1] < (method.order == 4.0 ? 2e-6 : 1e-7));
    CHECK(std::log2(drift[0] / drift[1]) > method.order - 1.0);
  }
}

TEST_CASE("adaptive dopri5 meets its tolerance on the rigid pendulum and the double pendulum",
          "[dynamics][explicit][multibody]") {
  // On the double pendulum the motion amplifies the local errors 1.4 times beyond their sum at 1e-5.
  const auto dopri5 = [](double T) { return explicit_settings(DynamicSettings::Integrator::DOPRI5, 1e-3, T, 20.0); };
  check_adaptive_on_pendulums(
      "dopri5", [&](double T, double tolerance) { return adaptive_settings(dopri5(T), tolerance); }, dopri5);
}

TEST_CASE("an explicit step beyond the stability limit says so", "[dynamics][explicit]") {
  // The soft cable at h = 10 ms: omega_max h is about 30, ten times the limit.
  const Model m = pinned_soft_cable(0.0);
  try {
    run_model(m, explicit_settings(DynamicSettings::Integrator::RK4, 1e-2, 2.0));
    FAIL("the run did not fail");
  } catch (const SimulationError& e) {
    std::printf("rk4 at omega_max h = 30: %s\n", e.what());
    CHECK_THAT(e.what(), Catch::Contains("explicit step too long for the model's highest frequency"));
  }
}

TEST_CASE("the case file's rk4 and dopri5 integrators and their baumgarte object", "[dynamics][explicit][loader]") {
  const std::string base = dynamic_bar_case_text();
  const DynamicSettings rk4 =
      load_cases_from_text(base + R"(, "integrator": "rk4", "baumgarte": {"alpha": 20, "beta": 10}}})", "e.json")
          .front()
          .c.analysis.dynamics;
  CHECK(rk4.integrator == DynamicSettings::Integrator::RK4);
  CHECK(rk4.baumgarte_alpha == 20.0);
  CHECK(rk4.baumgarte_beta == 10.0);
  const DynamicSettings dopri5 =
      load_cases_from_text(base + R"(, "integrator": "dopri5", "adaptive": {}}})", "e.json").front().c.analysis.dynamics;
  CHECK(dopri5.integrator == DynamicSettings::Integrator::DOPRI5);
  CHECK(dopri5.adaptive);
  CHECK(dopri5.baumgarte_alpha == 0.0);
  CHECK(dopri5.baumgarte_beta == 0.0);
  const auto fails = [&](const std::string& analysis, const std::string& path, const std::string& message) {
    check_refused(base + analysis + "}}", path, message);
  };
  fails(R"(, "integrator": "rk4", "adaptive": {})", "/analysis/adaptive",
        "needs a local error estimate, which rk4 does not have");
  fails(R"(, "integrator": "dopri5", "baumgarte": {"alpha": 1, "gamma": 1})", "/analysis/baumgarte/gamma", "");
  fails(R"(, "integrator": "bdf", "baumgarte": {"alpha": 1})", "/analysis/baumgarte",
        "is a parameter of the rk4, dopri5 and abam integrators; this analysis uses bdf");
  fails(R"(, "integrator": "rk4", "stages": 2)", "/analysis/stages",
        "is a parameter of the sdirk integrator; this analysis uses rk4, whose parameters are 'baumgarte', 'constraints'");
  fails(R"(, "integrator": "dopri5", "newton": "modified")", "/analysis/newton",
        "sets the implicit integrators' Newton step; dopri5 is explicit");
  fails(R"(, "integrator": "rk4", "tolerance": 1e-8)", "/analysis/tolerance",
        "sets the implicit integrators' Newton step; rk4 is explicit");
}
