// The linearized eigen analysis against closed forms: a cantilever's bending and axial modes
// (Euler-Bernoulli), their damping ratios under Kelvin-Voigt material damping (zeta = eta w / 2),
// a tensioned string's modes (the beam-string), a compound pendulum, the stiff two-mass chain's
// 11.25 Hz and 7117.6 Hz and, with a damper, its complex eigenvalues from the 4 x 4 first-order
// form; the modes it writes, and the CUDA backend's code on the host against the CPU backend.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <utility>

#include <Eigen/Eigenvalues>
#include <nlohmann/json.hpp>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/io/mode_files.hpp"
#include "catenary/kernels/cuda_backend.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/run/run_case.hpp"
#include "cli_helpers.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

constexpr double kTwoPi = 2.0 * M_PI;

AnalysisSettings eigen_settings(int modes, double shift = 0.0) {
  AnalysisSettings a;
  a.type = AnalysisSettings::Type::Eigen;
  a.eigen.modes = modes;
  a.eigen.shift = shift;
  return a;
}

LinearModes modes_on(Backend& backend, const Model& m, const AnalysisSettings& a) {
  const AnalysisRun run = run_analysis(a, 0.0, m, backend, [](const Frame&) {});
  INFO(run.summary.message);
  REQUIRE(run.summary.status == "ok");
  return run.modes;
}

LinearModes modes_of(const Model& m, const AnalysisSettings& a) {
  CpuBackend backend(m);
  return modes_on(backend, m, a);
}

double natural_hz(const LinearMode& mode) { return mode_frequencies(mode.eigenvalue).natural_hz; }

// A steel bar of 1 m, 20 x 20 mm, clamped at x = 0 (beam2d), with material damping eta. The
// clamp holds the position and the slope's direction (y' = 0), not its length: x' = 1 would
// also hold the axial strain at the root at zero, which stiffens the axial modes (the first by
// 0.37 % at 32 elements, converging at first order in the mesh).
constexpr double kE = 2.1e11, kRho = 7800, kSide = 0.02, kLength = 1.0;
Model cantilever(int elements, double eta = 0.0) {
  Model m;
  m.dimension = 2;
  const double A = kSide * kSide, I = std::pow(kSide, 4) / 12;
  add_straight_line(m, "beam", {0, 0, 0}, {kLength, 0, 0}, elements, {kE * A, kE * I, kRho * A, eta});
  finalize_model(m);
  add_fix(m, 0, {0, 1, 3}, "clamp", "/constraints/0");
  return m;
}

// Euler-Bernoulli: w_k = (beta_k L)^2 sqrt(EI / (rho A L^4)), beta_k L the roots of
// cos x cosh x = -1.
double cantilever_bending_hz(int k) {
  static const double roots[] = {1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349};
  const double A = kSide * kSide, I = std::pow(kSide, 4) / 12;
  return roots[k] * roots[k] * std::sqrt(kE * I / (kRho * A)) / (kLength * kLength) / kTwoPi;
}

}  // namespace

TEST_CASE("eigen analysis: a cantilever's bending modes and first axial mode against Euler-Bernoulli",
          "[eigen]") {
  const LinearModes r = modes_of(cantilever(32), eigen_settings(6));
  REQUIRE(r.modes.size() == 6);
  for (int k = 0; k < 4; ++k) {
    INFO("bending mode " << k + 1 << ": " << natural_hz(r.modes[k]) << " Hz");
    CHECK(std::fabs(natural_hz(r.modes[k]) / cantilever_bending_hz(k) - 1.0) < 2e-5);
    CHECK(std::fabs(mode_frequencies(r.modes[k].eigenvalue).damping_ratio) < 1e-12);
  }
  // The fixed-free bar's first axial mode, sqrt(E / rho) / 4 L, between bending modes 5 and 6.
  const double axial = std::sqrt(kE / kRho) / (4 * kLength);
  CHECK(std::fabs(natural_hz(r.modes[5]) / axial - 1.0) < 1e-5);
  // The axial mode's shape moves the tip along the bar; a bending mode's across it.
  const int tip = 32 * 4;
  CHECK(std::abs(r.modes[5].shape[tip]) > 100 * std::abs(r.modes[5].shape[tip + 1]));
  CHECK(std::abs(r.modes[0].shape[tip + 1]) == Approx(1.0));
}

