// Generalized-alpha (Arnold and Bruls 2007 form) against independent references: the observed
// order in the time step (Richardson, fine-step reference), energy conservation and equality with
// the trapezoidal rule (HHT, alpha = 0) at rho_inf = 1, the decay of a stiff axial vibration
// against its analytic initial energy and the method's amplification matrix, the slow pendulum
// motion against a fine-step HHT run, the adaptive step against a fine fixed step, the CUDA
// backend's code against the CPU backend, and the case file rules.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <unistd.h>

#include <Eigen/Dense>

#include "catenary/core/errors.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/reference_models.hpp"
#include "test_helpers.hpp"

#ifdef CATENARY_WITH_CUDA
#include "backend_agreement.hpp"
#include "catenary/kernels/cuda_backend.hpp"
#endif

using namespace catenary;
using catenary::testing::dynamic_settings;
using catenary::testing::node_coordinate;
using catenary::testing::run_model;

namespace {

AnalysisSettings ga_settings(double h, double T, double rho) {
  AnalysisSettings a = dynamic_settings(h, T, 0.0);
  a.dynamics.integrator = DynamicSettings::Integrator::GeneralizedAlpha;
  a.dynamics.rho_infinity = rho;
  return a;
}


double relative_difference(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).lpNorm<Eigen::Infinity>() / std::max(a.lpNorm<Eigen::Infinity>(), 1e-300);
}

// Mean of the node positions: follows the slow pendulum motion, not the cable's vibrations.
Eigen::Vector3d mean_position(const Model& m, const Eigen::VectorXd& q) {
  Eigen::Vector3d c = Eigen::Vector3d::Zero();
  for (int node = 0; node < m.node_count; ++node)
    for (int k = 0; k < m.dimension; ++k) c[k] += node_coordinate(m, q, node, k) / m.node_count;
  return c;
}

// Spectral radius of the physical (complex) root of generalized-alpha on x'' = -omega^2 x, from the
// published scheme (Chung and Hulbert 1993 parameters, Arnold and Bruls form) with y = (x, h v,
// h^2 a, h^2 x''): L y1 = R y0.
double amplification_radius(double rho, double omega_h) {
  const double am = (2 * rho - 1) / (rho + 1), af = rho / (rho + 1);
  const double g = 0.5 + af - am, b = 0.25 * (g + 0.5) * (g + 0.5);
  Eigen::Matrix4d L = Eigen::Matrix4d::Zero(), R = Eigen::Matrix4d::Zero();
  L(0, 0) = 1, L(0, 2) = -b, R(0, 0) = 1, R(0, 1) = 1, R(0, 2) = 0.5 - b;  // x1 = x0 + h v0 + ...
  L(1, 1) = 1, L(1, 2) = -g, R(1, 1) = 1, R(1, 2) = 1 - g;                 // h v1 = h v0 + ...
  L(2, 2) = 1 - am, L(2, 3) = -(1 - af), R(2, 2) = -am, R(2, 3) = af;      // a recurrence
  L(3, 3) = 1, L(3, 0) = omega_h * omega_h;                                // x1'' = -omega^2 x1
  const Eigen::Matrix4d A = L.inverse() * R;
  double radius = 0.0;
  const Eigen::EigenSolver<Eigen::Matrix4d> eigen(A);  // named: eigenvalues() refers into it
  for (const auto& lambda : eigen.eigenvalues())
    if (std::fabs(lambda.imag()) > 0.0) radius = std::max(radius, std::abs(lambda));
  return radius;
}

}  // namespace

TEST_CASE("generalized-alpha converges with second order in the time step", "[dynamics]") {
  const double T = 0.5;
  for (double rho : {0.8, 0.5, 0.0}) {
    const Eigen::Vector2d reference = testing::final_tip_xy(testing::swinging_cantilever(), ga_settings(5e-6, T, rho));
    // rho_inf = 0 reaches its asymptotic order later than the HHT test's steps (1.62 from 4e-4 to 2e-4).
    const std::string label = "generalized-alpha rho_inf = " + std::to_string(rho);
    for (double order : testing::observed_orders(label, reference, 2e-4, [&](double h) { return ga_settings(h, T, rho); })) {
      INFO(label << " observed order = " << order);
      CHECK(order > 1.8);
      CHECK(order < 2.2);
    }
  }
}

