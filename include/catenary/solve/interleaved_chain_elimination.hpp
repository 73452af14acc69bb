#pragma once
// Chain elimination (solve/chain_elimination.hpp: the same steps, from each chain's last block
// down to its first, then back up) for a batch of equally long chains of 6 x 6 blocks (a sweep's
// copies of a 3D cable), with the batch's blocks stored chain-interleaved: entry e of block p of
// chain c at (p W + e) C + c, W the values a block has there (36 in D, L and U; 6 in the pivots
// and the padded vectors), C the chains. The C threads (one a chain) of a step then read one
// contiguous run per entry, where in the chain-contiguous layout each lane of a warp reads its own
// block 101 blocks away from its neighbour's: on an H100 the 10,000-copy sweep's contiguous
// elimination (then also on 20 of the 132 SMs: memory_space.cuh, for_each_item) solved at
// ~120 GB/s, 7 ms a solve (2026-11-23, docs/benchmarks.md), against the 0.26 ms that reading its
// 0.87 GB of factors takes at the bandwidth bound.
// Each step loads its blocks into local arrays (registers on a device: every index is known at
// compile time) and runs dense_block.hpp's routines on them.
#include <vector>

#include "catenary/core/host_device.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/chain_elimination.hpp"
#include "catenary/solve/dense_block.hpp"

namespace catenary {

// The interleaved layout of C chains of `length` blocks of N = kUnrolledBlock unknowns.
struct InterleavedChains {
  static constexpr int N = kUnrolledBlock, kBlockValues = N * N;
  int chains = 0, length = 0;

  // Where the interleaved layout puts the value that the chain-contiguous one keeps at
  // k W + e (block k = c length + p, entry e < W of its W values).
  CATENARY_HD long from_contiguous(long contiguous, int W) const {
    const long k = contiguous / W, c = k / length, p = k % length;
    return (p * W + contiguous % W) * chains + c;
  }
  CATENARY_HD long block_entry(int c, int p, int e) const {
    return (static_cast<long>(p) * kBlockValues + e) * chains + c;
  }
  CATENARY_HD long vector_entry(int c, int p, int i) const { return (static_cast<long>(p) * N + i) * chains + c; }
};

// Whether a layout's blocks can be interleaved: all N x N (held rows out), chains all as long.
inline bool interleavable(const BlockLayout& layout, const std::vector<int>& chain_ptr) {
  if (layout.B != InterleavedChains::N) return false;
  for (int size : layout.size)
    if (size != InterleavedChains::N) return false;
  for (size_t c = 1; c + 1 < chain_ptr.size(); ++c)
    if (chain_ptr[c + 1] - chain_ptr[c] != chain_ptr[1] - chain_ptr[0]) return false;
  return true;
}

// The batch's D, L and U blocks and pivots in the interleaved layout.
struct InterleavedBlocks {
  static constexpr int N = InterleavedChains::N, kBlockValues = InterleavedChains::kBlockValues;
  InterleavedChains at;
  double *D, *L, *U;
  int* piv;