TEST_CASE("eigen analysis: Kelvin-Voigt damping gives each mode zeta = eta w / 2", "[eigen]") {
  // D = eta K about the unstrained bar: s^2 + eta w^2 s + w^2 = 0 for each undamped mode w.
  const double eta = 2e-5;
  const LinearModes undamped = modes_of(cantilever(16), eigen_settings(4));
  const LinearModes damped = modes_of(cantilever(16, eta), eigen_settings(4));
  REQUIRE(damped.modes.size() == 4);
  for (int k = 0; k < 4; ++k) {
    const double w = std::abs(undamped.modes[k].eigenvalue);
    const ModeFrequencies f = mode_frequencies(damped.modes[k].eigenvalue);
    INFO("mode " << k + 1 << ": zeta " << f.damping_ratio << " against " << eta * w / 2);
    std::printf("Kelvin-Voigt mode %d: zeta %.6e against eta w / 2 = %.6e\n", k + 1, f.damping_ratio, eta * w / 2);
    CHECK(std::fabs(f.damping_ratio / (eta * w / 2) - 1.0) < 1e-6);
    CHECK(std::fabs(f.natural_hz * kTwoPi / w - 1.0) < 1e-8);
  }
}

TEST_CASE("eigen analysis: a tensioned string's modes, in pairs across it, against the beam-string", "[eigen]") {
  // A 1 m cable (E = 2e7 Pa, d = 0.02 m) stretched by eps between two pins: about the uniform
  // stretch lambda = 1 + eps, the Reissner law's transverse modes sin(k pi X / L) have
  // w_k^2 = (k pi / L)^2 (T / lambda + EI / lambda^2 (k pi / L)^2) / (rho A), T = EA eps.
  const double eps = 0.01, d = 0.02, E = 2e7, rho = 7800;
  const double A = M_PI * d * d / 4, I = M_PI * std::pow(d, 4) / 64, L = 1.0, lambda = 1.0 + eps;
  Model m;
  m.dimension = 3;
  add_straight_line(m, "string", {0, 0, 0}, {L, 0, 0}, 32, {E * A, E * I, rho * A, 0.0});
  finalize_model(m);
  const int cpn = m.coordinates_per_node();
  for (int node = 0; node < m.node_count; ++node) {
    m.initial_positions[node * cpn + 0] *= lambda;
    m.initial_positions[node * cpn + 3] *= lambda;
  }
  add_spherical_to_ground(m, 0, {0, 0, 0}, "pin a", "/constraints/0");
  add_spherical_to_ground(m, m.node_count - 1, {lambda * L, 0, 0}, "pin b", "/constraints/1");
  const LinearModes r = modes_of(m, eigen_settings(6));
  REQUIRE(r.modes.size() == 6);
  for (int k = 1; k <= 3; ++k) {
    const double kk = k * M_PI / L;
    const double w = kk * std::sqrt((E * A * eps / lambda + E * I / (lambda * lambda) * kk * kk) / (rho * A));
    for (int j : {2 * k - 2, 2 * k - 1}) {
      INFO("mode " << j + 1 << " against k = " << k);
      std::printf("string mode %d: %.9g 1/s against %.9g (k = %d)\n", j + 1, std::abs(r.modes[j].eigenvalue), w, k);
      CHECK(std::fabs(std::abs(r.modes[j].eigenvalue) / w - 1.0) < 1e-4);
    }
  }
}

TEST_CASE("eigen analysis: a compound pendulum about its hanging equilibrium, found or given", "[eigen]") {
  // A 2 kg bob with I_zz = 0.01 kg m^2 on a 0.5 m arm: w^2 = m g L / (m L^2 + I_zz).
  const double L = 0.5, mass = 2.0;
  const double w = std::sqrt(mass * 9.81 * L / (mass * L * L + 0.01));
  for (bool found : {true, false}) {
    AnalysisSettings a = eigen_settings(1);
    a.eigen.static_equilibrium = found;
    // Started off the equilibrium, the static analysis brings it down; given, it starts there.
    const LinearModes r = modes_of(rigid_pendulum(L, mass, found ? 0.3 : 0.0), a);
    REQUIRE(r.modes.size() == 1);
    std::printf("pendulum (%s): %.12g 1/s against %.12g\n", found ? "static" : "given", std::abs(r.modes[0].eigenvalue), w);
    CHECK(std::fabs(std::abs(r.modes[0].eigenvalue) / w - 1.0) < 1e-9);
  }
}

