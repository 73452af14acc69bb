// The CPU chain elimination (solve/chain_solver.hpp) alone, on the solver benchmark's cable: the
// falling cable pendulum's Newton matrix at its initial state with HHT's coefficients at
// h = 1e-3 s, alpha = -0.2. For chains planned for 1 .. P threads (cut into parts,
// solve/chain_partition.hpp) it prints the median time of a factorization and of a solve over the
// rounds, and each plan's largest difference to the whole chain's solution.
//
// With OMP_NUM_THREADS=1 the parts run one after another, which measures their work: the cost of
// an interior block's step over a Thomas step (kInteriorCost in src/solve/chain_partition.cpp)
// follows from the plans with interior parts, and is printed.
//
//   catenary_chain_solver_benchmark [elements (100000)] [max threads planned (4)] [rounds (7)]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/model/model_operators.hpp"
#include "catenary/model/reference_models.hpp"

using namespace catenary;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double median_ms(int rounds, F&& f) {
  std::vector<double> ms;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return median(ms);
}

}  // namespace

int main(int argc, char** argv) {
  const int elements = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int max_threads = argc > 2 ? std::atoi(argv[2]) : 4;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 7;
  const Model m = falling_cable_pendulum(elements);
  CpuBackend backend(m, LinearSolverChoice::SparseQr);  // assembles the matrix; its solver unused
  const double alpha = -0.2, h = 1e-3, beta = 0.25 * (1 - alpha) * (1 - alpha), gamma = 0.5 - alpha;
  const NewtonMatrixCoefficients c{1.0, (1 + alpha) * beta * h * h, (1 + alpha) * gamma * h, 1.0};
  Eigen::VectorXd f;
  backend.assemble_newton_matrix(initial_coordinates(m), Eigen::VectorXd::Zero(m.dof_count()), c, f);
  const Eigen::SparseMatrix<double>& A = backend.matrix();
  const BlockChainOrdering order = *block_chain_ordering(m);
  const int blocks = static_cast<int>(order.block_ptr.size()) - 1;
  const Eigen::VectorXd rhs = Eigen::VectorXd::LinSpaced(A.rows(), -1.0, 1.0);

  std::printf("# %d elements (%d blocks), OpenMP threads %d, median of %d rounds\n", elements, blocks,
              omp_get_max_threads(), rounds);
  std::printf("%8s %6s %12s %10s %14s %14s\n", "planned", "parts", "factor_ms", "solve_ms", "max_rel_diff",
              "interior_cost");
  std::vector<double> factor_ms(max_threads + 1, 0.0);
  Eigen::VectorXd whole_x;
  for (int planned = 1; planned <= max_threads; ++planned) {
    ChainSolver solver(order, A, planned);
    Eigen::VectorXd x;
    factor_ms[planned] = median_ms(rounds, [&] { solver.factorize(A); });
    const double solve_ms = median_ms(rounds, [&] { solver.solve(rhs, x); });
    if (planned == 1) whole_x = x;
    const double difference = (x - whole_x).cwiseAbs().maxCoeff() / whole_x.cwiseAbs().maxCoeff();
    // In series, a head or tail block takes factor_ms[2] / (blocks - 1) (two parts, no interior)
    // and an interior block interior_cost times that.
    const std::vector<int>& s = solver.partition().separators();
    double interior_cost = 0.0;
    if (s.size() >= 2 && max_threads >= 2) {
      const int ends = s.front() + (blocks - 1 - s.back());
      const int interior = blocks - ends - static_cast<int>(s.size());
      const double end_block = factor_ms[2] / (blocks - 1);
      interior_cost = (factor_ms[planned] - ends * end_block) / (interior * end_block);
    }
    std::printf("%8d %6d %12.3f %10.3f %14.3e %14.2f\n", planned, solver.partition().part_count(), factor_ms[planned],
                solve_ms, difference, interior_cost);
  }
  return 0;
}