  CATENARY_HD void load(const double* base, int c, int p, double* block) const {
    for (int e = 0; e < kBlockValues; ++e) block[e] = base[at.block_entry(c, p, e)];
  }
  CATENARY_HD void store(const double* block, int c, int p, double* base) const {
    for (int e = 0; e < kBlockValues; ++e) base[at.block_entry(c, p, e)] = block[e];
  }
  // v = D_p^-1 v with block p of chain c's LU.
  CATENARY_HD void solve(int c, int p, double* v) const {
    double LU[kBlockValues];
    int pivots[N];
    load(D, c, p, LU);
    for (int i = 0; i < N; ++i) pivots[i] = piv[at.vector_entry(c, p, i)];
    lu_solve<N>(LU, pivots, v, N, N, 1);
  }
};

// The factorization of chain c, from its last block p down (chain_elimination.hpp's top):
// D_p -= U_p L'_{p+1}, D_p = its LU, L'_p = D_p^-1 L_p (p > 0). L'_{p+1} stays in the thread's
// registers from the step before. A singular block's number (c length + p) + 1 into singular.
struct FactorInterleavedChain {
  static constexpr int N = InterleavedBlocks::N, kBlockValues = InterleavedBlocks::kBlockValues;
  InterleavedBlocks b;
  int* singular;
  CATENARY_HD void operator()(int c) const {
    double next_L[kBlockValues];  // L'_{p+1}
    for (int p = b.at.length - 1; p >= 0; --p) {
      double D[kBlockValues];
      int piv[N];
      b.load(b.D, c, p, D);
      if (p + 1 < b.at.length) {
        double U[kBlockValues];
        b.load(b.U, c, p, U);
        add_product<N>(-1.0, U, next_L, D, N, N, N, N);
      }
      if (!lu_factor<N, true>(D, piv, N, N)) {
        *singular = c * b.at.length + p + 1;
        return;
      }
      b.store(D, c, p, b.D);
      for (int i = 0; i < N; ++i) b.piv[b.at.vector_entry(c, p, i)] = piv[i];
      if (p == 0) return;
      b.load(b.L, c, p, next_L);
      // Unrolled, next_L's indices are known at compile time: it stays in registers.
      CATENARY_UNROLL
      for (int column = 0; column < N; ++column) lu_solve<N>(D, piv, next_L + column, N, N, N);
      b.store(next_L, c, p, b.L);
    }
  }
};

// The solve of chain c on interleaved padded vectors (x may not alias r): forward
// x_p = D_p^-1 (r_p - U_p x_{p+1}) from the last block, backward x_p -= L'_p x_{p-1} from the
// first; the neighbour's x_{p+1} or x_{p-1} stays in the thread's registers. Sweeps as for
// SolveChain: the backward sweep alone starts from x_0 in memory (block 0 corrected in between).
template <Sweeps S = Sweeps::Both>
struct SolveInterleavedChain {
  static constexpr int N = InterleavedBlocks::N, kBlockValues = InterleavedBlocks::kBlockValues;
  InterleavedBlocks b;
  const double* r;
  double* x;
  CATENARY_HD void shift(long k) { r += k, x += k; }  // to another right-hand side's vectors
  CATENARY_HD void operator()(int c) const {
    double neighbour[N], xp[N];
    if constexpr (S != Sweeps::Backward)
      for (int p = b.at.length - 1; p >= 0; --p) {
        for (int i = 0; i < N; ++i) xp[i] = r[b.at.vector_entry(c, p, i)];
        double block[kBlockValues];
        if (p + 1 < b.at.length) {
          b.load(b.U, c, p, block);
          add_product_vector<N>(-1.0, block, neighbour, xp, N, N, N);
        }
        b.solve(c, p, xp);
        for (int i = 0; i < N; ++i) x[b.at.vector_entry(c, p, i)] = neighbour[i] = xp[i];
      }
    if constexpr (S != Sweeps::Forward) {
      if constexpr (S == Sweeps::Backward)
        for (int i = 0; i < N; ++i) neighbour[i] = x[b.at.vector_entry(c, 0, i)];
      for (int p = 1; p < b.at.length; ++p) {  // neighbour: x_{p-1}
        double L[kBlockValues];
        b.load(b.L, c, p, L);
        for (int i = 0; i < N; ++i) xp[i] = x[b.at.vector_entry(c, p, i)];
        add_product_vector<N>(-1.0, L, neighbour, xp, N, N, N);
        for (int i = 0; i < N; ++i) x[b.at.vector_entry(c, p, i)] = neighbour[i] = xp[i];
      }
    }
  }
};

// Block 0 (chain 0's first, eliminated last) alone, one thread: x_0 = D_0^-1 r_0 for
// CsrSolver::solve_leading_block_many, or, with `delta`, x_0 -= D_0^-1 delta after the forward
// sweep (CsrSolver::solve_correcting_leading_block). lead: block 0's x contiguous, for the
// correction's caller.
struct InterleavedLeadingBlock {
  static constexpr int N = InterleavedBlocks::N;
  InterleavedBlocks b;
  const double* r;
  double* x;
  const double* delta;  // nullptr: x_0 = D_0^-1 r_0
  CATENARY_HD void shift(long k) { r += k, x += k; }
  CATENARY_HD void operator()(int) const {
    double v[N];
    for (int i = 0; i < N; ++i) v[i] = delta ? delta[i] : r[b.at.vector_entry(0, 0, i)];
    b.solve(0, 0, v);
    for (int i = 0; i < N; ++i) x[b.at.vector_entry(0, 0, i)] = delta ? x[b.at.vector_entry(0, 0, i)] - v[i] : v[i];
  }
};

// lead[i] = x_0's entry i, from an interleaved padded vector.
struct InterleavedLeadingValues {
  InterleavedChains at;
  const double* x;
  double* lead;
  CATENARY_HD void operator()(int i) const { lead[i] = x[at.vector_entry(0, 0, i)]; }
};

}  // namespace catenary
