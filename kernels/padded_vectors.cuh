#pragma once
// The block-tridiagonal solver's moves between a caller's vectors and its padded ones
// (solve/block_layout.hpp), and the held rows' solutions on the caller's (solve/held_rows.hpp).
#include "catenary/core/host_device.hpp"
#include "catenary/solve/held_rows.hpp"

namespace catenary::cuda {

// to[k * to_stride + index[p]] = from[k * from_stride + p] for each right-hand side k < count;
// the reverse with gather. One thread per entry p (no division per entry: it cost the host build
// a third of its solve time). From, To: the caller's double vectors and the padded ones (double,
// or a Newton update's float vectors).
template <class From = double, class To = double>
struct ScatterEach {
  const int* index;
  const From* from;
  To* to;
  int count;
  long from_stride, to_stride;
  bool gather;
  CATENARY_HD void operator()(int p) const {
    if (index[p] < 0) return;  // a held row's (solve/held_rows.hpp)
    for (int k = 0; k < count; ++k)
      if (gather)
        to[k * to_stride + p] = from[k * from_stride + index[p]];
      else
        to[k * to_stride + index[p]] = from[k * from_stride + p];
  }
};

// Entry o of a caller's two vectors [top; bottom], top holding the first `split`
// (CsrSolver::take_outer_order).
template <class T>
struct SplitVector {
  T *top, *bottom;
  int split;
  CATENARY_HD T& operator[](int o) const { return o < split ? top[o] : bottom[o - split]; }
};

// padded[index[o]] = in[o] over the outer entries o (-1: a held row's, no padded entry); V: the
// padded vectors' type.
template <class V>
struct ScatterOuter {
  const int* index;
  SplitVector<const double> in;
  V* padded;
  CATENARY_HD void operator()(int o) const {
    if (index[o] >= 0) padded[index[o]] = in[o];
  }
};
// out[o] = padded[index[o]] over the outer entries o (-1: a held row's, solved after).
template <class V>
struct GatherOuter {
  const int* index;
  const V* padded;
  SplitVector<double> out;
  CATENARY_HD void operator()(int o) const {
    if (index[o] >= 0) out[o] = padded[index[o]];
  }
};
// The held rows' x_r on the outer vectors (their indices moved to the outer order).
struct SolveHeldRowOuter {
  SolveHeldRow rows;
  SplitVector<const double> rhs;
  SplitVector<double> x;
  CATENARY_HD void operator()(int h) const { rows.solve(h, rhs, x); }
};

}  // namespace catenary::cuda
