// The Adams-Bashforth-Moulton predictor-corrector (src/integrators/abam.cpp): its variable-step
// weights against the classical constant-step coefficients and exact integrals of polynomials;
// observed orders 1 to 5 at a fixed step on the rigid pendulum against dopri5 at a 64 times
// finer step; the spatial double pendulum against dopri5; the adaptive step meeting its
// tolerance; a checkpoint resumed bit for bit (with coordinate partitioning too); the
// stability-limit message; the case file's fields and refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/adams_coefficients.hpp"
#include "catenary/model/case_loader.hpp"
#include "explicit_method_checks.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

AnalysisSettings abam_settings(int order, double h, double T, double baumgarte = 20.0) {
  AnalysisSettings a = dynamic_settings(h, T, 0.0);
  a.dynamics.integrator = DynamicSettings::Integrator::ABAM;
  a.dynamics.abam_order = order;
  a.dynamics.baumgarte_alpha = baumgarte;
  a.dynamics.baumgarte_beta = baumgarte;
  return a;
}

AnalysisSettings dopri5_settings(double h, double T) {
  AnalysisSettings a = abam_settings(4, h, T);
  a.dynamics.integrator = DynamicSettings::Integrator::DOPRI5;
  return a;
}

}  // namespace

TEST_CASE("Adams weights: the constant-step coefficients, and exact on polynomials at uneven points", "[abam]") {
  // Adams-Bashforth 4 (55, -59, 37, -9) / 24 and the 3-step Adams-Moulton (9, 19, -5, 1) / 24 of
  // a unit step; their error integrals 251/720 and -19/720 times 4!, so Milne's factor is
  // -19/270 (Hairer, Norsett and Wanner I, III.1).
  const AdamsWeights p = adams_weights({0, -1, -2, -3}, 0, 1), c = adams_weights({1, 0, -1, -2}, 0, 1);
  const double ab4[] = {55, -59, 37, -9}, am4[] = {9, 19, -5, 1};
  for (int j = 0; j < 4; ++j) {
    CHECK(p.w[j] == Approx(ab4[j] / 24).margin(1e-14));
    CHECK(c.w[j] == Approx(am4[j] / 24).margin(1e-14));
  }
  CHECK(p.error == Approx(251.0 / 720 * 24));
  CHECK(c.error == Approx(-19.0 / 720 * 24));
  CHECK(c.error / (p.error - c.error) == Approx(-19.0 / 270));
  // Random uneven points: k weights integrate every polynomial of degree below k exactly.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> gap(0.5, 2.0);
  for (int k = 1; k <= kMostAdamsPoints; ++k) {
    std::vector<double> t = {0.0};
    for (int j = 1; j < k; ++j) t.push_back(t.back() - 0.01 * gap(rng));
    const double a = 0.0, b = 0.01 * gap(rng);
    const AdamsWeights w = adams_weights(t, a, b);
    for (int degree = 0; degree < k; ++degree) {
      double sum = 0.0;
      for (int j = 0; j < k; ++j) sum += w.w[j] * std::pow(t[j], degree);
      const double exact = (std::pow(b, degree + 1) - std::pow(a, degree + 1)) / (degree + 1);
      CHECK(sum == Approx(exact).epsilon(1e-11).margin(1e-16));
    }
  }
  CHECK_THROWS_AS(adams_weights({0, 1, 2, 3, 4, 5}, 0, 1), std::invalid_argument);
}

TEST_CASE("abam converges with its order, 1 to 5, at a fixed step on the rigid pendulum", "[abam][explicit][multibody]") {
  // 1 m, 1 kg, from 1 rad at rest, Baumgarte 20/s, over 1 s. Reference: dopri5 at a 64 times
  // smaller step than the finest (its error below 1e-14). The first order - 1 steps are dopri5's
  // start, which leaves the Adams steps' order in the error from the first step on.
  const Model m = rigid_pendulum(1.0, 1.0, 1.0);
  const double T = 1.0;
  const double h0[] = {0, 4e-3, 1e-2, 1e-2, 5e-3, 5e-3};
  const Eigen::VectorXd reference = run_model(m, dopri5_settings(2.5e-4, T)).frames.back().q;
  for (int order = 1; order <= 5; ++order) {
    const std::vector<double> orders =
        observed_orders_of("rigid pendulum, abam order " + std::to_string(order), h0[order], [&](double h) {
          return (run_model(m, abam_settings(order, h, T)).frames.back().q - reference).lpNorm<Eigen::Infinity>();
        });
    for (double observed : orders) CHECK(observed == Approx(order).margin(0.3));
  }
}

TEST_CASE("abam follows dopri5 on the spatial double pendulum and keeps its constraints", "[abam][explicit][multibody]") {
  // Over 1 s at a fixed 2 ms, order 4 with Baumgarte 20/s, against dopri5 at 0.5 ms: the
  // difference falls with the step as order 4 does (2 ms against 1 ms), and the constraint
  // residual stays at the level Baumgarte holds.
  const Model m = spatial_double_pendulum();
  const double T = 1.0;
  const Eigen::VectorXd reference = run_model(m, dopri5_settings(5e-4, T)).frames.back().q;
  double difference[2] = {};
  for (int k : {0, 1}) {
    const double h = k == 0 ? 2e-3 : 1e-3;
    const RunResult r = run_model(m, abam_settings(4, h, T));
    REQUIRE(r.frames.back().time == Approx(T));
    difference[k] = (r.frames.back().q - reference).lpNorm<Eigen::Infinity>();
    const auto [phi, rate] = constraint_violations(m, r);
    std::printf("double pendulum, abam order 4, h = %g s: difference to dopri5 %.3e, largest |Phi| %.3e, |Phi'| %.3e\n",
                h, difference[k], phi, rate);
    CHECK(phi < 1e-6);
  }
  CHECK(difference[0] < 1e-4);
  CHECK(std::log2(difference[0] / difference[1]) > 3.5);
}

