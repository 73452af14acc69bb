#pragma once
// Small dense blocks for the block solvers (the CUDA backend's, on the device or the host, and the
// CPU backend's chain elimination): LU with partial pivoting inside the block, its solve, and
// block products. A block is n x n row-major with leading dimension ld (the n <= ld <= 16
// unknowns of a node block, stored in slots padded to the largest block). N > 0 says at compile
// time that every size argument is N (the loops then unroll; a block solver takes it for the
// common node block of its model), N = 0 that the sizes are known only at run time. The blocks
// a function takes never overlap (__restrict__): a device thread then issues a block's loads
// together instead of one memory latency per step after each store.
#include <math.h>

#include "catenary/core/host_device.hpp"

namespace catenary {

// The block size the block solvers compile their loops for (N below): a 3D cable's node block of
// 6 coordinates. Other blocks (a pinned node with its constraint rows, the planar beam's 4
// coordinates) take the run-time loops.
constexpr int kUnrolledBlock = 6;

// Swaps rows k and p >= k (n values each) of a block whose rows are ld apart. With
// N > 0 row p is found by comparing it with each later row, so that once the loops unroll every
// index is known at compile time: a block a thread holds in registers stays there (an index known
// only at run time would move the whole block to local memory).
template <int N>
CATENARY_HD void swap_rows(double* A, int k, int p, int n, int ld) {
  if (p == k) return;
  const auto swap = [&](int other) {
    CATENARY_UNROLL
    for (int j = 0; j < n; ++j) {
      const double t = A[k * ld + j];
      A[k * ld + j] = A[other * ld + j];
      A[other * ld + j] = t;
    }
  };
  if constexpr (N > 0) {
    CATENARY_UNROLL
    for (int i = k + 1; i < N; ++i)
      if (i == p) swap(i);
  } else {
    swap(p);
  }
}

// Step k of lu_factor: column k's pivot, the swap, the elimination below it; false at a zero pivot.
// The pivot is replaced by its reciprocal: one division here instead of one per row here and one
// per row of every solve (lu_solve multiplies), where each stood in a chain of dependent steps.
template <int N>
CATENARY_HD bool lu_step(double* A, int* piv, int k, int n, int ld) {
  int p = k;
  double largest = fabs(A[k * ld + k]);
  for (int i = k + 1; i < n; ++i)
    if (fabs(A[i * ld + k]) > largest) largest = fabs(A[i * ld + k]), p = i;
  piv[k] = p;
  if (largest == 0.0) return false;
  swap_rows<N>(A, k, p, n, ld);
  const double inverse_pivot = 1.0 / A[k * ld + k];
  A[k * ld + k] = inverse_pivot;
  for (int i = k + 1; i < n; ++i) {
    const double l = A[i * ld + k] * inverse_pivot;
    A[i * ld + k] = l;
    for (int j = k + 1; j < n; ++j) A[i * ld + j] -= l * A[k * ld + j];
  }
  return true;
}

// In-place LU with partial pivoting of the n x n block A (whole rows swapped, as LAPACK's getrf):
// L's multipliers below the diagonal, U above it, and on it U's diagonal as reciprocals 1 / u_kk
// (lu_step; only lu_solve reads the factors); false at a zero pivot. Unrolled (device code,
// N > 0), every index of the block is known at compile time, which keeps a block a thread holds
// in registers there (lu_factor_loaded), but made FactorChain, which factorizes in memory, spill
// 224 / 468 bytes instead of 68 / 168 (ptxas sm_90): so the steps' loop unrolls only where asked.
template <int N = 0, bool Unrolled = false>
CATENARY_HD bool lu_factor(double* A, int* piv, int n_, int ld) {
  const int n = N > 0 ? N : n_;
  if constexpr (Unrolled) {
    CATENARY_UNROLL
    for (int k = 0; k < n; ++k)
      if (!lu_step<N>(A, piv, k, n, ld)) return false;
  } else {
    for (int k = 0; k < n; ++k)
      if (!lu_step<N>(A, piv, k, n, ld)) return false;
  }
  return true;
}

// lu_factor of an N x N block of leading dimension ld, loaded into a local array and stored back:
// in device code the array stays in registers and the block's loads issue together.
template <int N>
CATENARY_HD bool lu_factor_loaded(double* A, int* piv, int ld) {
  double LU[N * N];
  int p[N];
  for (int i = 0; i < N; ++i)
    for (int c = 0; c < N; ++c) LU[i * N + c] = A[i * ld + c];
  if (!lu_factor<N, true>(LU, p, N, N)) return false;
  for (int i = 0; i < N; ++i) {
    piv[i] = p[i];
    for (int c = 0; c < N; ++c) A[i * ld + c] = LU[i * N + c];
  }
  return true;
}

// x = A^-1 x with the LU of A; x holds n values `stride` apart (a vector, or a block's column).
// Its loops and swap_rows' unroll in device code (CATENARY_UNROLL): left rolled by nvcc, the
// pivot loop indexed a thread's column by a run-time counter, moving it to local memory: FactorOdd
// (which then also solved its couplings' columns) spilled 1,212 / 1,408 bytes, after 4 / 12
// (ptxas sm_90).
// T: the factors' type (double, or the float copy a solve may read: block_layout.hpp's BlocksOf);
// the arithmetic is double either way.
template <int N = 0, class T = double>
CATENARY_HD void lu_solve(const T* __restrict__ LU, const int* __restrict__ piv, double* __restrict__ x, int n_,
                          int ld, int stride) {
  const int n = N > 0 ? N : n_;
  CATENARY_UNROLL
  for (int k = 0; k < n; ++k) swap_rows<N>(x, k, piv[k], 1, stride);
  CATENARY_UNROLL
  for (int i = 0; i < n; ++i) {
    CATENARY_UNROLL
    for (int j = 0; j < i; ++j) x[i * stride] -= LU[i * ld + j] * x[j * stride];
  }
  CATENARY_UNROLL
  for (int i = n - 1; i >= 0; --i) {
    CATENARY_UNROLL
    for (int j = i + 1; j < n; ++j) x[i * stride] -= LU[i * ld + j] * x[j * stride];
    x[i * stride] *= LU[i * ld + i];  // 1 / u_ii (lu_step)
  }
}

// X = A^-1 X for the n x cols block X (row-major, leading dimension ld) with the LU of A: the
// columns' substitutions side by side, each row's update one run over the columns. The same
// operations in the same order as lu_solve column by column (the same numbers), but the columns'
// chains of dependent steps interleave and each run vectorizes: the CPU chain solver's
// factorization spends most of its time in those chains (docs/performance.md, CPU threads).
template <int N = 0>
CATENARY_HD void lu_solve_columns(const double* __restrict__ LU, const int* __restrict__ piv, double* __restrict__ X,
                                  int n_, int cols_, int ld) {
  const int n = N > 0 ? N : n_, cols = N > 0 ? N : cols_;
  for (int k = 0; k < n; ++k) swap_rows<N>(X, k, piv[k], cols, ld);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) {
      const double l = LU[i * ld + j];
      for (int c = 0; c < cols; ++c) X[i * ld + c] -= l * X[j * ld + c];
    }
  for (int i = n - 1; i >= 0; --i) {
    for (int j = i + 1; j < n; ++j) {
      const double u = LU[i * ld + j];
      for (int c = 0; c < cols; ++c) X[i * ld + c] -= u * X[j * ld + c];
    }
    const double reciprocal = LU[i * ld + i];  // 1 / u_ii (lu_step)
    for (int c = 0; c < cols; ++c) X[i * ld + c] *= reciprocal;
  }
}

