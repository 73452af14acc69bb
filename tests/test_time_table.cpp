// Time functions from sampled histories: the natural cubic spline's value and derivatives converge
// at their orders on a sampled sine, the ramp takes a history in with two continuous derivatives,
// and a rope whose top follows a sampled motion from a CSV file moves as under the closed-form
// motion it was sampled from.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "catenary/core/time_function.hpp"
#include "catenary/model/case_loader.hpp"
#include "test_helpers.hpp"

using namespace catenary;

namespace {

// The largest error of the spline through sin sampled every h over [0, 2 pi] (where its second
// derivative vanishes at both ends, as the natural spline's), in the derivative `order`.
double sine_error(double h, int order) {
  std::vector<double> t, y;
  const int n = static_cast<int>(std::round(2.0 * M_PI / h));
  for (int i = 0; i <= n; ++i) t.push_back(2.0 * M_PI * i / n), y.push_back(std::sin(t.back()));
  const TimeTable table(t, y);
  double worst = 0.0;
  for (int k = 1; k < 4000; ++k) {
    const double x = 2.0 * M_PI * k / 4000.0;
    const double exact = order == 0 ? std::sin(x) : order == 1 ? std::cos(x) : -std::sin(x);
    worst = std::max(worst, std::fabs(table.at(x, order) - exact));
  }
  return worst;
}

}  // namespace

TEST_CASE("a table's spline converges to the sampled function at orders 4, 3 and 2", "[time-function]") {
  for (int order = 0; order < 3; ++order) {
    const double coarse = sine_error(0.1, order), fine = sine_error(0.05, order);
    const double rate = std::log2(coarse / fine);
    std::printf("table of sin: derivative %d, errors %.2e at h = 0.1 and %.2e at 0.05, order %.2f\n", order, coarse,
                fine, rate);
    CHECK(rate == Approx(4.0 - order).margin(0.3));
  }
  CHECK(sine_error(0.05, 0) < 1e-6);
}

TEST_CASE("a table's ramp starts the history at rest with two continuous derivatives", "[time-function]") {
  // s(t) = 2 + t, ramped in over 1 s: f = R s with R(0) = R'(0) = R''(0) = 0 and R(1) = 1,
  // R'(1) = R''(1) = 0; f and its derivatives continuous at both ends of the ramp.
  const TimeFunction f = TimeFunction::of_table(std::make_shared<const TimeTable>(std::vector<double>{0.0, 10.0},
                                                                                 std::vector<double>{2.0, 12.0}),
                                                1.0);
  const double e = 1e-7;
  CHECK(f.value(0.0) == 0.0);
  CHECK(f.first_derivative(e) == Approx(0.0).margin(1e-12));
  CHECK(f.second_derivative(e) == Approx(0.0).margin(1e-4));  // R'' = 60 e near 0
  for (int k = 0; k < 3; ++k) {
    const auto d = [&](double t) { return k == 0 ? f.value(t) : k == 1 ? f.first_derivative(t) : f.second_derivative(t); };
    CHECK(d(1.0 - e) == Approx(d(1.0 + e)).margin(1e-4));
  }
  CHECK(f.value(3.0) == Approx(5.0));
  CHECK(f.first_derivative(3.0) == Approx(1.0));
}

TEST_CASE("a ramped harmonic starts from rest and is the harmonic after its ramp", "[time-function]") {
  // f = R(t) (1 + 0.5 sin(3 t + 0.4)) over a 2 s ramp: at rest at t = 0; its derivatives against
  // central differences of its value and of its first derivative; the plain harmonic after 2 s.
  TimeFunction f;
  f.kind = TimeFunction::Kind::Harmonic;
  f.v0 = 1.0;
  f.amplitude = 0.5;
  f.frequency = 3.0 / (2.0 * M_PI);
  f.phase = 0.4;
  f.ramp = 2.0;
  CHECK(f.value(0.0) == 0.0);
  CHECK(f.first_derivative(0.0) == 0.0);
  const double h = 1e-5;
  for (double t : {0.3, 1.1, 1.9, 2.5}) {
    CHECK(f.first_derivative(t) == Approx((f.value(t + h) - f.value(t - h)) / (2 * h)).margin(1e-8));
    CHECK(f.second_derivative(t) ==
          Approx((f.first_derivative(t + h) - f.first_derivative(t - h)) / (2 * h)).margin(1e-7));
  }
  CHECK(f.value(2.5) == Approx(1.0 + 0.5 * std::sin(7.5 + 0.4)).epsilon(1e-15));
}

TEST_CASE("a rope's top driven by a sampled motion from a CSV file follows the closed-form motion's run",
          "[time-function][dynamics]") {
  // The top of a 2 m rope surges x = 0.1 sin(2 pi t) (smooth: from rest, sin's derivatives ramped
  // in by the case's own ramp), once as a harmonic time function and once as the same motion
  // sampled every 5 ms in a CSV file: the two runs agree to the spline's error.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "catenary_time_table";
  fs::create_directories(dir);
  {
    std::ofstream csv(dir / "platform.csv");
    csv << "time,surge,heave\n";
    for (int i = 0; i <= 400; ++i) {
      const double t = 0.005 * i;
      csv << t << ',' << 0.1 * std::sin(2.0 * M_PI * t) << ",0\n";
    }
  }
  nlohmann::json c = {
      {"name", "surging rope"},
      {"model",
       {{"dimension", 3},
        {"gravity", {0, 0, -9.81}},
        {"materials", {{"rope", {{"youngs_modulus", 1e9}, {"density", 5e3}}}}},
        {"sections", {{"rope", {{"shape", "general"}, {"area", 1e-4}, {"inertia", 1e-9}}}}},
        {"bodies",
         {{{"name", "rope"}, {"element", "cable3d"}, {"generator", "straight"}, {"start", {0, 0, 0}},
           {"end", {0, 0, -2}}, {"elements", 8}, {"material", "rope"}, {"section", "rope"}}}},
        {"constraints",
         {{{"type", "prescribed"},
           {"node", {{"body", "rope"}, {"index", "start"}}},
           {"displacement", {{"x", nullptr}, {"y", 0}, {"z", 0}}}}}}}},
      {"analysis", {{"type", "dynamic"}, {"end_time", 1.25}, {"step", 0.005}, {"alpha", -0.1}}},
      {"output", {{"vtu", false}}}};
  const auto run = [&](const nlohmann::json& surge) {
    c["model"]["constraints"][0]["displacement"]["x"] = surge;
    const fs::path file = dir / "case.json";
    std::ofstream(file) << c.dump();
    const Case loaded = load_case(file.string());
    return testing::run_model(loaded.model, loaded.analysis).frames.back().q;
  };
  const Eigen::VectorXd harmonic =
      run({{"type", "harmonic"}, {"amplitude", 0.1}, {"frequency", 1.0}});
  const Eigen::VectorXd sampled = run({{"type", "table"}, {"file", "platform.csv"}, {"column", "surge"}});
  const double difference = (harmonic - sampled).cwiseAbs().maxCoeff();
  std::printf("rope driven by a sampled surge: largest difference from the harmonic run %.1e m\n", difference);
  CHECK(difference < 2e-6);
  CHECK(harmonic[0] == Approx(0.1).epsilon(1e-9));  // the top at x = 0.1 sin(2.5 pi)
}
