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

// Entry i of each output of a Combinations (Backend::combine), on raw storage.
struct LinearCombinations {
  static constexpr int kIn = Combinations::kMaxInputs, kOut = Combinations::kMaxOutputs;
  int inputs, outputs;
  const double* x[kIn];
  double* y[kOut];
  double a[kOut][kIn];
  // Loops over the most inputs and outputs (constant indices, unrolled by the compiler): loops to
  // the counts index the functor's arrays at run time, which on a device copies the functor to
  // each thread's local memory (the one-output functor before it: 128 bytes stored and reloaded
  // per entry, 168 us for 6 M entries on an H100, two to three times the bandwidth bound's time;
  // ptxas sm_90 gives this one 32 registers and no stack). All inputs are read before any output
  // is written, so that an output may be an input.
  CATENARY_HD void operator()(int i) const {
    double xi[kIn];
    for (int k = 0; k < kIn; ++k) xi[k] = k < inputs ? x[k][i] : 0.0;
    for (int j = 0; j < kOut; ++j) {
      if (j >= outputs) break;
      double sum = 0.0;
      for (int k = 0; k < kIn; ++k)
        if (k < inputs) sum += a[j][k] * xi[k];
      y[j][i] = sum;
    }
  }
};

// c on raw storage (data: a vector's storage). Throws std::invalid_argument for no inputs or
// outputs, or vectors of different sizes.
template <class Data>
LinearCombinations linear_combinations(const Combinations& c, Data data) {
  if (c.inputs == 0 || c.outputs == 0) throw std::invalid_argument("combine: no inputs or no outputs");
  const int n = c.y[0]->size();
  for (int k = 0; k < c.inputs; ++k)
    if (c.x[k]->size() != n) throw std::invalid_argument("combine: vectors of different sizes");
  for (int j = 0; j < c.outputs; ++j)
    if (c.y[j]->size() != n) throw std::invalid_argument("combine: vectors of different sizes");
  LinearCombinations f{c.inputs, c.outputs, {}, {}, {}};
  for (int k = 0; k < c.inputs; ++k) f.x[k] = data(*c.x[k]);
  for (int j = 0; j < c.outputs; ++j) {
    f.y[j] = data(*c.y[j]);
    for (int k = 0; k < c.inputs; ++k) f.a[j][k] = c.a[j][k];
  }
  return f;
}

// Weighted entry with its index (weighted_norm), reduced to the largest (the first such index on
// ties).
struct WeightedEntry {
  double value;
  int index;
};
// With minus, the entry of factor (dx - minus) (Backend::weighted_difference_norm).
// The coordinate scales are float in both backends: they only weigh the tolerance, and each
// update and error norm reads them (a float vector is half a double one's bytes).
struct WeightedEntryAt {
  const double *dx, *x;
  const float* scale;
  double tol;
  const double* minus = nullptr;
  double factor = 1.0;
  CATENARY_HD WeightedEntry operator()(int i) const {
    const double d = minus ? factor * (dx[i] - minus[i]) : dx[i];
    return {weighted_entry(d, x[i], scale[i], tol), i};
  }
};
struct LargerEntry {
  CATENARY_HD WeightedEntry operator()(const WeightedEntry& a, const WeightedEntry& b) const {
    if (a.value != b.value) return a.value > b.value ? a : b;
    return a.index < b.index ? a : b;
  }
};

// The largest weighted entry of n on the host, {0, 0} where all are 0.
inline WeightedEntry largest_weighted_entry(const WeightedEntryAt& at, int n) {
  WeightedEntry worst{0.0, 0};
  for (int i = 0; i < n; ++i) worst = LargerEntry()(worst, at(i));
  return worst;
}

// Entry i of a Newton update (Backend::add_update): x_i += dx_i, y_k,i += a_k dx_i, and what
// the entry adds to the norms, reduced by LargerUpdate. It writes as it is evaluated: a reduction
// over it (Thrust's transform_reduce, CUB's on a device) evaluates each entry once. Thrust does not
// promise that; CUB's reduction agent in CCCL 3.0 (cub/agent/agent_reduce.cuh: full tiles loaded
// and transformed once, partial tiles through a guarded loop) does it, and the [gpu] agreement test
// of add_update would catch an entry updated twice after a CCCL upgrade.
struct NewtonUpdate {
  int count;
  double a[Backend::kMaxIncrements];
  double* y[Backend::kMaxIncrements];
  const double* dx;
  double* x;
  const float* scale;  // the coordinate scales of weighted_entry
  double tol;
  // Constant indices k, as in LinearCombinations.
  CATENARY_HD UpdateNorms operator()(int i) const {
    const double d = dx[i], updated = x[i] + d;
    x[i] = updated;
    for (int k = 0; k < Backend::kMaxIncrements; ++k)
      if (k < count) y[k][i] += a[k] * d;
    const double magnitude = fabs(updated);
    return {weighted_entry(d, updated, scale[i], tol), i, magnitude < INFINITY ? magnitude : INFINITY};
  }
};

// The larger weighted entry (LargerEntry) and the larger |x|.
struct LargerUpdate {
  CATENARY_HD UpdateNorms operator()(const UpdateNorms& a, const UpdateNorms& b) const {
    const WeightedEntry w = LargerEntry()({a.weighted, a.worst}, {b.weighted, b.worst});
    return {w.value, w.index, a.max_abs > b.max_abs ? a.max_abs : b.max_abs};
  }
};

// The update dx of the storage x (data: a vector's storage). Throws std::invalid_argument for more
// than Backend::kMaxIncrements vectors that follow.
template <class Data>
NewtonUpdate newton_update(const Vector& dx, Vector& x, std::initializer_list<Increment> also, const float* scale,
                           double tol, Data data) {
  if (also.size() > Backend::kMaxIncrements)
    throw std::invalid_argument("add_update: at most " + std::to_string(Backend::kMaxIncrements) + " vectors follow");
  NewtonUpdate f{0, {}, {}, data(dx), data(x), scale, tol};
  for (const Increment& inc : also) f.a[f.count] = inc.a, f.y[f.count++] = data(*inc.y);
  return f;
}

// y[row[i]] += a sum_k val[k] x[col[k]] over the entries of the i-th listed row (ListedRows,
// model_operators.hpp), for i over the listed rows: a sparse product that adds to its rows alone.
struct AddListedRowProducts {
  const int *row, *ptr, *col;
  const double *val, *x;
  double* y;
  double a;
  CATENARY_HD void operator()(int i) const {
    double sum = 0.0;
    for (int k = ptr[i]; k < ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
    y[row[i]] += a * sum;
  }
};

// Throws std::invalid_argument when max_abs_each is asked for more than Backend::kMaxMaxima vectors.
inline void check_maxima_count(size_t count) {
  if (count > Backend::kMaxMaxima)
    throw std::invalid_argument("max_abs_each: at most " + std::to_string(Backend::kMaxMaxima) + " vectors");
}

}  // namespace catenary
