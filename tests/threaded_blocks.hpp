#pragma once
// Thread-block kernels (f.run(block, thread, threads, shared, barrier), memory_space.cuh's
// run_blocks) run as a device runs them: a host thread for each of a block's F::kThreads threads,
// meeting at a barrier wherever the kernel calls __syncthreads(). Against the one-thread run that
// the CUDA backend's host build uses, a barrier missing between a phase that writes shared memory
// and one that reads it shows as a difference (and to ThreadSanitizer as a race).
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace catenary::testing {

// A reusable barrier of `count` threads (std::barrier is C++20; the project is C++17).
class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const long generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      released_.notify_all();
      return;
    }
    released_.wait(lock, [&] { return generation_ != generation; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  int count_, arrived_ = 0;
  long generation_ = 0;
};

struct ThreadBarrier {
  Barrier* sync;
  void operator()() const { sync->arrive_and_wait(); }
};
struct NoBarrier {
  void operator()() const {}
};

// f.run for each of `blocks` thread blocks: a host thread for each of its threads, or (threaded =
// false) one thread for all, each block's shared memory filled with NaN first.
template <class F>
void run_blocks_on_host(const F& f, int blocks, bool threaded) {
  for (int block = 0; block < blocks; ++block) {
    std::vector<double> shared(F::kSharedValues, std::numeric_limits<double>::quiet_NaN());
    if (!threaded) {
      f.run(block, 0, 1, shared.data(), NoBarrier{});
      continue;
    }
    Barrier sync(F::kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < F::kThreads; ++t)
      threads.emplace_back([&, t] { f.run(block, t, F::kThreads, shared.data(), ThreadBarrier{&sync}); });
    for (std::thread& thread : threads) thread.join();
  }
}

}  // namespace catenary::testing
