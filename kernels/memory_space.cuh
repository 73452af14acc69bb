#pragma once
// Where the CUDA backend's arrays live and which Thrust system runs its loops. The backend is
// written once over a MemorySpace: DeviceSpace is the product (GPU memory, CUDA kernels);
// HostSpace runs the very same code on the CPU so that tests can check it without a GPU.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/cuda/execution_policy.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <limits>
#include <cub/util_allocator.cuh>
#include <memory>
#include <string>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/core/host_device.hpp"

namespace catenary::cuda {

// A failed CUDA call as a SimulationError with the runtime's reason. After a kernel fault every
// later call fails with the same sticky error: reporting it at once keeps the first cause visible
// (a zero from cudaMemGetInfo would otherwise read as "no memory free").
inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw SimulationError(std::string("CUDA: ") + what + " failed: " + cudaGetErrorString(status));
}

// The temporary storage of Thrust's device algorithms. By default a reduction takes it with
// cudaMalloc and gives it back with cudaFree, which waits for the whole device, at every call: each
// norm and row-sum maximum of a Newton iteration paid both. CUB's caching allocator keeps freed
// blocks for the next call (up to 6 MB of them; larger ones, a pattern's one-off sort, are freed).
// It outlives the backends and is never cleaned up: the runtime may be gone when statics end.
class TemporaryStorage {
 public:
  using value_type = char;
  char* allocate(std::ptrdiff_t bytes) {
    void* p = nullptr;
    check_cuda(cache().DeviceAllocate(&p, static_cast<size_t>(bytes)), "allocating temporary storage");
    return static_cast<char*>(p);
  }
  void deallocate(char* p, size_t) { cache().DeviceFree(p); }

 private:
  static cub::CachingDeviceAllocator& cache() {
    static cub::CachingDeviceAllocator blocks(/*skip_cleanup=*/true);
    return blocks;
  }
};

// Device loops are queued without a host wait after each (par_nosync): the backend's kernels all
// run in order on the default stream, and every host read (a copy back, a reduction's value, a
// stage's timing) synchronizes. A block solver's level loop thus costs one launch per kernel,
// not one launch and one wait.
struct DeviceSpace {
  template <class T>
  using Array = thrust::device_vector<T>;
  static auto policy() {
    static TemporaryStorage storage;
    return thrust::cuda::par_nosync(storage);
  }
  static constexpr bool on_device = true;
};

// Bytes HostSpace's arrays hold now and at most since the last reset: the very allocations the
// device backend makes (the same code), so that tests can hold the device-memory estimate
// against them without a GPU (host_array_bytes in cuda_backend.hpp).
struct HostArrayBytes {
  static std::atomic<size_t> in_use, peak;
};

template <class T>
struct CountedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = CountedAllocator<U>;
  };
  CountedAllocator() = default;
  template <class U>
  CountedAllocator(const CountedAllocator<U>&) {}
  T* allocate(size_t n) {
    const size_t now = HostArrayBytes::in_use += n * sizeof(T);
    for (size_t seen = HostArrayBytes::peak; now > seen && !HostArrayBytes::peak.compare_exchange_weak(seen, now);) {
    }
    return std::allocator<T>::allocate(n);
  }
  void deallocate(T* p, size_t n) {
    HostArrayBytes::in_use -= n * sizeof(T);
    std::allocator<T>::deallocate(p, n);
  }
};

struct HostSpace {
  template <class T>
  using Array = thrust::host_vector<T, CountedAllocator<T>>;
  static auto policy() { return thrust::host; }
  static constexpr bool on_device = false;
};

template <class Space, class T>
using ArrayOf = typename Space::template Array<T>;

// n values at p (memory of Space) copied to the host.
template <class Space, class T>
std::vector<T> to_host(const T* p, int n) {
  std::vector<T> out(n);
  if constexpr (Space::on_device)
    thrust::copy(thrust::device_pointer_cast(p), thrust::device_pointer_cast(p) + n, out.begin());
  else
    std::copy(p, p + n, out.begin());
  return out;
}

// values copied from the host to n = values.size() entries at p (memory of Space).
template <class Space, class T>
void from_host(const std::vector<T>& values, T* p) {
  if constexpr (Space::on_device)
    thrust::copy(values.begin(), values.end(), thrust::device_pointer_cast(p));
  else
    std::copy(values.begin(), values.end(), p);
}

// f(0) ... f(n - 1), one item a thread in thread blocks of Threads, on `stream`; with MinBlocks > 0
// ptxas must fit that many of them to an SM (at most 65536 / (Threads MinBlocks) registers a
// thread, the rest spilled). MinBlocks 0 sets no such bound; 1 is not the same: ptxas sm_90 then
// gave the chain solves 124 to 194 registers instead of 64 to 128. Why not Thrust's for_each:
// - it leaves ptxas free, which gives a loop body with many live values one block an SM; a body
//   whose gained occupancy outweighs its spills takes MinBlocks > 1 (the 3D forces pass, as
//   measured by scripts/element_pass_benchmark.cu on a device);
// - CUB's DeviceFor (CUDA 13) gives a thread block 256 threads of 2 items each, one after the
//   other: for loops of few items or long ones (a block solver's steps: a thread per chain, or
//   per member of a late cyclic-reduction level), 10,000 items make 20 thread blocks, 20 of an
//   H100's 132 SMs at work, each thread doing two items in series.
template <int Threads, int MinBlocks, class F>
__global__ void __launch_bounds__(Threads, MinBlocks) item_loop(F f, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) f(t);
}

