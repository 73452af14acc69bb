#pragma once
// A fixed sequence of small dependent launches, recorded once as a CUDA graph and replayed: the
// block solvers' factorization and solve are a few launches per cyclic-reduction level (17 levels
// at 100,000 elements), and each one queued on its own costs the host a Thrust dispatch and the
// device a gap between kernels. On an H100 (docs/performance.md, Linear solvers) a
// 100,000-element full-Newton step spent about 0.8 ms of its factorizations' 1.56 ms and 0.4 of
// its solves' 0.65 ms in a part that does not grow with the elements (against 1,000,000): the
// levels' launches and their latency. A graph launch is one host call, and its kernels follow each
// other without the host.
//
// LaunchGraphs<Space>::run(key, launches) calls launches() with its loops on policy(): on the host
// directly; on the device, the first call with a key records them into a graph (nothing runs while
// recording) and every call replays that graph. The recorded kernels keep the arguments they had,
// so a key must name every pointer or size that can change between calls, and forget() must drop
// the graphs whenever an array they use is reallocated. A recording that fails (a loop that the
// stream capture refuses) turns graphs off for good and runs the launches as they are.
//
// The device's launches go to a stream of their own, created blocking: it waits for the work
// queued before on the default stream, where the rest of the backend runs, and the default
// stream waits for it, so the order of all work stays the program's order. That implicit
// synchronization is the legacy default stream's: a per-thread default stream would drop it (the
// solver would read matrix values before their assembly ends), hence the #error below.
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "catenary/core/errors.hpp"
#include "memory_space.cuh"

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#error \
    "the block solvers' stream is ordered against the legacy default stream (see above): build without --default-stream per-thread"
#endif

namespace catenary::cuda {

// What a recorded sequence depends on besides the arrays its owner keeps (pointers passed in,
// counts).
struct LaunchKey {
  const void *first = nullptr, *second = nullptr;
  long count = 0, stride = 0;
  int variant = 0;  // which of its owner's sequences over the same arrays (the solves from float factors)
  const void *third = nullptr, *fourth = nullptr;  // a solve's vectors beyond two (split vectors)
  bool operator==(const LaunchKey& o) const {
    return first == o.first && second == o.second && count == o.count && stride == o.stride &&
           variant == o.variant && third == o.third && fourth == o.fourth;
  }
};

template <class Space>
class LaunchGraphs {
 public:
  static auto policy() { return Space::policy(); }
  static cudaStream_t stream() { return nullptr; }  // unused on the host
  template <class Launches>
  void run(const LaunchKey&, Launches&& launches) {
    launches();
  }
  void forget() {}
};

template <>
class LaunchGraphs<DeviceSpace> {
 public:
  LaunchGraphs() {
    check_cuda(cudaStreamCreate(&stream_), "creating the block solver's stream");
  }
  LaunchGraphs(const LaunchGraphs&) = delete;
  LaunchGraphs& operator=(const LaunchGraphs&) = delete;
  ~LaunchGraphs() {
    forget();
    cudaStreamDestroy(stream_);
  }

  auto policy() const { return thrust::cuda::par_nosync.on(stream_); }
  cudaStream_t stream() const { return stream_; }  // for launches of one's own

  template <class Launches>
  void run(const LaunchKey& key, Launches&& launches) {
    if (!enabled_) return launches();
    for (const auto& [recorded, graph] : graphs_)
      if (recorded == key) return check_cuda(cudaGraphLaunch(graph, stream_), "launching a recorded graph");
    if (graphs_.size() >= kMostGraphs) return launches();
    std::string why;
    const cudaGraphExec_t graph = record(launches, why);
    if (!graph) {  // said once: a device run would otherwise just show no gain
      std::fprintf(stderr, "catenary: note: the block solver's launches run without CUDA graphs: %s\n", why.c_str());
      enabled_ = false;
      return launches();
    }
    graphs_.emplace_back(key, graph);
    check_cuda(cudaGraphLaunch(graph, stream_), "launching a recorded graph");
  }

  void forget() {
    for (const auto& recorded : graphs_) cudaGraphExecDestroy(recorded.second);
    graphs_.clear();
  }

 private:
  // A block solver records one factorization and a few kinds of solve (a bordered solver's passes
  // over 1 to 8 right-hand sides); more keys than this are run unrecorded.
  static constexpr size_t kMostGraphs = 16;

  // The launches as an executable graph, or null where the capture or its instantiation failed,
  // with why (the error a failed capture leaves is cleared: it is not sticky).
  template <class Launches>
  cudaGraphExec_t record(Launches& launches, std::string& why) {
    if (const cudaError_t begun = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
        begun != cudaSuccess) {
      why = std::string("the capture did not begin: ") + cudaGetErrorString(begun);
      cudaGetLastError();
      return nullptr;
    }
    try {
      launches();
    } catch (const std::exception& e) {
      why = std::string("a launch failed while captured: ") + e.what();
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    if (why.empty() && ended != cudaSuccess) why = std::string("the capture failed: ") + cudaGetErrorString(ended);
    if (why.empty() && !graph) why = "the capture gave no graph";
    cudaGraphExec_t exec = nullptr;
    if (why.empty())
      if (const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0); made != cudaSuccess)
        why = std::string("its instantiation failed: ") + cudaGetErrorString(made);
    if (graph) cudaGraphDestroy(graph);
    if (why.empty()) return exec;
    cudaGetLastError();
    return nullptr;
  }

  cudaStream_t stream_ = nullptr;
  bool enabled_ = true;  // false once a recording failed
  std::vector<std::pair<LaunchKey, cudaGraphExec_t>> graphs_;
};

}  // namespace catenary::cuda