TEST_CASE("generalized-alpha with rho_inf = 1 conserves energy and is the trapezoidal rule", "[dynamics]") {
  const Model m = falling_cable_pendulum(10);
  const auto r = run_model(m, ga_settings(1e-3, 2.0, 1.0), 0.01);
  REQUIRE(r.frames.back().time == Approx(2.0));
  const double drift = testing::energy_drift(r);
  std::printf("generalized-alpha rho_inf = 1: energy drift / released potential energy = %.3e\n", drift);
  INFO("energy drift / released potential energy = " << drift);
  CHECK(drift < 1e-3);
  // rho_inf = 1 gives alpha_m = alpha_f = 1/2, gamma = 1/2, beta = 1/4: the same method as HHT with
  // alpha = 0, so the runs agree to round-off frame by frame.
  const auto hht = run_model(m, dynamic_settings(1e-3, 2.0, 0.0), 0.01);
  REQUIRE(hht.frames.size() == r.frames.size());
  double worst = 0.0;
  for (size_t k = 0; k < r.frames.size(); ++k)
    worst = std::max(worst, relative_difference(hht.frames[k].q, r.frames[k].q));
  std::printf("generalized-alpha rho_inf = 1 against HHT alpha = 0: largest relative difference %.3e\n", worst);
  INFO("largest relative coordinate difference to HHT alpha = 0: " << worst);
  CHECK(worst < 1e-9);
}

TEST_CASE("generalized-alpha with rho_inf < 1 damps a stiff cable's axial vibration", "[dynamics]") {
  // The falling cable pendulum's cable without gravity, held on its axis (a fixed-free bar) and
  // released stretched by a uniform strain: only its axial modes move. At h = 2 ms the lowest,
  // omega1 = pi c / (2 L), has omega1 h = 1.6, the others 4.8 and up.
  const double stretch = 1e-4, h = 2e-3;
  const Model m = testing::stretched_axial_bar(stretch);
  const ElementProperties& p = m.elements.properties[0];
  // Uniform strain eps = stretch (the Reissner law's) of the 1 m cable: U0 = EA eps^2 L / 2.
  const double U0 = 0.5 * p.EA * stretch * stretch * 1.0;
  auto run = [&](double rho) {
    const auto r = run_model(m, ga_settings(h, 0.2, rho));
    REQUIRE(r.frames.size() == 101);
    CHECK(r.frames.front().total() == Approx(U0).epsilon(1e-9));
    return r;
  };
  const auto undamped = run(1.0), mild = run(0.8), damped = run(0.5);
  double drift = 0.0;
  for (const auto& f : undamped.frames) drift = std::max(drift, std::fabs(f.total() / U0 - 1.0));
  const double left_mild = mild.frames.back().total() / U0, left_damped = damped.frames.back().total() / U0;
  // With rho_inf = 0.5 only the lowest mode is left after 50 steps; from then on its energy falls by
  // |lambda|^2 per step, lambda the eigenvalue of the method's amplification matrix at omega1 h.
  const double per_step = std::pow(left_damped / (damped.frames[50].total() / U0), 1.0 / 50);
  const double omega1_h = M_PI / 2 * std::sqrt(p.EA / p.rhoA) * h;
  const double theory = std::pow(amplification_radius(0.5, omega1_h), 2);
  std::printf("axial vibration energy left after 100 steps: rho_inf = 1: 1 +- %.1e, 0.8: %.3e, 0.5: %.3e; "
              "late decay per step at rho_inf = 0.5: %.5f, amplification matrix: %.5f\n",
              drift, left_mild, left_damped, per_step, theory);
  INFO("energy left: rho_inf = 1: 1 +- " << drift << ", 0.8: " << left_mild << ", 0.5: " << left_damped);
  CHECK(drift < 1e-3);
  CHECK(left_mild < 0.75);
  CHECK(left_damped < 1e-3);
  CHECK(left_damped < 1e-2 * left_mild);
  INFO("decay per step " << per_step << ", from the amplification matrix " << theory);
  CHECK(per_step == Approx(theory).epsilon(5e-3));
}

