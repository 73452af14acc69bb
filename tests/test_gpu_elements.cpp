// [gpu] The CUDA element kernel against the CPU call of the same element math at random
// states. Without CUDA in the build or without a device, the test says so and checks nothing.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "catenary/elements/gradient_deficient_math.hpp"
#ifdef CATENARY_WITH_CUDA
#include "catenary/kernels/element_kernels.hpp"
#endif

using namespace catenary;

namespace {

template <int D>
void compare_with_cpu() {
#ifdef CATENARY_WITH_CUDA
  std::string why;
  if (!cuda::device_available(why)) {
    WARN("[gpu] test skipped: " << why);
    return;
  }
  constexpr int n = 4 * D;
  const int count = 1000;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  std::vector<ElementProperties> props;
  std::vector<double> ref, e, ed;
  for (int k = 0; k < count; ++k) {
    props.push_back({0.5 + 0.1 * (k % 5), 1e6 * (1 + U(rng) * 0.5), 2.0, 1.5, k % 2 ? 0.01 : 0.0});
    for (int i = 0; i < n; ++i) {
      const double base = (i % (2 * D) < D) ? (i < 2 * D ? 0.0 : props.back().length) * (i % D == 0)
                                            : (i % D == 0 ? 1.0 : 0.0);
      ref.push_back(base + 0.05 * U(rng));
      e.push_back(ref.back() + 0.2 * U(rng));
      ed.push_back(U(rng));
    }
  }
  const cuda::ElementBatchResult gpu = cuda::evaluate_elements(D, props, ref, e, ed);
  double worst = 0.0;
  for (int k = 0; k < count; ++k) {
    ElementEvaluation<D> cpu;
    evaluate_element<D>(props[k], &ref[n * k], &e[n * k], &ed[n * k], true, cpu);
    double scale_f = 0.0, scale_k = 0.0;
    for (int i = 0; i < n; ++i) {
      scale_f = std::max(scale_f, std::fabs(cpu.force[i]));
      for (int j = 0; j < n; ++j) scale_k = std::max(scale_k, std::fabs(cpu.stiffness(i, j)));
    }
    for (int i = 0; i < n; ++i) {
      worst = std::max(worst, std::fabs(gpu.force[n * k + i] - cpu.force[i]) / scale_f);
      for (int j = 0; j < n; ++j) {
        worst = std::max(worst, std::fabs(gpu.stiffness[n * n * k + i * n + j] - cpu.stiffness(i, j)) / scale_k);
        worst = std::max(worst, std::fabs(gpu.damping[n * n * k + i * n + j] - cpu.damping(i, j)) /
                                    std::max(1e-300, std::fabs(cpu.damping(i, j)) + 1e-12 * scale_k));
      }
    }
  }
  INFO("largest relative CPU-GPU difference: " << worst);
  CHECK(worst < 1e-12);
#else
  WARN("[gpu] test skipped: this build has no CUDA backend (configure with CATENARY_CUDA=ON)");
#endif
}

}  // namespace

TEST_CASE("CUDA element kernel equals the CPU element math", "[gpu]") {
  SECTION("planar beam") { compare_with_cpu<2>(); }
  SECTION("spatial cable") { compare_with_cpu<3>(); }
}
