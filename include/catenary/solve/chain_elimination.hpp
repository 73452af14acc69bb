#pragma once
// Block elimination along each chain (the block Thomas algorithm), one thread per chain: the
// block-tridiagonal solver's method for many short chains that do not couple, such as a sweep's
// copies. Where cyclic reduction needs 2 log2(N) dependent launches over all N blocks, this is one
// launch whose depth is the longest chain; a batch of 10,000 copies of a 100-element cable thus
// runs 10,000 independent threads of 101 block steps each.
//
// Chain c holds blocks first .. last - 1 (first = chain_ptr[c], last = chain_ptr[c + 1]).
// Factorization, block by block (L_k stays as assembled, U_k is replaced by U'_k):
//   D_k -= L_k U'_{k-1} (k > first),   D_k = its LU (partial pivoting inside the block),
//   U'_k = D_k^-1 U_k (k < last - 1).
// Solve: forward y_k = D_k^-1 (r_k - L_k y_{k-1}), backward x_k = y_k - U'_k x_{k+1}.
// Pivoting stays inside each block, as in cyclic reduction: the diagonal blocks carry the
// constraint rows of their node, whose zero diagonal the in-block pivoting handles.
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/dense_block.hpp"

namespace catenary {

// One block step of the factorization (N: see dense_block.hpp); false if D_k is singular.
template <int N>
CATENARY_HD bool factor_chain_block(const Blocks& b, int k, int first, int last) {
  const int n = b.size[k], ld = b.B;
  double* D = b.at(b.D, k);
  if (k > first) add_product<N>(-1.0, b.at(b.L, k), b.at(b.U, k - 1), D, n, b.size[k - 1], n, ld);
  if (!lu_factor<N>(D, b.piv + k * ld, n, ld)) return false;
  if (k + 1 < last)
    for (int col = 0; col < (N > 0 ? N : b.size[k + 1]); ++col)
      lu_solve<N>(D, b.piv + k * ld, b.at(b.U, k) + col, n, ld, ld);
  return true;
}

// Whether block k and its neighbours in the chain are all N x N (the compile-time step applies).
CATENARY_HD bool blocks_of_size(const Blocks& b, int k, int first, int last, int N) {
  return b.size[k] == N && (k == first || b.size[k - 1] == N) && (k + 1 == last || b.size[k + 1] == N);
}

struct FactorChain {
  Blocks b;
  const int* chain_ptr;
  int* singular;  // set to a singular block + 1
  CATENARY_HD void operator()(int c) const {
    const int first = chain_ptr[c], last = chain_ptr[c + 1];
    for (int k = first; k < last; ++k) {
      const bool regular = blocks_of_size(b, k, first, last, kUnrolledBlock)
                               ? factor_chain_block<kUnrolledBlock>(b, k, first, last)
                               : factor_chain_block<0>(b, k, first, last);
      if (!regular) {
        *singular = k + 1;
        return;
      }
    }
  }
};

// r and x are padded vectors (block k's entries at k * B); x may not alias r.
struct SolveChain {
  Blocks b;
  const int* chain_ptr;
  const double* r;
  double* x;
  template <int N>
  CATENARY_HD void forward(int k, int first) const {
    const int n = b.size[k], ld = b.B;
    double* xk = x + k * ld;
    for (int i = 0; i < (N > 0 ? N : n); ++i) xk[i] = r[k * ld + i];
    if (k > first) add_product_vector<N>(-1.0, b.at(b.L, k), x + (k - 1) * ld, xk, n, b.size[k - 1], ld);
    lu_solve<N>(b.at(b.D, k), b.piv + k * ld, xk, n, ld, 1);
  }
  template <int N>
  CATENARY_HD void backward(int k) const {
    const int ld = b.B;
    add_product_vector<N>(-1.0, b.at(b.U, k), x + (k + 1) * ld, x + k * ld, b.size[k], b.size[k + 1], ld);
  }
  CATENARY_HD void operator()(int c) const {
    const int first = chain_ptr[c], last = chain_ptr[c + 1];
    constexpr int U = kUnrolledBlock;
    for (int k = first; k < last; ++k)
      blocks_of_size(b, k, first, last, U) ? forward<U>(k, first) : forward<0>(k, first);
    for (int k = last - 2; k >= first; --k)
      blocks_of_size(b, k, first, last, U) ? backward<U>(k) : backward<0>(k);
  }
};

}  // namespace catenary