TEST_CASE("generalized-alpha with rho_inf = 0.5 keeps the slow pendulum motion of HHT", "[dynamics]") {
  // The falling cable pendulum's mean position over 1 s against an HHT run with a 4x smaller step.
  const Model m = falling_cable_pendulum(10);
  const auto ga = run_model(m, ga_settings(1e-3, 1.0, 0.5), 0.05);
  const auto hht = run_model(m, dynamic_settings(2.5e-4, 1.0, -0.1), 0.05);
  REQUIRE(ga.frames.size() == hht.frames.size());
  double worst = 0.0, travel = 0.0;
  const Eigen::Vector3d start = mean_position(m, hht.frames.front().q);
  for (size_t k = 0; k < ga.frames.size(); ++k) {
    REQUIRE(ga.frames[k].time == Approx(hht.frames[k].time));
    const Eigen::Vector3d c = mean_position(m, hht.frames[k].q);
    worst = std::max(worst, (mean_position(m, ga.frames[k].q) - c).norm());
    travel = std::max(travel, (c - start).norm());
  }
  std::printf("generalized-alpha rho_inf = 0.5 against HHT h/4: mean position differs by %.3e m (travel %.3f m)\n",
              worst, travel);
  INFO("largest difference of the mean position: " << worst << " m, travel " << travel << " m");
  CHECK(travel > 0.3);
  CHECK(worst < 1e-4 * travel);
}

TEST_CASE("generalized-alpha adaptive step matches a fine fixed step with fewer steps", "[dynamics][adaptive]") {
  const auto c = testing::adaptive_against_fine(testing::pinned_soft_cable(0.0), ga_settings(1e-4, 0.5, 0.8));
  REQUIRE(c.end_time == Approx(0.5));
  std::printf("generalized-alpha adaptive: %ld steps (%ld rejected), tip difference %.3e m\n", c.adaptive_steps,
              c.rejected_steps, c.tip_difference);
  INFO("adaptive steps " << c.adaptive_steps << " rejected " << c.rejected_steps << ", tip difference "
                         << c.tip_difference << " m");
  CHECK(c.tip_difference < 2e-3);
  CHECK(c.adaptive_steps < c.fine_steps / 2);
}

#ifdef CATENARY_WITH_CUDA
TEST_CASE("CUDA backend code run on the host: generalized-alpha runs equal the CPU backend's",
          "[dynamics][cuda-host]") {
  SECTION("falling cable pendulum, fixed step") {
    const Model m = falling_cable_pendulum(10);
    auto backend = cuda::make_cuda_backend_on_host(m);
    const double d = testing::dynamic_run_difference(m, ga_settings(2e-3, 0.3, 0.8), *backend);
    std::printf("generalized-alpha, CUDA backend code on the host, falling cable: %.3e\n", d);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("RANCF pendulum (flexible), adaptive step") {
    const Model m = rancf_pendulum(21e6);
    auto backend = cuda::make_cuda_backend_on_host(m);
    AnalysisSettings a = ga_settings(1e-3, 0.2, 0.5);
    a.dynamics.adaptive = true;
    a.dynamics.min_step = 1e-6;
    a.dynamics.max_step = 1e-2;
    const double d = testing::dynamic_run_difference(m, a, *backend);
    std::printf("generalized-alpha, CUDA backend code on the host, RANCF pendulum adaptive: %.3e\n", d);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
}

TEST_CASE("CUDA backend on the device: generalized-alpha runs equal the CPU backend's", "[dynamics][gpu]") {
  if (!testing::device_usable()) return;
  const Model m = falling_cable_pendulum(10);
  auto backend = cuda::make_cuda_backend(m);
  const double d = testing::dynamic_run_difference(m, ga_settings(2e-3, 0.3, 0.8), *backend);
  INFO("largest relative coordinate difference: " << d);
  CHECK(d < 1e-9);
}
#endif

namespace {

// The analysis object of a small valid case around `analysis` (JSON text).
std::string case_with_analysis(const std::string& analysis) {
  return R"({"name": "ga", "model": {"dimension": 3, "materials": {"m": {"youngs_modulus": 2e9, "density": 7800}},
    "sections": {"s": {"shape": "circle", "diameter": 0.02}},
    "bodies": [{"name": "cable", "element": "cable3d", "generator": "straight", "start": [0, 0, 0],
                "end": [1, 0, 0], "elements": 2, "material": "m", "section": "s"}],
    "constraints": [{"type": "spherical", "node": {"body": "cable", "index": "start"}}]},
  "analysis": )" + analysis + "}";
}

AnalysisSettings load_analysis(const std::string& analysis) {
  const std::string path = std::to_string(::getpid()) + "_catenary_generalized_alpha_test.json";
  std::ofstream(path) << case_with_analysis(analysis);
  try {
    const Case c = load_case(path);
    std::remove(path.c_str());
    return c.analysis;
  } catch (...) {
    std::remove(path.c_str());
    throw;
  }
}

