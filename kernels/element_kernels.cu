// CUDA kernels over the shared element math: one thread per element calls the same
// evaluate_element<D> the CPU backend calls.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "catenary/kernels/element_kernels.hpp"

namespace catenary::cuda {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(size_t n) { check(cudaMalloc(&ptr, sizeof(T) * (n ? n : 1)), "cudaMalloc"); }
  DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    check(cudaMemcpy(ptr, host.data(), sizeof(T) * host.size(), cudaMemcpyHostToDevice), "copy to device");
  }
  ~DeviceArray() { cudaFree(ptr); }
  void copy_to(std::vector<T>& host, size_t n) const {
    host.resize(n);
    check(cudaMemcpy(host.data(), ptr, sizeof(T) * n, cudaMemcpyDeviceToHost), "copy to host");
  }
};

template <int D>
__global__ void evaluate_elements_kernel(int count, const ElementProperties* properties, const double* reference,
                                         const double* e, const double* edot, double* force, double* stiffness,
                                         double* damping, double* energy) {
  constexpr int n = 4 * D;
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  ElementEvaluation<D> out;
  evaluate_element<D>(properties[k], reference + n * k, e + n * k, edot + n * k, true, out);
  for (int i = 0; i < n; ++i) {
    force[n * k + i] = out.force[i];
    for (int j = 0; j < n; ++j) {
      stiffness[(size_t)n * n * k + i * n + j] = out.stiffness(i, j);
      damping[(size_t)n * n * k + i * n + j] = out.damping(i, j);
    }
  }
  energy[k] = out.energy;
}

template <int D>
ElementBatchResult run(const std::vector<ElementProperties>& properties, const std::vector<double>& reference,
                       const std::vector<double>& e, const std::vector<double>& edot) {
  constexpr int n = 4 * D;
  const int count = static_cast<int>(properties.size());
  if (reference.size() != size_t(n) * count || e.size() != reference.size() || edot.size() != reference.size())
    throw std::invalid_argument("evaluate_elements: array sizes do not match the element count");
  DeviceArray<ElementProperties> d_props(properties);
  DeviceArray<double> d_ref(reference), d_e(e), d_edot(edot);
  DeviceArray<double> d_force(size_t(n) * count), d_K(size_t(n) * n * count), d_D(size_t(n) * n * count), d_U(count);
  const int threads = 128, blocks = (count + threads - 1) / threads;
  if (count > 0)
    evaluate_elements_kernel<D><<<blocks, threads>>>(count, d_props.ptr, d_ref.ptr, d_e.ptr, d_edot.ptr, d_force.ptr,
                                                    d_K.ptr, d_D.ptr, d_U.ptr);
  check(cudaGetLastError(), "element kernel launch");
  check(cudaDeviceSynchronize(), "element kernel");
  ElementBatchResult r;
  d_force.copy_to(r.force, size_t(n) * count);
  d_K.copy_to(r.stiffness, size_t(n) * n * count);
  d_D.copy_to(r.damping, size_t(n) * n * count);
  d_U.copy_to(r.energy, count);
  return r;
}

}  // namespace

bool device_available(std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    why = std::string("no usable CUDA driver or device: ") + cudaGetErrorString(status);
    return false;
  }
  if (count == 0) {
    why = "no CUDA device present";
    return false;
  }
  return true;
}

ElementBatchResult evaluate_elements(int dimension, const std::vector<ElementProperties>& properties,
                                     const std::vector<double>& reference, const std::vector<double>& e,
                                     const std::vector<double>& edot) {
  if (dimension == 3) return run<3>(properties, reference, e, edot);
  if (dimension == 2) return run<2>(properties, reference, e, edot);
  throw std::invalid_argument("evaluate_elements: dimension must be 2 or 3");
}

}  // namespace catenary::cuda
