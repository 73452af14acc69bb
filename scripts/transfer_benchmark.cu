// How fast a vector of a 1,000,000-element model (6,000,000 doubles, 48 MB) moves between the
// device and the host, each way the backend could move it: an output frame downloads four such
// vectors (q, v, lambda, M v; lambda's rows are few), the initial state uploads them. This
// separates what such a trip costs: the link, the host's copies, and the page faults of a freshly
// allocated host array (on an H200's host the largest part, ten times a copy into pageable memory
// already touched; docs/performance.md, "Output frames"). Medians of 7 runs, ms and GB/s.
//
//   catenary_transfer_benchmark [entries]     (default 6000000)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "../kernels/pinned_staging.cuh"
#include "catenary/core/parallel_copy.hpp"

namespace {

using catenary::cuda::check_cuda;

double median_ms(const std::function<void()>& run) {
  std::vector<double> ms;
  for (int r = 0; r < 7; ++r) {
    const auto start = std::chrono::steady_clock::now();
    run();
    check_cuda(cudaDeviceSynchronize(), "a transfer");
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void report(const char* what, size_t bytes, const std::function<void()>& run) {
  const double ms = median_ms(run);
  std::printf("%-58s %9.3f ms %8.2f GB/s\n", what, ms, bytes / ms * 1e-6);
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 6000000, bytes = n * sizeof(double);
  double* device = nullptr;
  check_cuda(cudaMalloc(&device, bytes), "cudaMalloc");
  check_cuda(cudaMemset(device, 0, bytes), "cudaMemset");
  std::vector<double> pageable(n, 1.0), other(n, 2.0);
  double* pinned = nullptr;
  check_cuda(cudaMallocHost(reinterpret_cast<void**>(&pinned), bytes), "cudaMallocHost");
  std::fill(pinned, pinned + n, 3.0);
  catenary::cuda::PinnedStaging staging;
  std::printf("# %zu doubles (%.1f MB); medians of 7\n", n, bytes * 1e-6);

  report("to host: cudaMemcpy into pageable memory, pages touched", bytes,
         [&] { check_cuda(cudaMemcpy(pageable.data(), device, bytes, cudaMemcpyDeviceToHost), "D2H"); });
  report("to host: cudaMemcpy into a fresh allocation (page faults)", bytes, [&] {
    std::vector<double> fresh;
    fresh.reserve(n);  // allocated, not touched
    check_cuda(cudaMemcpy(fresh.data(), device, bytes, cudaMemcpyDeviceToHost), "D2H");
  });
  report("to host: cudaMemcpy into pinned memory (cudaMallocHost)", bytes,
         [&] { check_cuda(cudaMemcpy(pinned, device, bytes, cudaMemcpyDeviceToHost), "D2H"); });
  report("to host: pinned staging (two 8 MB buffers, threads copy on)", bytes,
         [&] { staging.to_host(device, pageable.data(), n); });
  report("host: copy_in_parallel, pinned to pageable", bytes,
         [&] { catenary::copy_in_parallel(pinned, pageable.data(), n); });
  report("host: std::copy on one thread, pageable to pageable", bytes,
         [&] { std::copy(other.begin(), other.end(), pageable.begin()); });
  report("to device: cudaMemcpy from pageable memory", bytes,
         [&] { check_cuda(cudaMemcpy(device, pageable.data(), bytes, cudaMemcpyHostToDevice), "H2D"); });
  report("to device: cudaMemcpy from pinned memory", bytes,
         [&] { check_cuda(cudaMemcpy(device, pinned, bytes, cudaMemcpyHostToDevice), "H2D"); });
  report("to device: pinned staging", bytes, [&] { staging.to_device(pageable.data(), device, n); });
  // Registering the pageable vector pins it in place: what a backend holding its host vectors
  // registered once would get, and what the registration costs.
  const auto start = std::chrono::steady_clock::now();
  check_cuda(cudaHostRegister(pageable.data(), bytes, cudaHostRegisterDefault), "cudaHostRegister");
  std::printf("%-58s %9.3f ms\n", "cudaHostRegister of the pageable vector (once)",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  report("to host: cudaMemcpy into the registered vector", bytes,
         [&] { check_cuda(cudaMemcpy(pageable.data(), device, bytes, cudaMemcpyDeviceToHost), "D2H"); });
  check_cuda(cudaHostUnregister(pageable.data()), "cudaHostUnregister");
  cudaFreeHost(pinned);
  cudaFree(device);
  return 0;
}
