#pragma once
// Element-wise arithmetic over backend vectors, written once for the CPU backend (an OpenMP loop)
// and the CUDA backend (a Thrust loop, on the device or the host); each backend supplies the raw
// storage of its vectors.
#include <cmath>
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

// Entry i of a Newton update (Backend::add_update): x_i += dx_i, y_k,i += a_k dx_i, and what
// the entry adds to the norms, reduced by LargerUpdate. It writes as it is evaluated: a reduction
// over it (Thrust's transform_reduce, CUB's on a device) evaluates each entry once.
struct NewtonUpdate {
  int count;
  double a[Backend::kMaxIncrements];
  double* y[Backend::kMaxIncrements];
  const double* dx;
  double* x;
  const double* scale;  // the coordinate scales of weighted_entry
  double tol;
  // Constant indices k, as in LinearCombination.
  CATENARY_HD UpdateNorms operator()(int i) const {
    const double d = dx[i], updated = x[i] + d;
    x[i] = updated;
    for (int k = 0; k < Backend::kMaxIncrements; ++k)
      if (k < count) y[k][i] += a[k] * d;
    const double magnitude = fabs(updated);
    return {weighted_entry(d, updated, scale[i], tol), i, magnitude < INFINITY ? magnitude : INFINITY};
  }
};

// The larger weighted entry (the first index on ties) and the larger |x|.
struct LargerUpdate {
  CATENARY_HD UpdateNorms operator()(const UpdateNorms& a, const UpdateNorms& b) const {
    UpdateNorms out = a.weighted != b.weighted ? (a.weighted > b.weighted ? a : b) : (a.worst < b.worst ? a : b);
    out.max_abs = a.max_abs > b.max_abs ? a.max_abs : b.max_abs;
    return out;
  }
};

// The update dx of the storage x (data: a vector's storage). Throws std::invalid_argument for more
// than Backend::kMaxIncrements vectors that follow.
template <class Data>
NewtonUpdate newton_update(const Vector& dx, Vector& x, std::initializer_list<Increment> also, const double* scale,
                           double tol, Data data) {
  if (also.size() > Backend::kMaxIncrements)
    throw std::invalid_argument("add_update: at most " + std::to_string(Backend::kMaxIncrements) + " vectors follow");
  NewtonUpdate f{0, {}, {}, data(dx), data(x), scale, tol};
  for (const Increment& inc : also) f.a[f.count] = inc.a, f.y[f.count++] = data(*inc.y);
  return f;
}

// Throws std::invalid_argument when max_abs_each is asked for more than Backend::kMaxMaxima vectors.
inline void check_maxima_count(size_t count) {
  if (count > Backend::kMaxMaxima)
    throw std::invalid_argument("max_abs_each: at most " + std::to_string(Backend::kMaxMaxima) + " vectors");
}

}  // namespace catenary