DynamicSettings load_dynamics(const std::string& analysis) { return load_analysis(analysis).dynamics; }

}  // namespace

TEST_CASE("the case loader reads the integrator and rho_infinity", "[dynamics][loader]") {
  const DynamicSettings defaults = load_dynamics(R"({"type": "dynamic", "end_time": 1, "step": 1e-3})");
  CHECK(defaults.integrator == DynamicSettings::Integrator::HHT);
  CHECK(defaults.alpha == -0.1);
  CHECK(defaults.rho_infinity == 0.8);
  const DynamicSettings hht = load_dynamics(R"({"type": "dynamic", "end_time": 1, "step": 1e-3, "integrator": "hht",
                                                 "alpha": -0.3})");
  CHECK(hht.integrator == DynamicSettings::Integrator::HHT);
  CHECK(hht.alpha == -0.3);
  const DynamicSettings ga = load_dynamics(R"({"type": "dynamic", "end_time": 1, "step": 1e-3,
                                                "integrator": "generalized_alpha", "rho_infinity": 0.6})");
  CHECK(ga.integrator == DynamicSettings::Integrator::GeneralizedAlpha);
  CHECK(ga.rho_infinity == 0.6);
  const DynamicSettings ga_default = load_dynamics(R"({"type": "dynamic", "end_time": 1, "step": 1e-3,
                                                        "integrator": "generalized_alpha"})");
  CHECK(ga_default.integrator == DynamicSettings::Integrator::GeneralizedAlpha);
  CHECK(ga_default.rho_infinity == 0.8);
  for (double rho : {0.0, 1.0})
    CHECK(load_dynamics(R"({"type": "dynamic", "end_time": 1, "step": 1e-3, "integrator": "generalized_alpha",
                            "rho_infinity": )" + std::to_string(rho) + "}")
              .rho_infinity == rho);
  const DynamicSettings bdf = load_dynamics(R"({"type": "dynamic", "end_time": 1, "step": 1e-3, "integrator": "bdf",
                                                 "max_order": 3})");
  CHECK(bdf.integrator == DynamicSettings::Integrator::BDF);
  CHECK(bdf.max_order == 3);
  CHECK(load_dynamics(R"({"type": "dynamic", "end_time": 1, "step": 1e-3, "integrator": "bdf"})").max_order == 5);
  // The bounds are closed: just outside them is an error.
  CHECK_THROWS_AS(load_dynamics(R"({"type": "dynamic", "end_time": 1, "step": 1e-3,
                                    "integrator": "generalized_alpha", "rho_infinity": -1e-9})"),
                  InputError);
  CHECK_THROWS_AS(load_dynamics(R"({"type": "dynamic", "end_time": 1, "step": 1e-3,
                                    "integrator": "generalized_alpha", "rho_infinity": "0.5"})"),
                  InputError);
}


TEST_CASE("the case loader reads the constraint formulation and the linear solver", "[dynamics][loader]") {
  const AnalysisSettings defaults = load_analysis(R"({"type": "dynamic", "end_time": 1, "step": 1e-3})");
  CHECK(defaults.dynamics.formulation == DynamicSettings::Formulation::Index3);
  CHECK(defaults.linear_solver == LinearSolverChoice::Auto);
  const AnalysisSettings index2 = load_analysis(R"({"type": "dynamic", "end_time": 1, "step": 1e-3,
                                                     "formulation": "stabilized_index2", "linear_solver": "krylov"})");
  CHECK(index2.dynamics.formulation == DynamicSettings::Formulation::StabilizedIndex2);
  CHECK(index2.linear_solver == LinearSolverChoice::Krylov);
  CHECK(load_analysis(R"({"type": "static", "linear_solver": "block_tridiagonal"})").linear_solver ==
        LinearSolverChoice::BlockTridiagonal);
  CHECK(load_analysis(R"({"type": "static", "linear_solver": "chain_elimination"})").linear_solver ==
        LinearSolverChoice::ChainElimination);
  CHECK(load_analysis(R"({"type": "static", "linear_solver": "sparse_qr"})").linear_solver == LinearSolverChoice::SparseQr);
  CHECK_THROWS_AS(load_analysis(R"({"type": "dynamic", "end_time": 1, "step": 1e-3, "formulation": "index2"})"),
                  InputError);
  CHECK_THROWS_AS(load_analysis(R"({"type": "static", "formulation": "index3"})"), InputError);
}
