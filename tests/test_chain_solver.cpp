// The CPU backend's block chain elimination (solve/chain_solver.hpp; its default for chain
// models) against UMFPACK: the same Newton matrices solved by both, and whole HHT runs.
#include <catch2/catch.hpp>

#include <random>

#include "catenary/assembly/backend_factory.hpp"
#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/model/reference_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

namespace {

double relative_difference(const Eigen::VectorXd& reference, const Eigen::VectorXd& other) {
  return (reference - other).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
}

// Both backends assemble the Newton matrix at the same random state (the same code, so the same
// matrix) and solve the same random right-hand side; returns the relative difference.
double solve_difference(const Model& m, unsigned seed) {
  CpuBackend umfpack = umfpack_backend(m), chains(m, LinearSolverChoice::ChainElimination);
  REQUIRE(umfpack.linear_solver() == "UMFPACK");
  REQUIRE(chains.linear_solver() == "block chain elimination");
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const int n = m.dof_count(), rows = m.constraint_count();
  Eigen::VectorXd q = initial_coordinates(m), v(n), rhs(n + rows);
  for (int i = 0; i < n; ++i) q[i] += 0.02 * U(rng), v[i] = U(rng);
  for (int i = 0; i < n + rows; ++i) rhs[i] = U(rng);
  const NewtonMatrixCoefficients c{1.0, 2e-6, 3e-4, 1.0};
  Eigen::VectorXd f, x_umfpack, x_chains;
  umfpack.assemble_newton_matrix(q, v, c, f);
  chains.assemble_newton_matrix(q, v, c, f);
  umfpack.factorize();
  chains.factorize();
  umfpack.solve(rhs, x_umfpack);
  chains.solve(rhs, x_chains);
  return relative_difference(x_umfpack, x_chains);
}

}  // namespace

TEST_CASE("CPU chain elimination solves the Newton matrix as UMFPACK does", "[chain-solver]") {
  SECTION("spatial cable, pinned end (one 9-wide block)") { CHECK(solve_difference(damped_cable(7), 1) < 1e-9); }
  SECTION("a long spatial cable: one chain of 301 blocks") { CHECK(solve_difference(damped_cable(300), 2) < 1e-9); }
  SECTION("planar clamped cantilever (an 8-wide block)") { CHECK(solve_difference(swinging_cantilever(), 3) < 1e-9); }
  SECTION("a sweep's batch of 40 cables of different stiffness: 40 chains") {
    CHECK(solve_difference(stiffness_sweep_batch(40, 5), 4) < 1e-9);
  }
  SECTION("a sweep's batch of 250 cables: 1,500 blocks, over the threshold for threads") {
    CHECK(solve_difference(stiffness_sweep_batch(250, 5), 5) < 1e-9);
  }
}

TEST_CASE("CPU chain elimination: HHT runs equal UMFPACK's", "[chain-solver][dynamics]") {
  const Model m = falling_cable_pendulum(10);
  const AnalysisSettings a = dynamic_settings(2e-3, 0.3, -0.1);
  const RunResult reference = run_model_umfpack(m, a);
  CpuBackend chains(m, LinearSolverChoice::ChainElimination);
  const RunResult result = run_model_on(chains, m, a);
  REQUIRE(result.frames.size() == reference.frames.size());
  double worst = 0.0;
  for (size_t k = 0; k < reference.frames.size(); ++k)
    worst = std::max(worst, relative_difference(reference.frames[k].q, result.frames[k].q));
  INFO("largest relative coordinate difference: " << worst);
  CHECK(worst < 1e-9);
}

TEST_CASE("CPU solver choice: chain elimination by default for chains, UMFPACK otherwise and when named",
          "[chain-solver][backend]") {
  const Model beams = rancf_pendulum(21e6);  // joints between nodes: not a chain
  CHECK_THROWS_WITH(CpuBackend(beams, LinearSolverChoice::ChainElimination),
                    Catch::Contains("block chain elimination needs node blocks"));
  CHECK(CpuBackend(beams).linear_solver() == "UMFPACK");
  const Model cable = falling_cable_pendulum(4);
  CHECK(CpuBackend(cable).linear_solver() == "block chain elimination");
  CHECK(CpuBackend(stiffness_sweep_batch(3, 4)).linear_solver() == "block chain elimination");
  CHECK(umfpack_backend(cable).linear_solver() == "UMFPACK");
  const SelectedBackend chosen = make_backend(BackendChoice::Cpu, cable, LinearSolverChoice::ChainElimination);
  CHECK(chosen.notice.empty());
  CHECK(chosen.backend->linear_solver() == "block chain elimination");
  const SelectedBackend other = make_backend(BackendChoice::Cpu, cable, LinearSolverChoice::Krylov);
  CHECK(other.backend->linear_solver() == "UMFPACK");
}
