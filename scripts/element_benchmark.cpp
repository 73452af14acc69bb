// Time of one element evaluation (the shared element math, as the CPU backend calls it: all four
// shape functions' rows), for the spatial cable and the planar beam, both strain laws, straight
// and curved stress-free shapes, forces alone and forces with the Jacobian. Isolates the element math from
// gathers, assembly and solves; the minimum of 7 rounds over 1,024 states is printed.
//
//   catenary_element_benchmark
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "catenary/elements/gradient_deficient_math.hpp"

using namespace catenary;

namespace {

// Nanoseconds per evaluation over states scattered 1 cm around the reference.
template <int D>
double time_evaluation(StrainLaw law, bool curved, bool jacobian, double& checksum) {
  constexpr int n = 4 * D, states = 1024, sweeps = 200;
  const ElementProperties p{0.1, 6.3e5, 15.7, 2.45, 0.0, double(law)};  // the benchmark cable's 0.1 m element
  double ref[n] = {};
  ref[D] = 1.0;                 // r'_A along x
  ref[2 * D] = p.length;        // r_B
  ref[3 * D] = 1.0;             // r'_B along x
  if (curved) ref[3 * D + 1] = 0.05;  // end slope turned by 0.05 rad in the plane
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  static double e[states][n];
  for (auto& state : e)
    for (int i = 0; i < n; ++i) state[i] = ref[i] + 0.01 * U(rng);
  const double edot[n] = {};
  const ReferenceQuadrature reference = reference_quadrature<D>(p, ref);  // once, as the backends
  double best = 1e300;
  for (int round = 0; round < 7; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int sweep = 0; sweep < sweeps; ++sweep)
      for (const auto& state : e) {
        ElementEvaluation<D> out;
        evaluate_element<D>(p, reference, state, edot, jacobian, out);
        checksum += out.force[1] + (jacobian ? out.jacobian(1, n - 1) : 0.0);
      }
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / (sweeps * states));
  }
  return best;
}

}  // namespace

int main() {
  double checksum = 0.0;  // keeps the evaluations from being optimized away
  std::printf("%-15s %-10s %-9s %14s %14s\n", "law", "element", "reference", "forces ns", "+Jacobian ns");
  for (StrainLaw law : {StrainLaw::reissner, StrainLaw::green_lagrange})
    for (bool curved : {false, true}) {
      const char* name = law == StrainLaw::reissner ? "Reissner" : "Green-Lagrange";
      const char* shape = curved ? "curved" : "straight";
      std::printf("%-15s %-10s %-9s %14.1f %14.1f\n", name, "cable 3D", shape,
                  time_evaluation<3>(law, curved, false, checksum), time_evaluation<3>(law, curved, true, checksum));
      std::printf("%-15s %-10s %-9s %14.1f %14.1f\n", name, "beam 2D", shape,
                  time_evaluation<2>(law, curved, false, checksum), time_evaluation<2>(law, curved, true, checksum));
    }
  std::printf("# checksum %g\n", checksum);
  return 0;
}
