#pragma once
// Checks the explicit methods' tests share (test_explicit_rk.cpp, test_abam.cpp,
// test_coordinate_partitioning.cpp): a case text refused when read, and an adaptive method's
// final state against a fixed-step reference on the rigid and the double pendulum.
#include <catch2/catch.hpp>

#include <cstdio>
#include <functional>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/model/case_loader.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

namespace catenary::testing {

// The case text is refused when read, at the JSON path `path`, with `message` in its words.
inline void check_refused(const std::string& text, const std::string& path, const std::string& message) {
  try {
    load_cases_from_text(text, "e.json");
    FAIL(text << " was accepted");
  } catch (const InputError& e) {
    CHECK(e.json_path() == path);
    CHECK_THAT(e.what(), Catch::Contains(message));
  }
}

// The adaptive run settings(T) at tolerances 1e-5 and 1e-8 against the final coordinates of
// reference(T) (dopri5 at a fixed 1 ms, its error about 1e-13). On the rigid pendulum (2 s) the
// global error is the local errors' sum, each within the tolerance (weighted by 1 + |q_i|, about
// 2); the double pendulum's motion (1 s) amplifies them beyond that sum, so there the error is
// asked to fall with the tolerance. Both take more steps at the tighter tolerance.
inline void check_adaptive_on_pendulums(const char* method,
                                        const std::function<AnalysisSettings(double T, double tolerance)>& settings,
                                        const std::function<AnalysisSettings(double T)>& reference) {
  const double tolerances[2] = {1e-5, 1e-8};
  for (const bool chaotic : {false, true}) {
    const Model m = chaotic ? spatial_double_pendulum() : rigid_pendulum(1.0, 1.0, 1.0);
    const double T = chaotic ? 1.0 : 2.0;
    const Eigen::VectorXd fine = run_model(m, reference(T)).frames.back().q;
    long steps[2] = {};
    double difference[2] = {};
    for (int k : {0, 1}) {
      const RunResult r = run_model(m, settings(T, tolerances[k]));
      REQUIRE(r.frames.back().time == Approx(T));
      const double d = (r.frames.back().q - fine).lpNorm<Eigen::Infinity>();
      std::printf("adaptive %s, %s, tolerance %g: %ld steps (%ld rejected), final difference %.3e\n", method,
                  chaotic ? "double pendulum" : "rigid pendulum", tolerances[k], r.summary.steps,
                  r.summary.rejected_steps, d);
      if (!chaotic) CHECK(d < 2.0 * tolerances[k] * static_cast<double>(r.summary.steps));
      steps[k] = r.summary.steps;
      difference[k] = d;
    }
    CHECK(steps[1] > steps[0]);
    CHECK(difference[1] < 1e-2 * difference[0]);
  }
}

}  // namespace catenary::testing
