// The Newton iteration's stopping test (time_stepper.cpp, estimated_error): after two Newton
// updates in a row it ends the step when the rate of the two bounds the error left within the
// tolerance, although the last update alone is not. The runs must then equal runs to a tolerance
// five orders tighter (whose extra iterations reach the residual's round-off floor), with every
// integrator, on cables and on rigid bodies coupled to them, in fewer iterations.
#include <catch2/catch.hpp>
#include <tuple>

#include "catenary/integrators/system.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

TEST_CASE("Newton steps end when the convergence rate bounds the error left by the tolerance", "[dynamics][newton]") {
  constexpr double kTolerance = 1e-10;
  const Model cable = falling_cable_pendulum(10), boom = cable_hanging_from_boom(8), beams = rancf_pendulum(21e6);
  for (const auto& [name, model] : {std::tuple<const char*, const Model*>{"falling cable", &cable},
                                    {"cable hanging from a boom", &boom},
                                    {"planar beam pendulum", &beams}}) {
    for (const AnalysisSettings& a : {dynamic_settings(1e-3, 0.05, -0.2), bdf_settings(1e-3, 0.05, 2)}) {
      AnalysisSettings tight = a;
      tight.dynamics.newton_tolerance = 1e-5 * kTolerance;
      tight.dynamics.max_iterations = 30;
      REQUIRE(a.dynamics.newton_tolerance == kTolerance);
      const RunResult run = run_model(*model, a), reference = run_model(*model, tight);
      REQUIRE(run.frames.size() == reference.frames.size());
      CpuBackend backend(*model);
      const System sys(*model, backend);
      double worst = 0.0;  // weighted: 1 = the tolerance
      for (size_t k = 1; k < run.frames.size(); ++k)
        worst = std::max(worst, sys.weighted_norm(run.frames[k].q - reference.frames[k].q, reference.frames[k].q,
                                                  kTolerance, nullptr));
      INFO(name << (a.dynamics.integrator == DynamicSettings::Integrator::BDF ? ", BDF 2" : ", HHT") << ": "
                << run.summary.newton_iterations << " iterations against " << reference.summary.newton_iterations
                << " in " << run.summary.steps << " steps, largest weighted difference " << worst);
      CHECK(worst <= 1.0);
      // Two Newton updates per step: the second, about 1e-5 of the first, is accepted by the rate.
      CHECK(run.summary.newton_iterations == 2 * run.summary.steps);
    }
  }
}
