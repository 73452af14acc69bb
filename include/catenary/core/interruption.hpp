#pragma once
// A request to stop a run between two steps, made by the command line's SIGINT and SIGTERM
// handlers or by a program that runs the library. The time steps, the static load steps and a
// sweep's batches check it; a run it stops keeps its output and ends with status "interrupted".
#include <atomic>
#include <stdexcept>

namespace catenary {

class Interruption {
 public:
  // A lock-free atomic store, so that a signal handler may call it; signal > 0.
  void request(int signal) noexcept { signal_.store(signal, std::memory_order_relaxed); }
  // The signal that asked to stop (0: none).
  int signal() const noexcept { return signal_.load(std::memory_order_relaxed); }

 private:
  static_assert(std::atomic<int>::is_always_lock_free, "a signal handler stores it");
  std::atomic<int> signal_{0};
};

// Whether `interruption` (null: a run nothing can interrupt) asks to stop.
inline bool stop_requested(const Interruption* interruption) {
  return interruption && interruption->signal() != 0;
}

// Thrown by an analysis that stopped between two steps at its Interruption's request; what() says
// where it stopped.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace catenary