TEST_CASE("eigen analysis: the stiff two-mass chain's 11.25 Hz and 7117.6 Hz, and its complex modes with a damper",
          "[eigen]") {
  const double k1 = 1e4, k2 = 1e9;
  Eigen::Matrix2d K;
  K << k1 + k2, -k2, -k2, k2;
  const Eigen::Vector2d w2 = Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(K).eigenvalues();
  const LinearModes r = modes_of(two_mass_chain(k1, k2, 1.0, 1.0, 0.0, 0.0), eigen_settings(2));
  REQUIRE(r.modes.size() == 2);
  CHECK(natural_hz(r.modes[0]) == Approx(11.25).epsilon(1e-3));
  CHECK(natural_hz(r.modes[1]) == Approx(7117.6).epsilon(1e-4));
  // The force elements' stiffness comes from the multibody block's differences (about 1e-8).
  for (int k = 0; k < 2; ++k) {
    std::printf("chain mode %d: %.10g Hz against %.10g\n", k + 1, natural_hz(r.modes[k]), std::sqrt(w2[k]) / kTwoPi);
    CHECK(std::fabs(std::abs(r.modes[k].eigenvalue) / std::sqrt(w2[k]) - 1.0) < 1e-7);
  }

  // A damper of 20 N s/m beside k1: the eigenvalues of [0 I; -K -D] with D = diag(20, 0).
  Model damped = two_mass_chain(k1, k2, 1.0, 1.0, 0.0, 0.0);
  damped.mechanism.forces.tsda[0].damping = 20.0;
  Eigen::Matrix4d A = Eigen::Matrix4d::Zero();
  A.topRightCorner<2, 2>() = Eigen::Matrix2d::Identity();
  A.bottomLeftCorner<2, 2>() = -K;
  A(2, 2) = -20.0;
  Eigen::Vector4cd s = Eigen::EigenSolver<Eigen::Matrix4d>(A).eigenvalues();
  std::sort(s.data(), s.data() + 4, [](auto a, auto b) { return std::abs(a) < std::abs(b) || (std::abs(a) == std::abs(b) && a.imag() > b.imag()); });
  const LinearModes rd = modes_of(damped, eigen_settings(2));
  REQUIRE(rd.modes.size() == 2);
  for (int k = 0; k < 2; ++k) {
    const std::complex<double> expected = s[2 * k];
    INFO("mode " << k + 1 << ": " << rd.modes[k].eigenvalue << " against " << expected);
    std::printf("damped chain mode %d: (%.10g, %.10g) against (%.10g, %.10g)\n", k + 1, rd.modes[k].eigenvalue.real(),
                rd.modes[k].eigenvalue.imag(), expected.real(), expected.imag());
    CHECK(std::abs(rd.modes[k].eigenvalue - expected) < 1e-7 * std::abs(expected));
  }
  CHECK(mode_frequencies(rd.modes[0].eigenvalue).damping_ratio == Approx(-s[0].real() / std::abs(s[0])));
}

TEST_CASE("eigen analysis: a model larger than the dense limit takes the Arnoldi iteration to the same modes",
          "[eigen]") {
  // 200 elements: 1,604 unknowns of the first-order form, over kDenseStateSize.
  const LinearModes r = modes_of(cantilever(200), eigen_settings(4));
  REQUIRE(r.modes.size() == 4);
  for (int k = 0; k < 4; ++k) {
    std::printf("Arnoldi, 200 elements, mode %d: %.10g Hz against %.10g\n", k + 1, natural_hz(r.modes[k]),
                cantilever_bending_hz(k));
    CHECK(std::fabs(natural_hz(r.modes[k]) / cantilever_bending_hz(k) - 1.0) < 2e-5);
  }
}

TEST_CASE("eigen analysis: a free body at shift 0 is refused with the way out, and found at a shift", "[eigen]") {
  // A cantilever's bar without its clamp floats: three rigid-body modes at s = 0.
  Model m;
  m.dimension = 2;
  const double A = kSide * kSide, I = std::pow(kSide, 4) / 12;
  add_straight_line(m, "bar", {0, 0, 0}, {kLength, 0, 0}, 16, {kE * A, kE * I, kRho * A, 0.0});
  finalize_model(m);
  CpuBackend backend(m);
  const AnalysisRun refused = run_analysis(eigen_settings(4), 0.0, m, backend, [](const Frame&) {});
  CHECK(refused.summary.status == "failed");
  CHECK_THAT(refused.summary.message, Catch::Contains("singular at the shift") && Catch::Contains("/analysis/shift"));
  // At a shift of -1 1/s: the three rigid-body modes near 0 (a double eigenvalue each, split by
  // round-off), then the free-free bar's first bending mode (beta L = 4.7300408).
  const LinearModes r = modes_of(m, eigen_settings(4, -1.0));
  REQUIRE(r.modes.size() == 4);
  for (int k = 0; k < 3; ++k) CHECK(std::abs(r.modes[k].eigenvalue) < 1e-2);
  const double free_free = 4.7300408 * 4.7300408 * std::sqrt(kE * I / (kRho * A)) / kTwoPi;
  std::printf("free-free: rigid |s| %.3g %.3g %.3g 1/s; bending %.9g Hz against %.9g\n", std::abs(r.modes[0].eigenvalue),
              std::abs(r.modes[1].eigenvalue), std::abs(r.modes[2].eigenvalue), natural_hz(r.modes[3]), free_free);
  CHECK(std::fabs(natural_hz(r.modes[3]) / free_free - 1.0) < 1e-4);
}

