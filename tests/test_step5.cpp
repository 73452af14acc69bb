// ADAMS's STEP5 time function (core/time_function.hpp): values and derivatives against the quintic
// written out here as a polynomial and central finite differences, its second derivative's
// continuity at the ends, and the case reader's "step5".
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <string>

#include "catenary/core/time_function.hpp"
#include "catenary/model/case_loader.hpp"

using namespace catenary;

namespace {

TimeFunction step5(double t0, double v0, double t1, double v1) {
  TimeFunction f;
  f.kind = TimeFunction::Kind::Step5;
  f.t0 = t0, f.v0 = v0, f.t1 = t1, f.v1 = v1;
  return f;
}

// The quintic step expanded: h0 + (h1 - h0) (10 s^3 - 15 s^4 + 6 s^5) and its derivatives in t.
double step5_reference(double t, double t0, double v0, double t1, double v1, int derivative) {
  const double d = t1 - t0, s = std::min(1.0, std::max(0.0, (t - t0) / d)), dh = v1 - v0;
  const double s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
  if (derivative == 0) return v0 + dh * (10 * s3 - 15 * s4 + 6 * s5);
  if (derivative == 1) return dh * (30 * s2 - 60 * s3 + 30 * s4) / d;
  return dh * (60 * s - 180 * s2 + 120 * s3) / (d * d);
}

}  // namespace

TEST_CASE("STEP5: values and derivatives against the expanded quintic and finite differences", "[time-function]") {
  const double t0 = 0.3, v0 = -1.5, t1 = 1.1, v1 = 2.5;
  const TimeFunction f = step5(t0, v0, t1, v1);
  for (double t : {-1.0, 0.3, 0.31, 0.5, 0.7, 0.9, 1.09, 1.1, 3.0}) {
    INFO("t = " << t);
    CHECK(f.value(t) == Approx(step5_reference(t, t0, v0, t1, v1, 0)).margin(1e-14));
    CHECK(f.first_derivative(t) == Approx(step5_reference(t, t0, v0, t1, v1, 1)).margin(1e-13));
    CHECK(f.second_derivative(t) == Approx(step5_reference(t, t0, v0, t1, v1, 2)).margin(1e-12));
  }
  CHECK(f.value(0.7) == Approx(0.5 * (v0 + v1)).margin(1e-15));  // the midpoint, by symmetry
  const double h = 1e-6;
  for (double t : {0.35, 0.6, 0.8, 1.0}) {
    INFO("t = " << t);
    CHECK((f.value(t + h) - f.value(t - h)) / (2 * h) == Approx(f.first_derivative(t)).epsilon(1e-8));
    CHECK((f.first_derivative(t + h) - f.first_derivative(t - h)) / (2 * h) ==
          Approx(f.second_derivative(t)).epsilon(1e-7));
  }
}

TEST_CASE("STEP5: the second derivative is continuous at both ends, where the cubic STEP's jumps",
          "[time-function]") {
  const double t0 = 0.0, t1 = 2.0, e = 1e-9;
  const TimeFunction quintic = step5(t0, 0.0, t1, 1.0);
  TimeFunction cubic = quintic;
  cubic.kind = TimeFunction::Kind::SmoothStep;
  for (double end : {t0, t1}) {
    INFO("end t = " << end);
    // 60 s (1 - s)(1 - 2 s) / d^2 is 60 e / d^3 ~ 1e-8 a time e from an end: no jump.
    CHECK(std::fabs(quintic.second_derivative(end - e) - quintic.second_derivative(end + e)) < 1e-7);
    CHECK(std::fabs(quintic.first_derivative(end - e) - quintic.first_derivative(end + e)) < 1e-15);
    // The cubic's second derivative jumps by 6 / d^2 = 1.5 at each end.
    CHECK(std::fabs(cubic.second_derivative(end - e) - cubic.second_derivative(end + e)) == Approx(1.5).epsilon(1e-6));
  }
}

TEST_CASE("STEP5 is read from a case file, and a step5 with t1 <= t0 is refused", "[time-function][loader]") {
  const std::string text = R"({"name": "step5", "model": {"dimension": 3, "gravity": [0, 0, -9.81],
    "rigid_bodies": [{"name": "b", "mass": 1, "inertia": [1, 1, 1], "position": [0, 0, 0]}],
    "body_loads": [{"name": "push", "body": "b", "frame": "ground", "force": [1, 0, 0],
                    "function": {"type": "step5", "t0": 1, "t1": 3, "from": 2, "to": 4}}]},
    "analysis": {"type": "dynamic", "end_time": 1, "step": 0.1}})";
  const Case c = load_cases_from_text(text, "step5.json").at(0).c;
  const TimeFunction& f = c.model.mechanism.forces.loads.at(0).scale;
  CHECK(f.kind == TimeFunction::Kind::Step5);
  CHECK(f.value(2.0) == Approx(3.0));
  CHECK(f.first_derivative(2.0) == Approx(15.0 / 8.0 * 2.0 / 2.0));  // 30 s^2 (1 - s)^2 (h1 - h0) / d at s = 1/2
}
