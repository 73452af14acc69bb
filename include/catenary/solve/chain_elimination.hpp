#pragma once
// Block elimination along each chain (the block Thomas algorithm), one thread per chain: the
// block-tridiagonal solver's method for many short chains that do not couple, such as a sweep's
// copies (and, on the CPU, the steps of the parts of a long chain that threads share:
// solve/chain_partition.hpp). Where cyclic reduction needs 2 log2(N) dependent launches for
// chains of up to N blocks, this is one launch whose depth is the longest chain; a batch of
// 10,000 copies of a 100-element cable thus runs 10,000 independent threads of 101 block steps.
//
// Chain c holds blocks first .. last - 1 (first = chain_ptr[c], last = chain_ptr[c + 1]). The
// elimination runs from the chain's last block down to its first, so that the first block is
// eliminated last: its factorized D is then the chain's Schur complement onto it, and a border
// coupled to that block alone (a crane's boom on a cable's first node) needs no sweep over the
// chain at a factorization (CsrSolver::leading_block_solved_last). Block by block (U_k stays as
// assembled, L_k is replaced by L'_k):
//   D_k -= U_k L'_{k+1} (k < last - 1),   D_k = its LU (partial pivoting inside the block),
//   L'_k = D_k^-1 L_k (k > first).
// Solve: forward y_k = D_k^-1 (r_k - U_k y_{k+1}) from the last block, backward
// x_k = y_k - L'_k x_{k-1} from the first.
// Pivoting stays inside each block, as in cyclic reduction: the diagonal blocks carry the
// constraint rows of their node, whose zero diagonal the in-block pivoting handles.
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/dense_block.hpp"

namespace catenary {

// One block step of an elimination along a chain, in either direction: towards higher blocks
// (Up), block k's coupling to the block eliminated just before it (prev = k - 1) is L_k and to
// the one eliminated after it (next = k + 1) U_k; towards lower blocks (prev = k + 1, next =
// k - 1) U_k and L_k (solve/chain_partition.hpp runs both). N: see dense_block.hpp. The
// direction is a template argument and the neighbours are flags: with run-time neighbour
// indices FactorChain spilled 76 / 108 bytes at its 64 registers (ptxas sm_90), with flags 24 /
// 24 upwards; running downwards it spills 84 / 236 (docs/performance.md, Linear solvers; what
// the spill costs on a device is not measured).
// The steps are forced inline: GCC otherwise leaves them out of line in the CPU's partition
// loops, which costs 5 % of a factorization (docs/performance.md, CPU threads).
template <bool Up>
CATENARY_HD double* behind(const Blocks& b) {
  return Up ? b.L : b.U;
}
template <bool Up>
CATENARY_HD double* ahead(const Blocks& b) {
  return Up ? b.U : b.L;
}

// Factorization: D_k -= behind_k ahead'_prev, D_k = its LU, ahead'_k = D_k^-1 ahead_k (replacing
// ahead_k); false if D_k is singular.
template <int N, bool Up>
CATENARY_HD_FORCE_INLINE bool eliminate_block(const Blocks& b, int k, bool has_prev, bool has_next) {
  const int n = b.size[k], ld = b.B, prev = Up ? k - 1 : k + 1, next = Up ? k + 1 : k - 1;
  double* D = b.at(b.D, k);
  if (has_prev) add_product<N>(-1.0, b.at(behind<Up>(b), k), b.at(ahead<Up>(b), prev), D, n, b.size[prev], n, ld);
  if (!lu_factor<N>(D, b.piv + k * ld, n, ld)) return false;
  if (has_next) lu_solve_columns<N>(D, b.piv + k * ld, b.at(ahead<Up>(b), k), n, b.size[next], ld);
  return true;
}

// Forward substitution of that step, on padded vectors (block k's entries at k * B; x may not
// alias r): x_k = D_k^-1 (r_k - behind_k x_prev).
template <int N, bool Up>
CATENARY_HD_FORCE_INLINE void forward_block(const Blocks& b, const double* r, double* x, int k, bool has_prev) {
  const int n = b.size[k], ld = b.B, prev = Up ? k - 1 : k + 1;
  double* xk = x + k * ld;
  for (int i = 0; i < (N > 0 ? N : n); ++i) xk[i] = r[k * ld + i];
  if (has_prev) add_product_vector<N>(-1.0, b.at(behind<Up>(b), k), x + prev * ld, xk, n, b.size[prev], ld);
  lu_solve<N>(b.at(b.D, k), b.piv + k * ld, xk, n, ld, 1);
}

// Back substitution: x_k -= ahead'_k x_next.
template <int N, bool Up>
CATENARY_HD_FORCE_INLINE void backward_block(const Blocks& b, double* x, int k) {
  const int ld = b.B, next = Up ? k + 1 : k - 1;
  add_product_vector<N>(-1.0, b.at(ahead<Up>(b), k), x + next * ld, x + k * ld, b.size[k], b.size[next], ld);
}

// Whether block k and its neighbours among blocks first .. last - 1 are all N x N (the
// compile-time step applies).
CATENARY_HD bool blocks_of_size(const Blocks& b, int k, int first, int last, int N) {
  return b.size[k] == N && (k == first || b.size[k - 1] == N) && (k + 1 == last || b.size[k + 1] == N);
}

// The block Thomas algorithm on chain c, towards lower blocks (see the top).
struct FactorChain {
  Blocks b;
  const int* chain_ptr;
  int* singular;  // set to a singular block + 1
  CATENARY_HD void operator()(int c) const {
    const int first = chain_ptr[c], last = chain_ptr[c + 1];
    for (int k = last - 1; k >= first; --k) {
      const bool regular = blocks_of_size(b, k, first, last, kUnrolledBlock)
                               ? eliminate_block<kUnrolledBlock, false>(b, k, k + 1 < last, k > first)
                               : eliminate_block<0, false>(b, k, k + 1 < last, k > first);
      if (!regular) {
        *singular = k + 1;
        return;
      }
    }
  }
};

// Which sweeps of a chain's solve a launch runs: both, or (a correction of the first block's
// right-hand side in between: CsrSolver::solve_correcting_leading_block) one of them.
enum class Sweeps { Both, Forward, Backward };

// r and x are padded vectors (block k's entries at k * B); x may not alias r. The forward sweep
// ends with x_first, the first block's solution; the backward sweep reads it and r no more.
template <Sweeps S = Sweeps::Both>
struct SolveChain {
  Blocks b;
  const int* chain_ptr;
  const double* r;
  double* x;
  CATENARY_HD void shift(long k) { r += k, x += k; }  // to another right-hand side's vectors
  CATENARY_HD void operator()(int c) const {
    const int first = chain_ptr[c], last = chain_ptr[c + 1];
    constexpr int U = kUnrolledBlock;
    if constexpr (S != Sweeps::Backward)
      for (int k = last - 1; k >= first; --k)
        blocks_of_size(b, k, first, last, U) ? forward_block<U, false>(b, r, x, k, k + 1 < last)
                                             : forward_block<0, false>(b, r, x, k, k + 1 < last);
    if constexpr (S != Sweeps::Forward)
      for (int k = first + 1; k < last; ++k)
        blocks_of_size(b, k, first, last, U) ? backward_block<U, false>(b, x, k) : backward_block<0, false>(b, x, k);
  }
};

}  // namespace catenary