TEST_CASE("eigen analysis: the drawn mode moves the equilibrium by the amplitude, a quarter period later at rest",
          "[eigen][output]") {
  const Model m = cantilever(8);
  const LinearModes r = modes_of(m, eigen_settings(1));
  // The largest change of a position coordinate (slopes are not lengths).
  const auto largest_position = [&](const Eigen::VectorXd& x) {
    double most = 0.0;
    for (int i = 0; i < x.size(); ++i)
      if (!m.is_dimensionless(i)) most = std::max(most, std::fabs(x[i]));
    return most;
  };
  Eigen::VectorXd q, v;
  mode_state(m, r.q, r.modes[0], 0.05, 0.0, q, v);
  CHECK(largest_position(q - r.q) == Approx(0.05));
  CHECK(v.cwiseAbs().maxCoeff() < 1e-12);
  // A quarter period on, the shape passes the equilibrium at its largest speed, w times the amplitude.
  mode_state(m, r.q, r.modes[0], 0.05, -M_PI / 2, q, v);
  CHECK((q - r.q).cwiseAbs().maxCoeff() < 1e-12);
  CHECK(largest_position(v) == Approx(0.05 * std::abs(r.modes[0].eigenvalue)));
}

TEST_CASE("eigen analysis through the command: modes.csv, mode_shapes.csv, the ParaView files, summary.json",
          "[eigen][cli]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "catenary_eigen_cli";
  fs::remove_all(dir);
  const fs::path log = dir.string() + ".log";
  REQUIRE(run_catenary("run " + std::string(CATENARY_SOURCE_DIR) + "/cases/cantilever_modes.json --out " +
                           dir.string(),
                       log) == 0);
  const nlohmann::json summary = nlohmann::json::parse(slurp(dir / "summary.json"));
  CHECK(summary["analysis"] == "eigen");
  REQUIRE(summary["modes"].size() == 6);
  const double first = summary["modes"][0]["natural_frequency_hz"].get<double>();
  CHECK(std::fabs(first / cantilever_bending_hz(0) - 1.0) < 2e-5);
  CHECK(count_lines(dir / "modes.csv") == 7);
  CHECK(count_lines(dir / "mode_shapes.csv") == 1 + 33 * 4);
  CHECK(fs::exists(dir / "modes" / "mode_006.pvd"));
  CHECK(fs::exists(dir / "modes" / "mode_006_11.vtu"));
  CHECK_THAT(slurp(log), Catch::Contains("mode 1: 16.76"));
  // Run again with fewer modes: the first run's mode files go (earlier_outputs.hpp).
  nlohmann::json document = nlohmann::json::parse(slurp(std::string(CATENARY_SOURCE_DIR) + "/cases/cantilever_modes.json"));
  document["analysis"]["modes"] = 2;
  const fs::path fewer = dir.string() + "_fewer.json";
  std::ofstream(fewer) << document.dump();
  REQUIRE(run_catenary("run " + fewer.string() + " --out " + dir.string(), log) == 0);
  CHECK(fs::exists(dir / "modes" / "mode_002.pvd"));
  CHECK_FALSE(fs::exists(dir / "modes" / "mode_003.pvd"));
  CHECK_FALSE(fs::exists(dir / "modes" / "mode_006_11.vtu"));
}

#ifdef CATENARY_WITH_CUDA
TEST_CASE("eigen analysis: the CUDA backend's code on the host finds the CPU backend's modes", "[eigen][cuda-host]") {
  // The damped bar at 16 elements (its nearest mode far from round-off: the block solvers'
  // rounding, amplified by the bar's condition, stays near 1e-10) and the chain (its springs'
  // stiffness from the multibody block's differences, 3e-8).
  const std::pair<Model, double> models[] = {{cantilever(16, 2e-5), 1e-8},
                                             {two_mass_chain(1e4, 1e9, 1.0, 1.0, 0.0, 0.0), 1e-6}};
  for (const auto& [m, bound] : models) {
    const LinearModes cpu = modes_of(m, eigen_settings(4));
    auto cuda = cuda::make_cuda_backend_on_host(m);
    const LinearModes other = modes_on(*cuda, m, eigen_settings(4));
    REQUIRE(other.modes.size() == cpu.modes.size());
    for (size_t k = 0; k < cpu.modes.size(); ++k)
      CHECK(std::abs(other.modes[k].eigenvalue - cpu.modes[k].eigenvalue) < bound * std::abs(cpu.modes[k].eigenvalue));
  }
}
#endif