template <class Space, int Threads, int MinBlocks = 0, class F>
void for_each_item(int n, const F& f, cudaStream_t stream = nullptr) {
  if constexpr (Space::on_device) {
    if (n <= 0) return;
    item_loop<Threads, MinBlocks><<<(n + Threads - 1) / Threads, Threads, 0, stream>>>(f, n);
    check_cuda(cudaPeekAtLastError(), "kernel launch");  // a launch error; faults surface at the next wait
  } else {
    thrust::for_each(Space::policy(), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), f);
  }
}

// A barrier between the steps of a one_block_loop: __syncthreads() on the device, nothing on the
// host, where one thread runs each step's items in order.
struct BlockBarrier {
  CATENARY_HD void operator()() const {
#ifdef __CUDA_ARCH__
    __syncthreads();
#endif
  }
};

template <int Threads, class F>
__global__ void __launch_bounds__(Threads) one_block_loop(F f) {
  f.run(static_cast<int>(threadIdx.x), Threads);
}

// f.run(thread, threads) by one thread block of Threads on `stream`, its steps separated by
// BlockBarrier: for steps of a few items each that must follow one another (a block solver's last
// levels), one launch instead of a launch a step, whose latency would be their cost. On the host,
// one thread runs it.
template <class Space, int Threads, class F>
void run_in_one_block(const F& f, cudaStream_t stream = nullptr) {
  if constexpr (Space::on_device) {
    one_block_loop<Threads><<<1, Threads, 0, stream>>>(f);
    check_cuda(cudaPeekAtLastError(), "kernel launch");
  } else {
    f.run(0, 1);
  }
}

// f.run(block, thread, Threads, shared, BlockBarrier{}) for block < blocks, by thread blocks of
// Threads with SharedValues doubles of shared memory each: for work whose steps a block's threads
// share, handing values to each other through `shared` (a group of chains' solve). On the host
// one thread runs each block's steps in order (f.run(block, 0, 1, ...)), its shared memory
// filled with NaN first, so that a value read before it is written shows.
// MinBlocks as for item_loop (0: no bound).
template <int Threads, int SharedValues, int MinBlocks, class F>
__global__ void __launch_bounds__(Threads, MinBlocks) shared_block_loop(F f) {
  __shared__ double shared[SharedValues];
  f.run(static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x), Threads, shared, BlockBarrier{});
}

template <class Space, int Threads, int SharedValues, int MinBlocks = 0, class F>
void run_blocks(int blocks, const F& f, cudaStream_t stream = nullptr) {
  if constexpr (Space::on_device) {
    if (blocks <= 0) return;
    shared_block_loop<Threads, SharedValues, MinBlocks><<<blocks, Threads, 0, stream>>>(f);
    check_cuda(cudaPeekAtLastError(), "kernel launch");
  } else {
    std::vector<double> shared(SharedValues);
    for (int block = 0; block < blocks; ++block) {
      std::fill(shared.begin(), shared.end(), std::numeric_limits<double>::quiet_NaN());
      f.run(block, 0, 1, shared.data(), BlockBarrier{});
    }
  }
}

// f.evaluate(t, rows) for t < n, where thread t writes R values that belong at out + R t, each
// exactly once. Written in place, a warp's lanes store R doubles apart, each store a sector per
// lane of which it uses a quarter: written so, the Jacobian row pass's matrices (R = 36) take 62 %
// excess sectors and 69 % of the L2's throughput on an H100 (ncu). Here each
// thread writes its values to shared memory (R + 1 apart: lanes in distinct banks), and the
// block then copies its 256 R values out as one contiguous run, neighbouring threads on
// neighbouring doubles. 256 (R + 1) doubles of shared memory a block: 74 kB at R = 36, which the
// pass's 220 registers a thread (one block an SM) leave room for. 1.7 times faster than in place
// on an H100 (docs/performance.md, Element passes).
template <int R, class F>
__global__ void __launch_bounds__(256) staged_rows_loop(F f, int n, double* out) {
  extern __shared__ double stage[];
  const int first = blockIdx.x * blockDim.x, t = first + threadIdx.x;
  if (t < n) f.evaluate(t, stage + threadIdx.x * (R + 1));
  __syncthreads();
  const int values = min(static_cast<int>(blockDim.x), n - first) * R;
  double* block_out = out + static_cast<size_t>(first) * R;
  for (int i = threadIdx.x; i < values; i += blockDim.x) block_out[i] = stage[(i / R) * (R + 1) + i % R];
}

template <class Space, int R, class F>
void for_each_staged(int n, const F& f, double* out) {
  if constexpr (Space::on_device) {
    if (n <= 0) return;
    constexpr int bytes = 256 * (R + 1) * sizeof(double);
    static const cudaError_t allowed =  // once per kernel: above 48 kB it must be asked for
        cudaFuncSetAttribute(staged_rows_loop<R, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    check_cuda(allowed, "allowing the staged loop its shared memory");
    staged_rows_loop<R><<<(n + 255) / 256, 256, bytes>>>(f, n, out);
    check_cuda(cudaPeekAtLastError(), "kernel launch");
  } else {
    thrust::for_each(Space::policy(), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), f);
  }
}

template <class T, class A>
T* raw(A& array) {
  return thrust::raw_pointer_cast(array.data());
}
template <class T, class A>
const T* raw(const A& array) {
  return thrust::raw_pointer_cast(array.data());
}

}  // namespace catenary::cuda
