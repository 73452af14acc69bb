// BDF: observed convergence orders with fixed steps, variable step and order against a fine
// reference, a stiff cable followed with steps far longer than its axial period, the same run
// on the CUDA backend's code, and the case-file fields.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "catenary/model/builders.hpp"
#include "catenary/model/reference_models.hpp"
#include "test_helpers.hpp"
#ifdef CATENARY_WITH_CUDA
#include "backend_agreement.hpp"
#endif

using namespace catenary;
using catenary::testing::adaptive_settings;
using catenary::testing::bdf_settings;
using catenary::testing::dynamic_settings;
using catenary::testing::node_coordinate;
using catenary::testing::run_model;

namespace {

double tip_distance(const Model& m, const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  const int tip = m.node_count - 1;
  double d = 0.0;
  for (int k = 0; k < m.dimension; ++k)
    d = std::max(d, std::fabs(node_coordinate(m, a, tip, k) - node_coordinate(m, b, tip, k)));
  return d;
}

}  // namespace

TEST_CASE("BDF of orders 1 and 2 converges with its order in the time step", "[dynamics][bdf]") {
  // With a fixed step the order starts at 1 and rises as the history fills; orders 1 and 2 are
  // therefore observable with fixed steps (a higher order's first steps would dominate).
  const double T = 0.5;
  const Eigen::Vector2d reference = testing::final_tip_xy(testing::swinging_cantilever(), dynamic_settings(5e-6, T, 0.0));
  for (int order : {1, 2}) {
    const std::string label = "BDF" + std::to_string(order);
    for (double observed : testing::observed_orders(label, reference, 2e-4, [&](double h) { return bdf_settings(h, T, order); })) {
      INFO(label << " observed order = " << observed);
      CHECK(observed > order - 0.2);
      CHECK(observed < order + 0.2);
    }
  }
}

TEST_CASE("variable-order BDF meets its tolerance, and on a damped cable higher orders take fewer steps",
          "[dynamics][bdf]") {
  // Material damping keeps the bending modes off the imaginary axis, where orders 3 to 5 are
  // unstable (undamped, they are capped after rejections and save nothing over order 2).
  const Model m = testing::pinned_soft_cable(0.01);
  const double T = 0.5;
  const auto fine = run_model(m, dynamic_settings(1e-5, T, 0.0), T);
  long steps_order2 = 0, steps_order5 = 0;
  for (int max_order : {2, 5}) {
    const auto r = run_model(m, adaptive_settings(bdf_settings(1e-4, T, max_order), 1e-6), T);
    REQUIRE(r.frames.back().time == Approx(T));
    const double d = tip_distance(m, r.frames.back().q, fine.frames.back().q);
    std::printf("BDF max order %d, tolerance 1e-6: %ld steps (%ld rejected), tip difference %.3e m\n", max_order,
                r.summary.steps, r.summary.rejected_steps, d);
    INFO("max order " << max_order << ": " << r.summary.steps << " steps, tip difference " << d);
    CHECK(d < 2e-3);
    (max_order == 2 ? steps_order2 : steps_order5) = r.summary.steps;
  }
  CHECK(steps_order5 < steps_order2);
}

TEST_CASE("BDF follows a stiff cable's swing with steps far longer than its axial period", "[dynamics][bdf]") {
  // A steel-stiff 1 m cable pendulum (E = 2e11 Pa, 4 elements): the first axial period is about
  // 2 L / c = 4e-4 s (c = sqrt(E / rho) = 5060 m/s); the swing takes seconds.
  Model m;
  m.dimension = 3;
  m.gravity[2] = -9.81;
  const double d = 0.02, A = M_PI * d * d / 4, I = M_PI * std::pow(d, 4) / 64, E = 2e11;
  add_straight_line(m, "cable", {0, 0, 0}, {1, 0, 0}, 4, {E * A, E * I, 7800 * A, 0.0});
  finalize_model(m);
  add_spherical_to_ground(m, 0, {0, 0, 0}, "pin", "/constraints/0");
  const double T = 0.5, axial_period = 2.0 / std::sqrt(E / 7800.0);
  const auto reference = run_model(m, dynamic_settings(1e-5, T, -0.1), T);
  const auto r = run_model(m, adaptive_settings(bdf_settings(1e-4, T, 5), 1e-5), T);
  REQUIRE(r.frames.back().time == Approx(T));
  const double diff = tip_distance(m, r.frames.back().q, reference.frames.back().q);
  // HHT with the same error control, for comparison in the printout.
  const auto hht = run_model(m, adaptive_settings(dynamic_settings(1e-4, T, -0.3), 1e-5), T);
  const double mean_step = T / r.summary.steps;
  std::printf("stiff cable: BDF %ld steps (%ld rejected), mean step %.2e s = %.1f axial periods, tip difference "
              "%.3e m; HHT alpha -0.3: %ld steps (%ld rejected)\n",
              r.summary.steps, r.summary.rejected_steps, mean_step, mean_step / axial_period, diff, hht.summary.steps,
              hht.summary.rejected_steps);
  INFO(r.summary.steps << " steps, tip difference " << diff << " m");
  CHECK(diff < 2e-3);
  CHECK(mean_step > 5.0 * axial_period);
}

#ifdef CATENARY_WITH_CUDA
TEST_CASE("BDF on the CUDA backend's code (host) equals the CPU backend", "[dynamics][bdf][cuda-host]") {
  const Model m = falling_cable_pendulum(6);
  // A fixed step, so that both runs take the same steps (adaptive ones may differ by round-off).
  const AnalysisSettings a = bdf_settings(1e-3, 0.2, 3);
  auto backend = cuda::make_cuda_backend_on_host(m);
  const double worst = testing::dynamic_run_difference(m, a, *backend);
  INFO("largest relative difference " << worst);
  CHECK(worst < 1e-9);
}
#endif