TEST_CASE("adaptive abam meets its tolerance on the rigid pendulum and the double pendulum", "[abam][explicit][multibody]") {
  check_adaptive_on_pendulums(
      "abam order 4", [](double T, double tolerance) { return adaptive_settings(abam_settings(4, 1e-3, T), tolerance); },
      [](double T) { return dopri5_settings(1e-3, T); });
}

TEST_CASE("a resumed adaptive abam run (history, start, step control, partition) equals the uninterrupted run",
          "[abam][checkpoint][partitioning]") {
  // The double pendulum over 0.6 s, a checkpoint every 0.1 s, with Baumgarte's terms and with
  // coordinate partitioning; the run is stopped three frames after its second checkpoint and
  // resumed on a fresh backend from it: every later frame equals the uninterrupted run's bit for
  // bit.
  const Model m = spatial_double_pendulum();
  for (const bool partitioning : {false, true}) {
    AnalysisSettings a = adaptive_settings(abam_settings(5, 1e-3, 0.6, partitioning ? 0.0 : 20.0), 1e-7);
    a.dynamics.partitioning = partitioning;
    const RunResult whole = run_model(m, a);
    struct Stopped {};
    std::vector<StateRecord> records;
    {
      CpuBackend backend(m);
      System sys(m, backend);
      RunSummary summary;
      int frames_after = 0;
      Checkpoints checkpoints;
      checkpoints.interval = 0.1;
      checkpoints.write = [&](StateRecord& record) { records.push_back(record); };
      const FrameSink sink = [&](const Frame&) {
        if (records.size() >= 2 && ++frames_after == 3) throw Stopped();
      };
      CHECK_THROWS_AS(run_dynamic(sys, a.dynamics, 0.0, sink, summary, nullptr, checkpoints), Stopped);
    }
    REQUIRE(records.size() == 2);
    CpuBackend backend(m);
    System sys(m, backend);
    RunSummary summary;
    std::vector<std::pair<double, Eigen::VectorXd>> resumed;
    Checkpoints checkpoints;
    checkpoints.resume = &records[1];
    run_dynamic(sys, a.dynamics, 0.0, [&](const Frame& f) { resumed.emplace_back(f.time, *f.q); }, summary, nullptr,
                checkpoints);
    REQUIRE(summary.resumed_at > 0.1);
    REQUIRE(!resumed.empty());
    CHECK(summary.steps == whole.summary.steps);
    CHECK(summary.rejected_steps == whole.summary.rejected_steps);
    const size_t first = whole.frames.size() - resumed.size();
    for (size_t j = 0; j < resumed.size(); ++j) {
      CHECK(resumed[j].first == whole.frames[first + j].time);
      CHECK((resumed[j].second.array() == whole.frames[first + j].q.array()).all());
    }
  }
}

TEST_CASE("an abam step beyond its stability limit says so", "[abam][explicit]") {
  // The undamped soft pinned cable (omega_max between 3,540 and 4,040 rad/s) at h = 1 ms, order 2:
  // omega_max h about 3.8, three times the order's limit of 1.29 on undamped modes.
  try {
    run_model(pinned_soft_cable(0.0), abam_settings(2, 1e-3, 1.0, 0.0));
    FAIL("the run did not fail");
  } catch (const SimulationError& e) {
    std::printf("abam order 2 at omega_max h = 3.8: %s\n", e.what());
    CHECK_THAT(e.what(), Catch::Contains("explicit step too long for the model's highest frequency (abam is stable"));
  }
}

TEST_CASE("the case file's abam integrator, its order and its refusals", "[abam][loader]") {
  const std::string base = dynamic_bar_case_text();
  const DynamicSettings abam = load_cases_from_text(base + R"(, "integrator": "abam", "order": 3,
      "baumgarte": {"alpha": 20, "beta": 10}, "adaptive": {}}})", "e.json")
                                   .front()
                                   .c.analysis.dynamics;
  CHECK(abam.integrator == DynamicSettings::Integrator::ABAM);
  CHECK(abam.abam_order == 3);
  CHECK(abam.baumgarte_alpha == 20.0);
  CHECK(abam.adaptive);
  CHECK(load_cases_from_text(base + R"(, "integrator": "abam"}})", "e.json").front().c.analysis.dynamics.abam_order == 4);
  const auto fails = [&](const std::string& analysis, const std::string& path, const std::string& message) {
    check_refused(base + analysis + "}}", path, message);
  };
  fails(R"(, "integrator": "abam", "order": 6)", "/analysis/order", "must be an integer from 1 to 5 (got 6)");
  fails(R"(, "integrator": "abam", "max_order": 3)", "/analysis/max_order",
        "is a parameter of the bdf integrator; this analysis uses abam, whose parameters are 'order', 'baumgarte', 'constraints'");
  fails(R"(, "integrator": "bdf", "order": 3)", "/analysis/order", "is a parameter of the abam integrator");
  fails(R"(, "integrator": "abam", "newton": "full")", "/analysis/newton",
        "sets the implicit integrators' Newton step; abam is explicit");
}
