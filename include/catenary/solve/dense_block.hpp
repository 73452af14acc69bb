#pragma once
// Small dense blocks for the block solvers (the CUDA backend's, on the device or the host, and the
// CPU backend's chain elimination): LU with partial pivoting inside the block, its solve, and
// block products. A block is n x n row-major with leading dimension ld (the n <= ld <= 16
// unknowns of a node block, stored in slots padded to the largest block). N > 0 says at compile
// time that every size argument is N (the loops then unroll; a block solver takes it for the
// common node block of its model), N = 0 that the sizes are known only at run time.
#include <math.h>

#include "catenary/core/host_device.hpp"

namespace catenary {

// The block size the block solvers compile their loops for (N below): a 3D cable's node block of
// 6 coordinates. Other blocks (a pinned node with its constraint rows, the planar beam's 4
// coordinates) take the run-time loops.
constexpr int kUnrolledBlock = 6;

// In-place LU with partial pivoting of the n x n block A (whole rows swapped, as LAPACK's getrf);
// false at a zero pivot.
template <int N = 0>
CATENARY_HD bool lu_factor(double* A, int* piv, int n_, int ld) {
  const int n = N > 0 ? N : n_;
  for (int k = 0; k < n; ++k) {
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (fabs(A[i * ld + k]) > fabs(A[p * ld + k])) p = i;
    piv[k] = p;
    if (A[p * ld + k] == 0.0) return false;
    if (p != k)
      for (int j = 0; j < n; ++j) {
        const double t = A[k * ld + j];
        A[k * ld + j] = A[p * ld + j];
        A[p * ld + j] = t;
      }
    for (int i = k + 1; i < n; ++i) {
      const double l = A[i * ld + k] / A[k * ld + k];
      A[i * ld + k] = l;
      for (int j = k + 1; j < n; ++j) A[i * ld + j] -= l * A[k * ld + j];
    }
  }
  return true;
}

// x = A^-1 x with the LU of A; x holds n values `stride` apart (a vector, or a block's column).
template <int N = 0>
CATENARY_HD void lu_solve(const double* LU, const int* piv, double* x, int n_, int ld, int stride) {
  const int n = N > 0 ? N : n_;
  for (int k = 0; k < n; ++k)
    if (piv[k] != k) {
      const double t = x[k * stride];
      x[k * stride] = x[piv[k] * stride];
      x[piv[k] * stride] = t;
    }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) x[i * stride] -= LU[i * ld + j] * x[j * stride];
  for (int i = n - 1; i >= 0; --i) {
    for (int j = i + 1; j < n; ++j) x[i * stride] -= LU[i * ld + j] * x[j * stride];
    x[i * stride] /= LU[i * ld + i];
  }
}

// C += s A B for row-major blocks of leading dimension ld: A is rows x inner, B inner x cols.
template <int N = 0>
CATENARY_HD void add_product(double s, const double* A, const double* B, double* C, int rows_, int inner_, int cols_,
                             int ld) {
  const int rows = N > 0 ? N : rows_, inner = N > 0 ? N : inner_, cols = N > 0 ? N : cols_;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      double sum = 0.0;
      for (int k = 0; k < inner; ++k) sum += A[i * ld + k] * B[k * ld + j];
      C[i * ld + j] += s * sum;
    }
}

// y += s A x (A rows x cols, leading dimension ld).
template <int N = 0>
CATENARY_HD void add_product_vector(double s, const double* A, const double* x, double* y, int rows_, int cols_,
                                    int ld) {
  const int rows = N > 0 ? N : rows_, cols = N > 0 ? N : cols_;
  for (int i = 0; i < rows; ++i) {
    double sum = 0.0;
    for (int k = 0; k < cols; ++k) sum += A[i * ld + k] * x[k];
    y[i] += s * sum;
  }
}

}  // namespace catenary
