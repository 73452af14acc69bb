#pragma once
// Progress lines on stderr for runs longer than a few seconds.
#include <chrono>
#include <cstdio>

namespace catenary {

class Progress {
 public:
  explicit Progress(const char* what) : what_(what), start_(clock::now()), last_(start_) {}
  double elapsed() const { return std::chrono::duration<double>(clock::now() - start_).count(); }
  // fraction in [0, 1]; prints at most every 2 s, starting after 3 s.
  void update(double fraction, double t, long steps) {
    const auto now = clock::now();
    if (std::chrono::duration<double>(now - start_).count() < 3.0) return;
    if (std::chrono::duration<double>(now - last_).count() < 2.0) return;
    last_ = now;
    std::fprintf(stderr, "catenary: %s %5.1f %%  t = %.6g  steps = %ld  wall = %.1f s\n", what_,
                 100.0 * fraction, t, steps, elapsed());
  }

 private:
  using clock = std::chrono::steady_clock;
  const char* what_;
  clock::time_point start_, last_;
};

}  // namespace catenary
