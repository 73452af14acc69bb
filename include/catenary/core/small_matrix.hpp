#pragma once
// Fixed-size vectors and matrices, catenary's one small-vector vocabulary for host and device
// code (the element math, the rigid-body math, the builders), with their operations as named
// functions rather than operators. Written by hand because the element kernels need a few
// operations on 2..12-sized arrays in registers; Eigen's fixed-size types are not reliably usable
// in device code with nvcc 13. (Eigen serves the host's vectors of all unknowns.)
#include <math.h>

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

CATENARY_HD Vec<3> vec3(double x, double y, double z) {
  Vec<3> r;
  r[0] = x;
  r[1] = y;
  r[2] = z;
  return r;
}

CATENARY_HD Vec<4> vec4(double a, double b, double c, double d) {
  Vec<4> r;
  r[0] = a;
  r[1] = b;
  r[2] = c;
  r[3] = d;
  return r;
}

template <int N>
CATENARY_HD Vec<N> vec_add(const Vec<N>& a, const Vec<N>& b) {
  Vec<N> r;
  for (int i = 0; i < N; ++i) r[i] = a[i] + b[i];
  return r;
}

template <int N>
CATENARY_HD Vec<N> vec_sub(const Vec<N>& a, const Vec<N>& b) {
  Vec<N> r;
  for (int i = 0; i < N; ++i) r[i] = a[i] - b[i];
  return r;
}

template <int N>
CATENARY_HD Vec<N> vec_scale(double s, const Vec<N>& a) {
  Vec<N> r;
  for (int i = 0; i < N; ++i) r[i] = s * a[i];
  return r;
}

template <int N>
CATENARY_HD double vec_norm(const Vec<N>& a) {
  return sqrt(dot(a, a));
}

// a x b
CATENARY_HD Vec<3> cross3(const Vec<3>& a, const Vec<3>& b) {
  return vec3(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
}

// a~ with a~ b = a x b
CATENARY_HD Mat<3, 3> skew3(const Vec<3>& a) {
  Mat<3, 3> s;
  s(0, 0) = 0.0;
  s(0, 1) = -a[2];
  s(0, 2) = a[1];
  s(1, 0) = a[2];
  s(1, 1) = 0.0;
  s(1, 2) = -a[0];
  s(2, 0) = -a[1];
  s(2, 1) = a[0];
  s(2, 2) = 0.0;
  return s;
}

// M v
template <int R, int C>
CATENARY_HD Vec<R> mat_vec(const Mat<R, C>& m, const Vec<C>& v) {
  Vec<R> r;
  for (int i = 0; i < R; ++i) {
    double s = 0.0;
    for (int j = 0; j < C; ++j) s += m(i, j) * v[j];
    r[i] = s;
  }
  return r;
}

// M^T v
template <int R, int C>
CATENARY_HD Vec<C> mat_t_vec(const Mat<R, C>& m, const Vec<R>& v) {
  Vec<C> r;
  for (int j = 0; j < C; ++j) {
    double s = 0.0;
    for (int i = 0; i < R; ++i) s += m(i, j) * v[i];
    r[j] = s;
  }
  return r;
}

// A B
template <int R, int K, int C>
CATENARY_HD Mat<R, C> mat_mul(const Mat<R, K>& a, const Mat<K, C>& b) {
  Mat<R, C> r;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      double s = 0.0;
      for (int k = 0; k < K; ++k) s += a(i, k) * b(k, j);
      r(i, j) = s;
    }
  return r;
}

// A^T B
template <int K, int R, int C>
CATENARY_HD Mat<R, C> mat_t_mul(const Mat<K, R>& a, const Mat<K, C>& b) {
  Mat<R, C> r;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      double s = 0.0;
      for (int k = 0; k < K; ++k) s += a(k, i) * b(k, j);
      r(i, j) = s;
    }
  return r;
}

template <int R, int C>
CATENARY_HD Mat<C, R> transpose(const Mat<R, C>& m) {
  Mat<C, R> r;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) r(j, i) = m(i, j);
  return r;
}

template <int R, int C>
CATENARY_HD Mat<R, C> mat_sub(const Mat<R, C>& a, const Mat<R, C>& b) {
  Mat<R, C> r;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) r(i, j) = a(i, j) - b(i, j);
  return r;
}

template <int R, int C>
CATENARY_HD Mat<R, C> mat_scale(double s, const Mat<R, C>& a) {
  Mat<R, C> r;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) r(i, j) = s * a(i, j);
  return r;
}

// Column j of a 3x3 matrix.
CATENARY_HD Vec<3> column3(const Mat<3, 3>& m, int j) { return vec3(m(0, j), m(1, j), m(2, j)); }

}  // namespace catenary
