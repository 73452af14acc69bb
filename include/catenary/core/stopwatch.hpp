#pragma once
// Wall-clock lap timer for the backends' stage timings.
#include <chrono>

namespace catenary {

class Stopwatch {
 public:
  // Seconds since construction or the previous lap.
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    return dt;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace catenary