// lu_solve of an N x N system for x's N values `stride` apart, loaded into a local array and
// stored back: in device code x stays in registers and its loads issue together.
template <int N, class T = double>
CATENARY_HD void lu_solve_loaded(const T* __restrict__ LU, const int* __restrict__ piv, double* __restrict__ x,
                                 int ld, int stride) {
  double v[N];
  for (int i = 0; i < N; ++i) v[i] = x[i * stride];
  lu_solve<N>(LU, piv, v, N, ld, 1);
  for (int i = 0; i < N; ++i) x[i * stride] = v[i];
}

// C += s A B for row-major blocks of leading dimension ld: A is rows x inner, B inner x cols.
template <int N = 0>
CATENARY_HD void add_product(double s, const double* __restrict__ A, const double* __restrict__ B,
                             double* __restrict__ C, int rows_, int inner_, int cols_, int ld) {
  const int rows = N > 0 ? N : rows_, inner = N > 0 ? N : inner_, cols = N > 0 ? N : cols_;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      double sum = 0.0;
      for (int k = 0; k < inner; ++k) sum += A[i * ld + k] * B[k * ld + j];
      C[i * ld + j] += s * sum;
    }
}

// sum_k row[k] x[k] for k < cols, in double: one row of a block (of T: double, or a float copy)
// times a vector (of V: double, or a Newton update's float vectors).
template <int N = 0, class T = double, class V = double>
CATENARY_HD double row_dot(const T* __restrict__ row, const V* __restrict__ x, int cols_) {
  const int cols = N > 0 ? N : cols_;
  double sum = 0.0;
  for (int k = 0; k < cols; ++k) sum += row[k] * x[k];
  return sum;
}

// y += s A x (A rows x cols, leading dimension ld).
template <int N = 0>
CATENARY_HD void add_product_vector(double s, const double* __restrict__ A, const double* __restrict__ x,
                                    double* __restrict__ y, int rows_, int cols_, int ld) {
  const int rows = N > 0 ? N : rows_, cols = N > 0 ? N : cols_;
  for (int i = 0; i < rows; ++i) {
    double sum = 0.0;
    for (int k = 0; k < cols; ++k) sum += A[i * ld + k] * x[k];
    y[i] += s * sum;
  }
}

}  // namespace catenary
