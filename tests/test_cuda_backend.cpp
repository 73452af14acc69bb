// The CUDA backend against the CPU backend. Its code runs twice: on the host (Thrust's host
// system, UMFPACK instead of cuSOLVER), which CI checks on every build, and on a device ([gpu]),
// which needs a GPU and skips with a message without one.
#include <catch2/catch.hpp>
#include <cfloat>
#include <cstdlib>
#include <tuple>

#include "catenary/core/errors.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/model/reference_models.hpp"
#include "catenary/run/backend_factory.hpp"
#include "catenary/solve/csr_solver.hpp"

#ifdef CATENARY_WITH_CUDA
#include "backend_agreement.hpp"
#include "contact_models.hpp"
#include "multibody_models.hpp"
#include "water_models.hpp"
#endif

using namespace catenary;

namespace {

#ifdef CATENARY_WITH_CUDA
using BackendMaker = std::unique_ptr<Backend> (*)(const Model&, cuda::LinearSolver);

// One model's operators on one solver: the solver the backend reports ("" for no check; kDirect:
// cuSOLVER's sparse QR on the device, UMFPACK in the host build) and the random state's seed.
constexpr const char* kDirect = "(the direct solver)";
struct OperatorCase {
  std::string title;
  Model model;
  cuda::LinearSolver solver;
  std::string reported_solver;
  unsigned seed;
};

Model arc_model() {
  Model m;
  m.dimension = 3;
  m.gravity[2] = -9.81;
  add_arc(m, "arc", {0, 0, 0}, 2.0, 0.0, M_PI / 2, 8, {1e5, 50.0, 3.0, 0.0});
  finalize_model(m);
  add_spherical_to_ground(m, 0, {2, 0, 0}, "pin", "/constraints/0");
  return m;
}

std::vector<OperatorCase> operator_cases() {
  using S = cuda::LinearSolver;
  const Model one = testing::damped_cable(5), beams = rancf_pendulum(21e6), boom = testing::cable_hanging_from_boom(6);
  std::vector<CopyRange> ranges;
  const std::string boom_border = "block chain elimination (interleaved chains) with a border of " +
                                  std::to_string(7 + boom.mechanism.row_count()) + " unknowns";
  return {
      {"spatial cable (cable3d), damped: block chain elimination (chosen by default for a short chain)",
       testing::damped_cable(7), S::Auto, "block chain elimination (interleaved chains)", 11},
      {"spatial cable (cable3d), damped: sparse QR forced", testing::damped_cable(7), S::SparseQr, kDirect, 11},
      {"spatial cable (cable3d), damped: GMRES with block-Jacobi", testing::damped_cable(7), S::Krylov, "GMRES", 16},
      {"planar beams with joints between nodes: GMRES with block-Jacobi", beams, S::Krylov, "", 17},
      {"a long cable: 301 blocks, 9 levels of cyclic reduction (chosen by default)", testing::damped_cable(300),
       S::Auto, "block cyclic reduction", 15},
      {"a sweep's batch of three cables is one block-tridiagonal chain", merge_models({&one, &one, &one}, ranges),
       S::BlockTridiagonal, "", 14},
      {"a sweep's batch of 40 cables of different stiffness: chain elimination (chosen by default)",
       testing::stiffness_sweep_batch(40, 5), S::Auto, "block chain elimination (interleaved chains)", 18},
      {"a long cable by chain elimination: one chain of 301 blocks, one thread", testing::damped_cable(300),
       S::ChainElimination, "", 19},
      {"planar beams with revolute joints between nodes (beam2d): the joints' rows in a border, chain elimination",
       beams, S::Auto, "block chain elimination with a border of 8 unknowns", 12},
      {"planar beams with revolute joints between nodes (beam2d): the joints' rows in a border, cyclic reduction",
       beams, S::BlockTridiagonal, "block cyclic reduction with a border of 8 unknowns", 21},
      {"planar beams with revolute joints between nodes (beam2d): sparse QR forced", beams, S::SparseQr, kDirect, 22},
      {"cable attached to a hinged rigid boom (multibody block): the boom and the mechanism's rows in a border", boom,
       S::Auto, boom_border, 13},
      {"an arc (curved stress-free shape): the element pass with the kappa0 term", arc_model(), S::Auto, "", 20},
      {"a sweep of five cranes: each boom a block of its cable's chain, chain elimination", testing::crane_batch(5, 6),
       S::Auto, "block chain elimination with 5 rigid bodies in the chains", 24},
      {"a sweep of five cranes: each boom a block of its cable's chain, cyclic reduction", testing::crane_batch(5, 6),
       S::BlockTridiagonal, "block cyclic reduction with 5 rigid bodies in the chains", 25},
      {"two cranes whose hooks are joined: the booms blocks of their chains, the hinge's rows a border",
       testing::cranes_joined_at_the_hook(6), S::Auto,
       "block chain elimination with 2 rigid bodies in the chains and a border of 3 unknowns", 26},
      {"a payload on a cable's last node: a block after the chain", testing::cable_with_payload(8), S::Auto,
       "block chain elimination with 1 rigid body in the chains", 27},
      {"the Green-Lagrange law: spatial cable, damped", testing::on_green_lagrange_law(testing::damped_cable(7)), S::Auto, "",
       28},
      {"the Green-Lagrange law: planar beams with revolute joints", testing::on_green_lagrange_law(beams), S::Auto, "", 29},
      {"the Green-Lagrange law: an arc, the kappa0 term", testing::on_green_lagrange_law(arc_model()), S::Auto, "", 30},
      {"a cable on a plane with contact damping and friction (the damped row pass)",
       testing::cable_on_plane(3, 8, {1e6, 1.0, 300.0, 0.0, 0.3, 0.5, 0.01}, {0.5, 0.2, 0.0}), S::Auto, "", 31},
      {"a cable on a plane, Hertz law without velocity terms (the row pass, not the block pass)",
       testing::cable_on_plane(3, 8, {1e7, 1.5, 0.0, 0.0, 0.0, 0.0, 1.0}, {0.0, 0.0, 0.0}), S::Auto, "", 32},
      {"a planar beam on a line with hysteresis damping and friction",
       testing::cable_on_plane(2, 8, {1e7, 1.5, 1e5, 1.5, 0.4, 0.0, 0.01}, {0.5, 0.0, 0.0}), S::Auto, "", 33},
      {"a cable over a cylinder with friction (the capstan): a curved contact surface", testing::capstan(0.3),
       S::Auto, "", 34},
      {"a cable on a height grid with damping and friction",
       testing::cable_on_bumpy_grid(3, 8, {1e6, 1.0, 300.0, 0.0, 0.3, 0.5, 0.01}, {0.5, 0.2, 0.0}), S::Auto, "", 35},
      {"a planar beam on a height profile", testing::cable_on_bumpy_grid(2, 8, {1e7, 1.5, 1e5, 1.5, 0.4, 0.0, 0.01},
                                                                          {0.5, 0.0, 0.0}),
       S::Auto, "", 36},
      {"a line through a wave's surface in a current: buoyancy, drag, inertia and added mass",
       testing::line_in_waves(3, 8), S::Auto, "", 37},
      {"a planar beam through a wave's surface", testing::line_in_waves(2, 8), S::Auto, "", 38},
      {"a line through a wave's surface without drag: undamped, the block pass then the water pass",
       testing::line_in_waves(3, 8, false), S::Auto, "", 39},
  };
}

void check_all_operators(BackendMaker make) {
  for (const OperatorCase& c : operator_cases()) {
    DYNAMIC_SECTION(c.title) {
      auto backend = make(c.model, c.solver);
      if (c.reported_solver == kDirect)
        CHECK(backend->linear_solver() == (backend->name() == "cuda" ? "sparse QR" : "UMFPACK"));
      else if (!c.reported_solver.empty())
        CHECK(backend->linear_solver() == c.reported_solver);
      testing::check_operators_agree(c.model, *backend, c.seed);
    }
  }
  SECTION("a border over 64 unknowns (eleven rigid bodies tied to each other): sparse QR, the block methods refused") {
    const Model m = testing::cable_on_boom_with_bars(4, 10, true);
    auto backend = make(m, cuda::LinearSolver::Auto);
    CHECK(backend->linear_solver() == (backend->name() == "cuda" ? "sparse QR" : "UMFPACK"));
    CHECK_THROWS_WITH(make(m, cuda::LinearSolver::ChainElimination), Catch::Contains("more than 64"));
    testing::check_operators_agree(m, *backend, 23);
  }
}

// The same operators at a size where every kernel runs over many thread blocks and the index
// arithmetic of the pattern and the block solvers meets large counts.
void check_operators_at_scale(BackendMaker make) {
  // (GMRES is left out: its block-Jacobi preconditioner does not converge on the last matrix of
  // check_operators_agree at this size, whose stiffness part is not small; the benchmark runs it.)
  // The element math differences node positions up to 2,000 m from the origin over 0.1 m elements,
  // so a position's rounding grows 2e4 times in the slopes, and two backends that round
  // differently (the device contracts products into fused multiply-adds) differ by about
  // eps x 2e4 relative there. 20 times that: 8.9e-11 (an H100 measured more than 1e-12 and less
  // than 5e-11; the 20-element cables of the batch below stay within 1e-12).
  const double long_cable_tolerance = 20 * DBL_EPSILON * 2000 / 0.1;
  // On the Green-Lagrange law (testing::on_green_lagrange_law): the solves' bounds were measured
  // on its random states. The Reissner law's element math is checked in operator_cases.
  SECTION("one cable of 20,000 elements: block cyclic reduction and chain elimination") {
    const Model m = testing::on_green_lagrange_law(falling_cable_pendulum(20000));
    for (cuda::LinearSolver solver : {cuda::LinearSolver::BlockTridiagonal, cuda::LinearSolver::ChainElimination}) {
      auto backend = make(m, solver);
      INFO("solver " << backend->linear_solver());
      testing::check_operators_agree(m, *backend, 30, long_cable_tolerance);
    }
  }
  SECTION("a 20,000-element cable hung from a crane's boom: both block methods with a border of 16 unknowns") {
    const Model m = testing::on_green_lagrange_law(crane_falling_cable(20000));
    for (cuda::LinearSolver solver : {cuda::LinearSolver::BlockTridiagonal, cuda::LinearSolver::ChainElimination}) {
      auto backend = make(m, solver);
      INFO("solver " << backend->linear_solver());
      CHECK(backend->linear_solver().find("with a border of 16 unknowns") != std::string::npos);
      testing::check_operators_agree(m, *backend, 32, long_cable_tolerance);
    }
  }
  SECTION("a sweep's batch of 1,000 cables of 20 elements: both block methods (cyclic reduction by default)") {
    const Model m = testing::on_green_lagrange_law(testing::stiffness_sweep_batch(1000, 20));
    CHECK(make(m, cuda::LinearSolver::Auto)->linear_solver() == "block cyclic reduction");
    for (cuda::LinearSolver solver : {cuda::LinearSolver::BlockTridiagonal, cuda::LinearSolver::ChainElimination}) {
      auto backend = make(m, solver);
      INFO("solver " << backend->linear_solver());
      testing::check_operators_agree(m, *backend, 31);
    }
  }
  SECTION("a sweep's batch of 1,000 cranes of 10 elements: both block methods, each boom a block of its chain") {
    const Model m = testing::crane_batch(1000, 10);
    for (cuda::LinearSolver solver : {cuda::LinearSolver::BlockTridiagonal, cuda::LinearSolver::ChainElimination}) {
      auto backend = make(m, solver);
      INFO("solver " << backend->linear_solver());
      CHECK_THAT(backend->linear_solver(), Catch::EndsWith("with 1000 rigid bodies in the chains"));
      testing::check_operators_agree(m, *backend, 33);
    }
  }
}

void check_whole_runs(BackendMaker make) {
  SECTION("falling cable pendulum, block cyclic reduction") {
    const Model m = falling_cable_pendulum(10);
    auto backend = make(m, cuda::LinearSolver::BlockTridiagonal);
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(2e-3, 0.3, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("falling cable pendulum, chain elimination (chosen by default)") {
    const Model m = falling_cable_pendulum(10);
    auto backend = make(m, cuda::LinearSolver::Auto);
    CHECK(backend->linear_solver() == "block chain elimination (interleaved chains)");
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(2e-3, 0.3, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("falling cable pendulum on the Green-Lagrange law, chain elimination") {
    const Model m = testing::on_green_lagrange_law(falling_cable_pendulum(10));
    auto backend = make(m, cuda::LinearSolver::Auto);
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(2e-3, 0.3, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("a sweep's batch of 30 cables of 8 elements, chain elimination (the chain-interleaved layout)") {
    const Model m = testing::stiffness_sweep_batch(30, 8);
    auto backend = make(m, cuda::LinearSolver::ChainElimination);
    CHECK(backend->linear_solver() == "block chain elimination (interleaved chains)");
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(2e-3, 0.2, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("falling cable pendulum, GMRES") {
    const Model m = falling_cable_pendulum(10);
    auto backend = make(m, cuda::LinearSolver::Krylov);
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(2e-3, 0.3, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("cable hanging from a swinging rigid boom, stabilized index 2") {
    const Model m = testing::cable_hanging_from_boom(8);
    auto backend = make(m, cuda::LinearSolver::Auto);
    AnalysisSettings a = testing::dynamic_settings(1e-3, 0.3, -0.1);
    a.dynamics.formulation = DynamicSettings::Formulation::StabilizedIndex2;
    const double d = testing::dynamic_run_difference(m, a, *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("cable hanging from a swinging rigid boom, block cyclic reduction with a border") {
    const Model m = testing::cable_hanging_from_boom(8);
    auto backend = make(m, cuda::LinearSolver::BlockTridiagonal);
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(1e-3, 0.3, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("cable hanging from a swinging rigid boom") {
    const Model m = testing::cable_hanging_from_boom(8);
    auto backend = make(m, cuda::LinearSolver::Auto);
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(1e-3, 0.3, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("a cable thrown onto a plane: contact damping, axial and lateral friction") {
    const Model m = testing::cable_on_plane(3, 10, {1e6, 1.0, 300.0, 0.0, 0.3, 0.5, 0.01}, {1.0, 0.5, -0.3});
    auto backend = make(m, cuda::LinearSolver::Auto);
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(1e-3, 0.2, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("a cable thrown onto a height grid: the grid's heights in the pass's memory") {
    // Hertz's law with hysteresis damping: no kink where the points arrive one by one. The bumps
    // land the points one by one with friction turning at the triangles' edges: at 1e-3 s, the
    // plane's step, Newton diverged on landing (with friction; without, it converged).
    const Model m = testing::cable_on_bumpy_grid(3, 10, {1e7, 1.5, 1e5, 1.5, 0.3, 0.5, 0.01}, {1.0, 0.5, -0.3});
    auto backend = make(m, cuda::LinearSolver::Auto);
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(2.5e-4, 0.2, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
  SECTION("RANCF pendulum (flexible)") {
    const Model m = rancf_pendulum(21e6);
    auto backend = make(m, cuda::LinearSolver::Auto);
    const double d = testing::dynamic_run_difference(m, testing::dynamic_settings(1e-3, 0.2, -0.1), *backend);
    INFO("largest relative coordinate difference: " << d);
    CHECK(d < 1e-9);
  }
}
#endif

}  // namespace

#ifdef CATENARY_WITH_CUDA
TEST_CASE("the automatic block method follows the H100 measurements", "[cuda-host]") {
#ifdef CATENARY_WITH_CUDA
  // Chains of `length` blocks, `count` of them.
  const auto chains = [](int count, int length) {
    std::vector<int> chain_ptr(1, 0);
    for (int c = 0; c < count; ++c) chain_ptr.push_back(chain_ptr.back() + length);
    return chain_ptr;
  };
  // Measured (docs/performance.md, Linear solvers): cyclic reduction is faster for one cable of 100
  // or 1,000,000 elements and for the sweeps of 1 to 10,000 copies of a 100-element cable.
  for (int copies : {1, 10, 100, 1000, 10000})
    CHECK(preferred_block_method(chains(copies, 101)) == BlockMethod::CyclicReduction);
  CHECK(preferred_block_method(chains(1, 1000001)) == BlockMethod::CyclicReduction);
  // Cyclic reduction's levels stop at the longest chain's: a batch pays for its copies' length,
  // not its own (1,000 cables of 20 elements: 5 levels, about 0.6 ms by the measured costs,
  // against elimination's 0.7 ms measured; reduced as one chain, 15 levels, 1.4 ms).
  CHECK(cyclic_reduction_levels(chains(10000, 101)) == 7);
  CHECK(cyclic_reduction_levels(chains(1, 1000001)) == 20);
  CHECK(cyclic_reduction_levels(chains(3, 64)) == 6);
  CHECK(cyclic_reduction_levels(chains(5, 1)) == 0);
  CHECK(preferred_block_method(chains(1000, 21)) == BlockMethod::CyclicReduction);
  // A few short chains: elimination (one 7-element cable: 168 us against 3 levels' 240).
  CHECK(preferred_block_method(chains(1, 8)) == BlockMethod::ChainElimination);
  CHECK(preferred_block_method(chains(40, 6)) == BlockMethod::ChainElimination);
  // Measured (docs/performance.md, Sweeps): interleaved elimination's groups win modified Newton's
  // solves at 10,000 copies of a 100-element cable and lose them at 1,000; full Newton never.
  CHECK(interleaved_elimination_preferred(10000, true));
  CHECK_FALSE(interleaved_elimination_preferred(1000, true));
  CHECK_FALSE(interleaved_elimination_preferred(10000, false));
#else
  WARN("skipped: this build has no CUDA backend");
#endif
}

TEST_CASE("the block solver's own choice: interleaved elimination for a large batch where factorizations are "
          "reused, the same solution as cyclic reduction's",
          "[cuda-host]") {
#ifdef CATENARY_WITH_CUDA
  // 4,096 chains of two dense 6 x 6 blocks (the fewest chains the groups are taken for), each chain
  // a diagonally dominant 12 x 12 matrix.
  constexpr int kChains = 4096, kChainSize = 12;
  std::vector<int> block_ptr(1, 0), chain_ptr(1, 0), row_ptr(1, 0), col;
  std::vector<double> values, rhs;
  for (int c = 0; c < kChains; ++c) {
    for (int b = 0; b < 2; ++b) block_ptr.push_back(block_ptr.back() + 6);
    chain_ptr.push_back(chain_ptr.back() + 2);
    for (int i = 0; i < kChainSize; ++i) {
      for (int j = 0; j < kChainSize; ++j) {
        col.push_back(c * kChainSize + j);
        values.push_back(i == j ? 20.0 + c % 7 : std::sin(1.0 + c + 13 * i + j));
      }
      row_ptr.push_back(static_cast<int>(col.size()));
      rhs.push_back(std::cos(0.1 * (c * kChainSize + i)));
    }
  }
  const int size = kChains * kChainSize, nonzeros = static_cast<int>(col.size());
  // A dynamic analysis by modified Newton reuses its factorizations; full Newton and statics do not.
  AnalysisSettings analysis;
  CHECK_FALSE(reuses_factorizations(analysis));
  analysis.dynamics.newton = DynamicSettings::Newton::Modified;
  CHECK(reuses_factorizations(analysis));
  analysis.type = AnalysisSettings::Type::Static;
  CHECK_FALSE(reuses_factorizations(analysis));
  CHECK(interleaved_elimination_preferred(kChains, true));
  CHECK(preferred_block_method(chain_ptr) == BlockMethod::CyclicReduction);
  const auto solve = [&](bool reuses_factorizations, const std::string& name) {
    auto solver = make_block_tridiagonal_solver(block_ptr, chain_ptr, std::nullopt, false, 1, reuses_factorizations);
    solver->analyze(size, nonzeros, row_ptr.data(), col.data());
    CHECK(solver->method() + solver->layout_note() == name);
    solver->factorize(values.data());
    std::vector<double> x(size);
    solver->solve(rhs.data(), x.data());
    return x;
  };
  const std::vector<double> reduction = solve(false, "block cyclic reduction");
  const std::vector<double> groups = solve(true, "block chain elimination (interleaved chains)");
  double residual = 0.0, difference = 0.0;
  for (int r = 0; r < size; ++r) {
    double ax = 0.0;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) ax += values[k] * groups[col[k]];
    residual = std::max(residual, std::abs(ax - rhs[r]));
    difference = std::max(difference, std::abs(groups[r] - reduction[r]));
  }
  INFO("largest residual " << residual << ", largest difference from cyclic reduction's " << difference);
  CHECK(residual < 1e-12);
  CHECK(difference < 1e-12);
#else
  WARN("skipped: this build has no CUDA backend");
#endif
}

TEST_CASE("CUDA backend code run on the host: operators equal the CPU backend's", "[cuda-host]") {
  check_all_operators(&cuda::make_cuda_backend_on_host);
}

// The at-scale checks of the [gpu] test below, on the host (about 12 s).
TEST_CASE("CUDA backend code run on the host at scale: operators and solves equal the CPU backend's",
          "[cuda-host]") {
  check_operators_at_scale(&cuda::make_cuda_backend_on_host);
}

TEST_CASE("CUDA backend code run on the host: HHT runs equal the CPU backend's", "[cuda-host]") {
  check_whole_runs(&cuda::make_cuda_backend_on_host);
}

// The host build allocates exactly the device backend's arrays (the same code; a 1,000,000-element
// cable: 7,798 MiB counted here and measured on an H100), so its counted peak checks the estimate
// that refuses a model before anything is allocated, with the analysis's vectors
// (backend_vector_count): never below, and its arrays' part (without the device's page rounding)
// at most 20 % above for the chain models it is written for.
TEST_CASE("The device-memory estimate bounds the backend's arrays, counted on the host build", "[cuda-host]") {
  const Model cable = falling_cable_pendulum(2000), crane = crane_falling_cable(2000),
              one = falling_cable_pendulum(100);
  std::vector<CopyRange> ranges;
  const Model sweep = merge_models(std::vector<const Model*>(20, &one), ranges);
  const Model beams = rancf_pendulum(21e6);
  const auto peak_of_run = [](const Model& m, cuda::LinearSolver solver, const AnalysisSettings& a) {
    cuda::reset_host_array_peak_bytes();
    const size_t before = cuda::host_array_peak_bytes();
    auto backend = cuda::make_cuda_backend_on_host(m, solver);
    testing::run_model_on(*backend, m, a, 1.0);
    return cuda::host_array_peak_bytes() - before;
  };
  const AnalysisSettings hht = testing::dynamic_settings(1e-3, 3e-3, -0.1), bdf2 = testing::bdf_settings(1e-3, 1e-2, 2),
                         bdf5 = testing::bdf_settings(1e-3, 1e-2, 5);
  AnalysisSettings generalized_alpha = hht, hht_modified = hht;
  generalized_alpha.dynamics.integrator = DynamicSettings::Integrator::GeneralizedAlpha;
  hht_modified.dynamics.newton = DynamicSettings::Newton::Modified;  // allocates the float factors
  BackendOptions double_factors;
  double_factors.block_solver.float_factors = false;
  CHECK(cuda::estimated_device_bytes(cable, 21, double_factors) < cuda::estimated_device_bytes(cable, 21));
  for (const auto& [name, model, tight] : {std::tuple<const char*, const Model*, bool>{"cable", &cable, true},
                                           {"crane", &crane, true},
                                           {"sweep", &sweep, true},
                                           {"planar beams", &beams, false}}) {
    for (const cuda::LinearSolver solver :
         {cuda::LinearSolver::BlockTridiagonal, cuda::LinearSolver::ChainElimination, cuda::LinearSolver::Krylov}) {
      if (solver == cuda::LinearSolver::Krylov && !model->mechanism.bodies.empty()) continue;  // GMRES: no rigid bodies
      for (const auto& [analysis, a] : {std::pair<const char*, const AnalysisSettings*>{"HHT", &hht},
                                        {"HHT, modified Newton", &hht_modified},
                                        {"generalized-alpha", &generalized_alpha},
                                        {"BDF order 2", &bdf2},
                                        {"BDF order 5", &bdf5}}) {
        const size_t estimate = cuda::estimated_device_bytes(*model, backend_vector_count(*a));
        const size_t peak = peak_of_run(*model, solver, *a);
        INFO(name << ", solver " << static_cast<int>(solver) << ", " << analysis << ": peak " << peak
                  << " bytes, estimate " << estimate);
        CHECK(peak <= estimate);
        if (tight && solver == cuda::LinearSolver::BlockTridiagonal)
          CHECK(estimate - cuda::kDevicePageAllowance <= 1.2 * peak);
      }
    }
  }
  // Statics, on the shipped static cases.
  for (const char* file : {"/cases/hanging_cable.json", "/cases/cantilever_static.json"}) {
    const Case c = load_case(std::string(CATENARY_SOURCE_DIR) + file);
    REQUIRE(c.analysis.type == AnalysisSettings::Type::Static);
    const size_t estimate = cuda::estimated_device_bytes(c.model, backend_vector_count(c.analysis));
    const size_t peak = peak_of_run(c.model, cuda::LinearSolver::Auto, c.analysis);
    INFO(file << ": peak " << peak << " bytes, estimate " << estimate);
    CHECK(peak <= estimate);
  }
}

TEST_CASE("CUDA backend on the device: element forces, Jacobians and mass equal the CPU backend's", "[gpu]") {
  if (!testing::device_usable()) return;
  check_all_operators(&cuda::make_cuda_backend);
}

TEST_CASE("CUDA backend on the device at scale: operators and solves equal the CPU backend's", "[gpu]") {
  if (!testing::device_usable()) return;
  check_operators_at_scale(&cuda::make_cuda_backend);
}

TEST_CASE("CUDA backend on the device: HHT runs equal the CPU backend's to 1e-9", "[gpu]") {
  if (!testing::device_usable()) return;
  check_whole_runs(&cuda::make_cuda_backend);
}

TEST_CASE("CUDA backend on the device: vectors come back from the device as they went, in any number of pieces",
          "[gpu]") {
  if (!testing::device_usable()) return;
  const Model m = falling_cable_pendulum(4);
  const std::unique_ptr<Backend> be = cuda::make_cuda_backend(m);
  // Below one pinned buffer's 2^20 entries, exactly one, one and a bit, three with a short tail;
  // then a small one again through buffers grown for the large.
  for (const int n : {1, 1000, 1 << 20, (1 << 20) + 7, 3 * (1 << 20) - 5, 33}) {
    INFO("entries " << n);
    const Eigen::VectorXd sent = Eigen::VectorXd::Random(n);
    Vector x = be->make_vector(n);
    be->upload(sent, x);
    Eigen::VectorXd back = Eigen::VectorXd::Constant(n / 2 + 1, -1.0);  // resized by the download
    be->download(x, back);
    REQUIRE(back.size() == n);
    CHECK((back.array() == sent.array()).all());
    // A device operation between: what comes back is what the device holds, not the last upload.
    be->axpby(2.0, x, 0.0, x);
    be->download(x, back);
    CHECK((back.array() == 2.0 * sent.array()).all());
  }
}
#endif

TEST_CASE("Backend choice: cuda without a usable device is refused, auto falls back with a notice", "[backend]") {
  const Model m = falling_cable_pendulum(4);
  CHECK(parse_backend_choice("cpu") == BackendChoice::Cpu);
  CHECK(parse_backend_choice("auto") == BackendChoice::Auto);
  CHECK_THROWS_AS(parse_backend_choice("gpu"), std::invalid_argument);
  CHECK(make_backend(BackendChoice::Cpu, m).backend->name() == "cpu");
  CHECK(make_backend(BackendChoice::Cpu, m).notice.empty());
  CHECK(make_backend(BackendChoice::Cpu, m, LinearSolverChoice::BlockTridiagonal).notice.find(
            "applies to the CUDA backend") != std::string::npos);
  bool usable = false;
#ifdef CATENARY_WITH_CUDA
  std::string why;
  usable = cuda::device_available(why);
#endif
  if (usable) {
    CHECK(make_backend(BackendChoice::Cuda, m).backend->name() == "cuda");
    CHECK(make_backend(BackendChoice::Auto, m).notice.empty());
  } else {
    CHECK_THROWS_AS(make_backend(BackendChoice::Cuda, m), BackendUnavailable);
    const SelectedBackend s = make_backend(BackendChoice::Auto, m);
    CHECK(s.backend->name() == "cpu");
    CHECK(s.notice.find("running on the CPU") != std::string::npos);
  }
}

#ifdef CATENARY_WITH_CUDA
TEST_CASE("Block-tridiagonal solver: an entry between two chains said not to couple is refused", "[cuda-host]") {
  // Two 2 x 2 blocks, fully coupled, said to be two chains.
  const std::vector<int> row_ptr = {0, 4, 8, 12, 16}, col = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
  for (BlockMethod method : {BlockMethod::CyclicReduction, BlockMethod::ChainElimination}) {
    auto solver = make_block_tridiagonal_solver({0, 2, 4}, {0, 1, 2}, method, false);
    CHECK_THROWS_WITH(solver->analyze(4, 16, row_ptr.data(), col.data()),
                      Catch::Contains("couples blocks 0 and 1, which are in different chains"));
    auto one_chain = make_block_tridiagonal_solver({0, 2, 4}, {0, 2}, method, false);
    CHECK_NOTHROW(one_chain->analyze(4, 16, row_ptr.data(), col.data()));
  }
}
#endif
