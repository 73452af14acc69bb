#pragma once
// Element-wise arithmetic over backend vectors, written once for the CPU backend (an OpenMP loop)
// and the CUDA backend (a Thrust loop, on the device or the host); each backend supplies the raw
// storage of its vectors.
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "catenary/assembly/backend.hpp"
#include "catenary/core/host_device.hpp"

namespace catenary {

// y_i = sum of a_k x_k,i over the count terms (Backend::combine).
struct LinearCombination {
  int count;
  double a[Backend::kMaxCombined];
  const double* x[Backend::kMaxCombined];
  double* y;
  // A loop over the most terms (constant indices, unrolled by the compiler): a loop to count
  // indexes the functor's arrays at run time, which on a device copies the functor to each
  // thread's local memory (128 bytes stored and reloaded per entry; 168 us for 6 M entries on an
  // H100, two to three times the bandwidth bound's time). The sum's order is the same.
  CATENARY_HD void operator()(int i) const {
    double sum = 0.0;
    for (int k = 0; k < Backend::kMaxCombined; ++k)
      if (k < count) sum += a[k] * x[k][i];
    y[i] = sum;
  }
};

// The combination of these terms into the storage y; data(vector) gives a term's storage. Throws
// std::invalid_argument for no terms or more than Backend::kMaxCombined.
template <class Data>
LinearCombination linear_combination(std::initializer_list<Scaled> terms, double* y, Data data) {
  if (terms.size() == 0 || terms.size() > Backend::kMaxCombined)
    throw std::invalid_argument("combine: 1 to " + std::to_string(Backend::kMaxCombined) + " terms");
  LinearCombination f{0, {}, {}, y};
  for (const Scaled& t : terms) f.a[f.count] = t.a, f.x[f.count++] = data(*t.x);
  return f;
}

// Throws std::invalid_argument when max_abs_each is asked for more than Backend::kMaxMaxima vectors.
inline void check_maxima_count(size_t count) {
  if (count > Backend::kMaxMaxima)
    throw std::invalid_argument("max_abs_each: at most " + std::to_string(Backend::kMaxMaxima) + " vectors");
}

}  // namespace catenary
