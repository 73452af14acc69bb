// The BDF coefficient forms (DynamicSettings::BdfCoefficients: variable, ADAMS's WSTIFF; fixed,
// GSTIFF; fixed leading coefficient, DSTIFF): one method on equal steps, to round-off, and with
// error control on a mechanism, each form's accuracy against a fine HHT reference and its steps.
// The stiff two-mass chain's comparison is in test_bdf_oscillatory.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using catenary::testing::adaptive_settings;
using catenary::testing::bdf_settings;
using catenary::testing::dynamic_settings;
using catenary::testing::run_model;

namespace {

using Form = DynamicSettings::BdfCoefficients;
struct NamedForm {
  const char* name;
  Form form;
};
const NamedForm kForms[] = {{"variable (WSTIFF)", Form::Variable},
                            {"fixed (GSTIFF)", Form::Fixed},
                            {"fixed leading (DSTIFF)", Form::FixedLeading}};

AnalysisSettings with_form(AnalysisSettings a, Form form) {
  a.dynamics.bdf_coefficients = form;
  return a;
}

// Largest difference of the two bodies' centres (m).
double body_distance(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  double d = 0.0;
  for (int body = 0; body < 2; ++body)
    for (int k = 0; k < 3; ++k) d = std::max(d, std::fabs(a[7 * body + k] - b[7 * body + k]));
  return d;
}

}  // namespace

TEST_CASE("the three BDF coefficient forms are one method on equal steps", "[dynamics][bdf]") {
  // h = 2^-10 s divides the end time exactly, so every step is equal and the orders rise alike.
  const double h = 1.0 / 1024.0, T = 0.25;
  struct Subject {
    const char* name;
    Model model;
  };
  for (const Subject& subject : {Subject{"damped cable", testing::pinned_soft_cable(0.01)},
                                 Subject{"spatial double pendulum", testing::spatial_double_pendulum()}}) {
    const auto reference = run_model(subject.model, bdf_settings(h, T, 5), T);
    const double scale = reference.frames.back().q.cwiseAbs().maxCoeff();
    for (const NamedForm& f : kForms) {
      const auto r = run_model(subject.model, with_form(bdf_settings(h, T, 5), f.form), T);
      const double dq = (r.frames.back().q - reference.frames.back().q).cwiseAbs().maxCoeff();
      INFO(subject.name << ", " << f.name << ": positions differ by " << dq);
      CHECK(r.summary.steps == reference.summary.steps);
      CHECK(dq <= 1e-12 * scale);
    }
  }
}

TEST_CASE("BDF coefficient forms with error control on a mechanism: accuracy and steps", "[dynamics][bdf]") {
  const Model m = testing::spatial_double_pendulum();
  const double T = 1.0;
  const auto fine = run_model(m, dynamic_settings(2e-5, T, 0.0), T);
  for (double tol : {1e-4, 1e-6}) {
    for (const NamedForm& f : kForms) {
      const auto r = run_model(m, with_form(adaptive_settings(bdf_settings(1e-4, T, 5), tol), f.form), T);
      REQUIRE(r.frames.back().time == Approx(T));
      const double d = body_distance(r.frames.back().q, fine.frames.back().q);
      std::printf("spatial double pendulum, BDF %s, tolerance %.0e: %ld steps (%ld rejected), %.3e m from HHT at "
                  "h = 2e-5\n",
                  f.name, tol, r.summary.steps, r.summary.rejected_steps, d);
      INFO(f.name << ", tolerance " << tol << ": " << r.summary.steps << " steps, " << d << " m off");
      CHECK(d < 1e3 * tol);
    }
  }
}
