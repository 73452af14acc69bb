// The group kernels of interleaved chain elimination (solve/interleaved_chain_elimination.hpp)
// run as a device runs them (threaded_blocks.hpp: a host thread for each of a thread block's 192
// threads). Their results must equal, bit for bit, the one-thread run that the CUDA backend's host
// build (and every other test) uses.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "catenary/solve/interleaved_chain_elimination.hpp"
#include "threaded_blocks.hpp"

using namespace catenary;

namespace {

// f.run for every group of `chains` (threaded_blocks.hpp).
template <class F>
void run_groups(const F& f, int chains, bool threaded) {
  testing::run_blocks_on_host(f, chain_groups(chains), threaded);
}

struct Factors {
  std::vector<double> D, L, U;  // copies: the factorization overwrites its blocks
  int singular = 0;
};

}  // namespace

TEST_CASE("Interleaved chain elimination's group kernels: a thread each, barriers between phases, equal one thread's run",
          "[solver]") {
  constexpr int N = InterleavedChains::N;
  const InterleavedChains at{40, 7};  // two groups, the second of 8 chains
  const size_t values = static_cast<size_t>(at.chains) * at.length * N * N;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> D(values), L(values), U(values), r(static_cast<size_t>(at.chains) * at.length * N);
  for (std::vector<double>* v : {&D, &L, &U, &r})
    for (double& x : *v) x = uniform(rng);
  for (int c = 0; c < at.chains; ++c)
    for (int p = 0; p < at.length; ++p)
      for (int i = 0; i < N; ++i) D[at.block_entry(c, p, i * N + i)] += 4.0;

  const auto factor = [&](bool threaded) {
    Factors f{D, L, U, 0};
    run_groups(FactorInterleavedChains{InterleavedBlocks{at, f.D.data(), f.L.data(), f.U.data()}, &f.singular},
               at.chains, threaded);
    return f;
  };
  Factors one = factor(false);
  const Factors each = factor(true);
  CHECK(one.singular == 0);
  CHECK(each.singular == 0);
  CHECK(each.D == one.D);
  CHECK(each.L == one.L);
  CHECK(each.U == one.U);

  const InterleavedBlocks factors{at, one.D.data(), one.L.data(), one.U.data()};
  const auto solve = [&](bool threaded, bool split) {
    std::vector<double> x(r.size(), 0.0);
    if (split) {
      run_groups(SolveInterleavedChains<Sweeps::Forward>{factors, r.data(), x.data()}, at.chains, threaded);
      run_groups(SolveInterleavedChains<Sweeps::Backward>{factors, r.data(), x.data()}, at.chains, threaded);
    } else {
      run_groups(SolveInterleavedChains<>{factors, r.data(), x.data()}, at.chains, threaded);
    }
    return x;
  };
  const std::vector<double> x = solve(false, false);
  CHECK(solve(true, false) == x);
  CHECK(solve(true, true) == x);
  CHECK(solve(false, true) == x);

  // x solves the system: L_p x_{p-1} + D_p x_p + U_p x_{p+1} = r_p in every chain.
  double worst = 0.0, largest = 0.0;
  for (int c = 0; c < at.chains; ++c)
    for (int p = 0; p < at.length; ++p)
      for (int i = 0; i < N; ++i) {
        double sum = -r[at.vector_entry(c, p, i)];
        for (int j = 0; j < N; ++j) {
          sum += D[at.block_entry(c, p, i * N + j)] * x[at.vector_entry(c, p, j)];
          if (p > 0) sum += L[at.block_entry(c, p, i * N + j)] * x[at.vector_entry(c, p - 1, j)];
          if (p + 1 < at.length) sum += U[at.block_entry(c, p, i * N + j)] * x[at.vector_entry(c, p + 1, j)];
        }
        worst = std::max(worst, std::fabs(sum));
        largest = std::max(largest, std::fabs(x[at.vector_entry(c, p, i)]));
      }
  INFO("largest residual " << worst << ", largest |x| " << largest);
  CHECK(worst <= 1e-13 * std::max(1.0, largest));
}
