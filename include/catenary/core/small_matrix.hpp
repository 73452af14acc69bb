#pragma once
// Fixed-size vectors and matrices for per-element math on host and device.
// Written by hand because the element kernels need a few operations on 2..12-sized arrays in
// registers; Eigen's fixed-size types are not reliably usable in device code with nvcc 13.
#include "catenary/core/host_device.hpp"

namespace catenary {

template <int N>
struct Vec {
  double v[N];
  CATENARY_HD double& operator[](int i) { return v[i]; }
  CATENARY_HD const double& operator[](int i) const { return v[i]; }
  CATENARY_HD static Vec zero() {
    Vec r{};
    for (int i = 0; i < N; ++i) r.v[i] = 0.0;
    return r;
  }
};

template <int R, int C>
struct Mat {
  double m[R][C];
  CATENARY_HD double& operator()(int i, int j) { return m[i][j]; }
  CATENARY_HD const double& operator()(int i, int j) const { return m[i][j]; }
  CATENARY_HD static Mat zero() {
    Mat r{};
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) r.m[i][j] = 0.0;
    return r;
  }
};

// v[k] for an index known only at run time, as a chain of selects (v[M], v[M - 1], ..., v[0]): a
// device thread then keeps v in registers, where indexing it with a run-time value would put the
// whole array in local memory. (A loop over the selects is not enough: nvcc turns it back into an
// indexed load.)
template <int N, int M = N - 1>
CATENARY_HD double pick(const double (&v)[N], int k) {
  if constexpr (M == 0)
    return v[0];
  else
    return k == M ? v[M] : pick<N, M - 1>(v, k);
}

template <int N>
CATENARY_HD double dot(const Vec<N>& a, const Vec<N>& b) {
  double s = 0.0;
  for (int i = 0; i < N; ++i) s += a[i] * b[i];
  return s;
}

}  // namespace catenary
