// The block-tridiagonal solver for the Newton matrix of chain models (the order of
// assembly/block_chain_ordering.hpp) behind the CsrSolver interface, by block cyclic reduction
// (below) or by elimination along each chain (solve/chain_elimination.hpp), written once over a
// MemorySpace like the backend. Written by hand because the CUDA libraries have no
// block-tridiagonal solver: cuSPARSE's gtsv2 is for scalar tridiagonal systems, cuSOLVER's sparse
// QR does not exploit the band, and cuDSS is not part of the toolkit.
//
// Each block is worked on at its own size and stored as its own rows, B wide (B: the largest
// block; solve/block_layout.hpp): D_k (diagonal), L_k (coupling to block k - 1), U_k (to k + 1).
// Rows that hold one coordinate (a pinned end's) leave the blocks (solve/held_rows.hpp), so a
// pinned cable's blocks are all 6 x 6, stored 6 wide, not 9.
// Level l works on the chain of blocks k 2^l. Its odd members are eliminated in parallel: each
// factorizes its D (FactorOdd) and replaces its couplings by L'_k = D_k^-1 L_k and
// U'_k = D_k^-1 U_k (PremultiplyOdd, a column per thread); then each even member folds in its odd
// neighbours (UpdateEven, an entry per thread, after SaveEvenCouplings saved its L and U):
//   D_k -= L_k U'_{k-1} + U_k L'_{k+1},   L_k = -L_k L'_{k-1},   U_k = -U_k U'_{k+1},
// until no two members left are of one chain (2^l at least the longest chain's length: one block
// for a single chain), and each is factorized alone: ceil(log2(longest chain)) levels of
// O(N / 2^l) independent small dense operations, whatever the number of chains. An
// eliminated block's D (as its LU), L' and U' are never touched again, and the even members' L
// and U of each level are saved: all the solve's sweeps need. Forward: y_k = D_k^-1 r_k for the
// odd members, r_k -= L_k y_{k-1} + U_k y_{k+1} for the even ones, level by level; backward:
// x_k = y_k - L'_k x_{k-1} - U'_k x_{k+1}. Each block is factorized with partial pivoting inside
// the block (the diagonal blocks of a saddle-point matrix carry constraint rows with zero diagonal).
// Unless CATENARY_FLOAT_FACTORS=0 (block_layout.hpp), a Newton update's solve (solve_newton_update)
// other than the first after a factorization reads a float copy of D, L, U and the saved couplings,
// made then, in double arithmetic: half the factors' bytes. Modified Newton solves about twice a step and
// factorizes once in many steps, and its solves are what bound a sweep's step (benchmarks.md); on
// an H200 the copy cut the solves by 16 to 19 % in the same Newton iterations (thirty-first
// session). Full Newton and the one-off solves stay in double. Chain elimination in the interleaved
// layout keeps the same copy of its D (inverses), L' and U.
// Cyclic reduction runs the chains of a batch as one chain whose blocks at a chain's ends simply do
// not couple (the updates keep those couplings zero). Reducing further than the longest chain
// needs would only pair members of different chains: a sweep of 10,000 copies of a 101-block cable
// takes 7 levels, not the 20 of one 1,010,000-block chain (each level of a factorization cost about
// 80 us on an H100, 13 levels about 1 ms, however few its members).
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "backend_functors.cuh"
#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/core/host_device.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/chain_elimination.hpp"
#include "catenary/solve/csr_solver.hpp"
#include "catenary/solve/dense_block.hpp"
#include "catenary/solve/held_rows.hpp"
#include "catenary/solve/interleaved_chain_elimination.hpp"
#include "launch_graph.cuh"
#include "memory_space.cuh"

namespace catenary::cuda {

namespace {

constexpr int kMaxBlock = kMaxChainBlock;

// The blocks of one level: member k of the level's chain is block k * stride, for k < count.
struct Level {
  int stride, count;
  int save_offset;  // first saved (L, U) pair of this level's even members
};

// Whether members k - reach .. k + reach of a level (those that exist) are all N x N blocks: the
// member's work then takes the dense-block loops sized at compile time (dense_block.hpp).
template <class T>
CATENARY_HD bool level_blocks_of_size(const BlocksOf<T>& b, const Level& level, int k, int reach, int N) {
  for (int i = k - reach; i <= k + reach; ++i)
    if (i >= 0 && i < level.count && b.size[i * level.stride] != N) return false;
  return true;
}

// Factorizes block `block`'s D in place, false at a zero pivot. A 6 x 6 block (nearly all) is
// loaded into registers: its loads issue together, not one dependent load per arithmetic step (in
// place in memory, the first level of a 1,000,000-element chain took 33 ms on an H100 and each of
// the last levels' few members 0.8 ms, one memory latency per step).
CATENARY_HD bool factor_block(const Blocks& b, int block) {
  double* D = b.at(b.D, block);
  int* piv = b.piv + block * b.B;
  return b.size[block] == kUnrolledBlock ? lu_factor_loaded<kUnrolledBlock>(D, piv, b.B)
                                         : lu_factor(D, piv, b.size[block], b.B);
}

// x = D^-1 x with block `block`'s LU, x's values `stride` apart (a vector block, or a column of a
// coupling); a 6 x 6 block's in registers. T: the factors' type (the solves' float copy, or double).
template <class T>
CATENARY_HD void solve_with_block(const BlocksOf<T>& b, int block, double* x, int stride) {
  const T* LU = b.at(b.D, block);
  const int* piv = b.piv + block * b.B;
  if (b.size[block] == kUnrolledBlock)
    lu_solve_loaded<kUnrolledBlock>(LU, piv, x, b.B, stride);
  else
    lu_solve(LU, piv, x, b.size[block], b.B, stride);
}

// Factor the odd members' diagonal blocks, one thread per member; PremultiplyOdd then replaces
// their couplings by L' = D^-1 L and U' = D^-1 U.
struct FactorOdd {
  Blocks b;
  Level level;
  int* singular;
  CATENARY_HD void operator()(int j) const {
    const int block = (2 * j + 1) * level.stride;
    if (!factor_block(b, block)) *singular = block + 1;
  }
};

// C = D^-1 C for the odd members' couplings, one thread per column (item t: member t / (2 B),
// column t % (2 B) of L then of U): the member's threads read its LU at the same addresses. A
// thread per member that did its LU and then the 12 columns' solves, in series, held about 90
// doubles (spilling 1.2 kB, later 16 bytes; ptxas sm_90), and each level of the factorization
// cost about 80 us on an H100 however few its members (tenth session; this split is not measured
// on a device yet).
struct PremultiplyOdd {
  Blocks b;
  Level level;
  CATENARY_HD void operator()(int t) const {
    const int width = 2 * b.B, k = 2 * (t / width) + 1, c = t % width, block = k * level.stride;
    const bool right = c >= b.B;
    const int column = right ? c - b.B : c;
    if (right && k + 1 >= level.count) return;
    if (column >= b.size[(right ? k + 1 : k - 1) * level.stride]) return;
    solve_with_block(b, block, b.at(right ? b.U : b.L, block) + column, b.B);
  }
};

// Two loops without a dependency between them in one launch: items 0 .. first_items - 1 run
// `first`, the rest `second` (item t - first_items).
template <class First, class Second>
struct OneLaunch {
  First first;
  Second second;
  int first_items;
  CATENARY_HD void operator()(int t) const {
    if (t < first_items)
      first(t);
    else
      second(t - first_items);
  }
};

// sum_q row[q] column[q ld] for q < inner: a row of a member's old coupling (its siblings in the
// warp read it at the same addresses) times a column of a neighbour's block (neighbouring threads
// read neighbouring columns).
template <int N>
CATENARY_HD double row_times_column(const double* __restrict__ row, const double* __restrict__ column, int inner,
                                    int ld) {
  double sum = 0.0;
  for (int q = 0; q < (N > 0 ? N : inner); ++q) sum += row[q] * column[q * ld];
  return sum;
}

// Before UpdateEven: each even member's L and U rows into the level's save slots, one thread per
// entry (item t: member t / B^2, entry t % B^2 of its rows, which lie one after another). The
// solve's forward sweep reads them there, and UpdateEven reads its old couplings there while it
// overwrites L and U.
struct SaveEvenCouplings {
  Blocks b;
  Level level;
  CATENARY_HD void operator()(int t) const {
    const int per_member = b.B * b.B, j = t / per_member, e = t % per_member, block = 2 * j * level.stride;
    if (e >= b.size[block] * b.B) return;
    b.saved(b.saved_L, level.save_offset + j)[e] = b.at(b.L, block)[e];
    b.saved(b.saved_U, level.save_offset + j)[e] = b.at(b.U, block)[e];
  }
};

// Fold the eliminated odd neighbours into the even members (see the file header), one thread per
// entry (row i, column c) of an even member's blocks (item t: member t / B^2, entry t % B^2):
//   D(i, c) -= L(i, :) U'_{k-1}(:, c) + U(i, :) L'_{k+1}(:, c),
//   L(i, c) = -L(i, :) L'_{k-1}(:, c),   U(i, c) = -U(i, :) U'_{k+1}(:, c),
// the old rows L(i, :), U(i, :) read from their saved copies. A thread per row (the four
// row-times-block products in series) held 128 registers, a quarter of an SM's warps, and waited
// 137 cycles per instruction on loads whose sectors it used a quarter of: 0.53 ms for the first
// level of a 100,000-element chain on an H100, about 50 us for each late level of a few members
// (seventeenth session, ncu). A thread per entry reads neighbouring columns in neighbouring lanes.
struct UpdateEven {
  Blocks b;
  Level level;
  CATENARY_HD void operator()(int t) const {
    const int per_member = b.B * b.B, j = t / per_member, e = t % per_member, i = e / b.B, c = e % b.B;
    if (i >= b.size[2 * j * level.stride]) return;
    level_blocks_of_size(b, level, 2 * j, 2, kUnrolledBlock) ? update_entry<kUnrolledBlock>(j, i, c)
                                                             : update_entry<0>(j, i, c);
  }

  template <int N>
  CATENARY_HD void update_entry(int j, int i, int c) const {
    const int k = 2 * j, stride = level.stride, block = k * stride, ld = b.B, m = b.size[block];
    const long entry = static_cast<long>(i) * ld + c;
    const double* old_L = b.saved(b.saved_L, level.save_offset + j) + static_cast<long>(i) * ld;
    const double* old_U = b.saved(b.saved_U, level.save_offset + j) + static_cast<long>(i) * ld;
    double D = c < m ? b.at(b.D, block)[entry] : 0.0, L = 0.0, U = 0.0;
    if (k > 0) {  // the left neighbour
      const int nb = (k - 1) * stride, n = b.size[nb];
      if (c < m) D -= row_times_column<N>(old_L, b.at(b.U, nb) + c, n, ld);
      if (k >= 2 && c < b.size[(k - 2) * stride]) L -= row_times_column<N>(old_L, b.at(b.L, nb) + c, n, ld);
    }
    if (k + 1 < level.count) {  // the right neighbour
      const int nb = (k + 1) * stride, n = b.size[nb];
      if (c < m) D -= row_times_column<N>(old_U, b.at(b.L, nb) + c, n, ld);
      if (k + 2 < level.count && c < b.size[(k + 2) * stride])
        U -= row_times_column<N>(old_U, b.at(b.U, nb) + c, n, ld);
    }
    if (c < m) b.at(b.D, block)[entry] = D;
    b.at(b.L, block)[entry] = L;
    b.at(b.U, block)[entry] = U;
  }
};

// The solve's sweeps work one row of a member per thread (item t: member t / B, row t % B): a
// thread per member read its blocks' 36 to 72 values alone, each warp's load touching 32 blocks,
// and the solves took 4 ms of a 1,000,000-element modified-Newton step's 13 ms on an H100 (tenth
// session; a row per thread: 2.2 ms, seventeenth). A member's rows read their neighbours' vector
// values at the same addresses.

// Forward sweep, odd members: y_k = D_k^-1 r_k. The triangular solves are sequential in the rows,
// so each of the member's threads solves the whole block in registers (its LU and r_k loaded
// together, at addresses its siblings share) and keeps its own row.
// The sweeps' vectors are of V: double, or float in a Newton update from the float copy (the
// sweeps' arithmetic stays double, in registers).
template <class T, class V = double>
struct SolveOdd {
  BlocksOf<T> b;
  Level level;
  const V* r;
  V* y;
  CATENARY_HD void shift(long k) { r += k, y += k; }
  CATENARY_HD void operator()(int t) const {
    const int block = (2 * (t / b.B) + 1) * level.stride, i = t % b.B, n = b.size[block];
    if (i >= n) return;
    n == kUnrolledBlock ? solve_row<kUnrolledBlock>(block, n, i) : solve_row<0>(block, n, i);
  }

  template <int N>
  CATENARY_HD void solve_row(int block, int n, int i) const {
    constexpr int W = N > 0 ? N : kMaxBlock;
    const int ld = b.B;
    double x[W];
    for (int c = 0; c < W; ++c) x[c] = c < n ? r[block * ld + c] : 0.0;
    lu_solve<N>(b.at(b.D, block), b.piv + block * ld, x, n, ld, 1);
    y[block * ld + i] = pick(x, i);
  }

  // x[i] without indexing x by the run-time i (which would move x to local memory): a sum of
  // x[c] masked by c == i. A select by c == i is not enough: the compiler folds it back into x[i]
  // (ptxas sm_90: 48 bytes of stack).
  template <int W>
  CATENARY_HD static double pick(const double (&x)[W], int i) {
    double xi = 0.0;
    for (int c = 0; c < W; ++c) xi += (c == i ? 1.0 : 0.0) * x[c];
    return xi;
  }
};

// Row i of C_left v_{k-1} + C_right v_{k+1} for member k of a level, each term where that
// neighbour exists (C: the member's couplings, its own rows; v: a padded vector).
template <int N, class T, class V>
CATENARY_HD double row_times_neighbours(const BlocksOf<T>& b, const Level& level, int k, int i, const T* C_left,
                                        const T* C_right, const V* v) {
  const int ld = b.B, stride = level.stride;
  double sum = 0.0;
  if (k > 0) {
    const int left = (k - 1) * stride;
    sum += row_dot<N>(C_left + i * ld, v + left * ld, b.size[left]);
  }
  if (k + 1 < level.count) {
    const int right = (k + 1) * stride;
    sum += row_dot<N>(C_right + i * ld, v + right * ld, b.size[right]);
  }
  return sum;
}

// Forward sweep, even members: r_k -= L_k y_{k-1} + U_k y_{k+1} with this level's saved L, U.
template <class T, class V = double>
struct ReduceEven {
  BlocksOf<T> b;
  Level level;
  V* r;
  const V* y;
  CATENARY_HD void shift(long k) { r += k, y += k; }
  CATENARY_HD void operator()(int t) const {
    const int j = t / b.B, i = t % b.B, k = 2 * j, block = k * level.stride;
    if (i >= b.size[block]) return;
    const int slot = level.save_offset + j;
    const T *C_left = b.saved(b.saved_L, slot), *C_right = b.saved(b.saved_U, slot);
    r[block * b.B + i] -= level_blocks_of_size(b, level, k, 1, kUnrolledBlock)
                              ? row_times_neighbours<kUnrolledBlock>(b, level, k, i, C_left, C_right, y)
                              : row_times_neighbours<0>(b, level, k, i, C_left, C_right, y);
  }
};

// Backward sweep, odd members: x_k = y_k - L'_k x_{k-1} - U'_k x_{k+1} (y_k = D_k^-1 r_k of the
// forward sweep).
template <class T, class V = double>
struct BackSubstituteOdd {
  BlocksOf<T> b;
  Level level;
  const V* y;
  V* x;
  CATENARY_HD void shift(long k) { y += k, x += k; }
  CATENARY_HD void operator()(int t) const {
    const int k = 2 * (t / b.B) + 1, i = t % b.B, block = k * level.stride;
    if (i >= b.size[block]) return;
    const T *C_left = b.at(b.L, block), *C_right = b.at(b.U, block);
    x[block * b.B + i] =
        y[block * b.B + i] - (level_blocks_of_size(b, level, k, 1, kUnrolledBlock)
                                  ? row_times_neighbours<kUnrolledBlock>(b, level, k, i, C_left, C_right, x)
                                  : row_times_neighbours<0>(b, level, k, i, C_left, C_right, x));
  }
};

// The members left after the last level (blocks k * stride), none coupled to another: each is
// factorized alone (one block for a single chain).
struct FactorLeft {
  Blocks b;
  int stride;
  int* singular;
  CATENARY_HD void operator()(int k) const {
    const int block = k * stride;
    if (!factor_block(b, block)) *singular = block + 1;
  }
};

// x_k = D_k^-1 r_k for the members left after the last level.
template <class T, class V = double>
struct SolveLeft {
  BlocksOf<T> b;
  int stride;
  const V* r;
  V* x;
  CATENARY_HD void shift(long k) { r += k, x += k; }
  CATENARY_HD void operator()(int k) const {
    const int block = k * stride, ld = b.B, n = b.size[block];
    double v[kMaxBlock];
    for (int i = 0; i < n; ++i) v[i] = r[block * ld + i];
    solve_with_block(b, block, v, 1);
    for (int i = 0; i < n; ++i) x[block * ld + i] = v[i];
  }
};

// x_0 -= D_0^-1 delta for block 0, eliminated last, whose right-hand side took a correction delta
// once its solution x_0 was known (CsrSolver::solve_correcting_leading_block); one thread.
struct CorrectLeadingBlock {
  Blocks b;
  const double* delta;
  double* x;
  CATENARY_HD void operator()(int) const {
    double d[kMaxBlock];
    const int n = b.size[0];
    for (int i = 0; i < n; ++i) d[i] = delta[i];
    solve_with_block(b, 0, d, 1);
    for (int i = 0; i < n; ++i) x[i] -= d[i];
  }
};

// A solve step for several right-hand sides in one launch: thread t works on item t / count (a
// member's row of a level, or a chain) of right-hand side t % count, whose padded vectors lie `stride`
// doubles after the previous one's. Neighbouring threads thus read the same block's factors.
template <class Step>
struct EachRightHandSide {
  Step step;
  int count;
  long stride;
  CATENARY_HD void operator()(int t) const {
    Step s = step;
    s.shift((t % count) * stride);
    s(t / count);
  }
};

// The same for a solve by groups of chains (SolveInterleavedChains): thread block `block` works on
// group block % groups of right-hand side block / groups.
template <class Solve>
struct GroupsOfEachRightHandSide {
  Solve solve;
  int groups;
  long stride;
  template <class Barrier>
  CATENARY_HD void run(int block, int thread, int threads, double* shared, const Barrier& barrier) const {
    Solve s = solve;
    s.shift((block / groups) * stride);
    s.run(block % groups, thread, threads, shared, barrier);
  }
};

// Cyclic reduction's steps of one level, each handed to each(items, step): a launch of its own
// (the solver's launch_each), or a step of the tail's thread block (TailSteps): one sequence for
// both. (The check that a __host__ __device__ function calls no host function is off for these
// three: the launching `each` is a host lambda, used on the host only.)
#pragma nv_exec_check_disable
template <class Each>
CATENARY_HD void factor_level(const Blocks& b, const Level& level, int* singular, const Each& each) {
  each(level.count / 2, FactorOdd{b, level, singular});
  // The odd members' couplings and the even members' saves touch different blocks.
  const int odd_columns = level.count / 2 * 2 * b.B, even_entries = (level.count + 1) / 2 * b.B * b.B;
  each(odd_columns + even_entries,
       OneLaunch<PremultiplyOdd, SaveEvenCouplings>{{b, level}, {b, level}, odd_columns});
  each(even_entries, UpdateEven{b, level});
}
#pragma nv_exec_check_disable
template <class T, class V, class Each>
CATENARY_HD void reduce_level(const BlocksOf<T>& b, const Level& level, V* r, V* y, const Each& each) {
  each(level.count / 2 * b.B, SolveOdd<T, V>{b, level, r, y});
  each((level.count + 1) / 2 * b.B, ReduceEven<T, V>{b, level, r, y});
}
#pragma nv_exec_check_disable
template <class T, class V, class Each>
CATENARY_HD void back_substitute_level(const BlocksOf<T>& b, const Level& level, const V* y, V* x,
                                       const Each& each) {
  each(level.count / 2 * b.B, BackSubstituteOdd<T, V>{b, level, y, x});
}

// Cyclic reduction's last levels, those of kTailMembers members or fewer, and the members left
// after them run in one thread block (run_in_one_block), a barrier between steps, where they took
// three launches a level in a factorization and three in a solve (two forward, one backward), of a
// few hundred items or fewer:
// each such launch cost its latency, about 4 to 7 us (ncu, the 100,000-element profile), not its
// work. That is 8 levels of a 1,000,000-block chain, and all 7 of a 100-element cable's.
constexpr int kTailMembers = 256, kMaxTailLevels = 16, kTailThreads = 256;
struct TailLevels {
  Level level[kMaxTailLevels];
  int count;
  Level left;
};

// `each` for the tail's thread block: a step's items over its threads (each item for `count`
// right-hand sides, as EachRightHandSide, where ManyRightHandSides), then a barrier.
template <bool ManyRightHandSides>
struct TailSteps {
  int thread, threads, count;
  long padded;
  template <class Step>
  CATENARY_HD void operator()(int items, const Step& step) const {
    if constexpr (ManyRightHandSides) {
      if (count > 1) {
        const EachRightHandSide<Step> each_rhs{step, count, padded};
        for (int t = thread; t < items * count; t += threads) each_rhs(t);
        BlockBarrier{}();
        return;
      }
    }
    for (int t = thread; t < items; t += threads) step(t);
    BlockBarrier{}();
  }
};

struct FactorTail {
  Blocks b;
  TailLevels tail;
  int* singular;
  CATENARY_HD void run(int thread, int threads) const {
    const TailSteps<false> each{thread, threads, 1, 0};
    for (int l = 0; l < tail.count; ++l) factor_level(b, tail.level[l], singular, each);
    each(tail.left.count, FactorLeft{b, tail.left.stride, singular});
  }
};

// A solve's tail: the forward sweep's tail levels and the members left, then (backward) the
// backward sweep's tail levels; a leading block's correction comes between two launches.
template <class T, class V = double>
struct SolveTail {
  BlocksOf<T> b;
  TailLevels tail;
  V *r, *y, *x;
  int count;
  long padded;
  bool forward, backward;
  CATENARY_HD void run(int thread, int threads) const {
    const TailSteps<true> each{thread, threads, count, padded};
    if (forward) {
      for (int l = 0; l < tail.count; ++l) reduce_level(b, tail.level[l], r, y, each);
      each(tail.left.count, SolveLeft<T, V>{b, tail.left.stride, r, x});
    }
    if (backward)
      for (int l = tail.count - 1; l >= 0; --l) back_substitute_level(b, tail.level[l], y, x, each);
  }
};

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

// Both methods share the block storage, the scatter from the CSR values and the solve's padded
// vectors; chain elimination needs neither the saved couplings nor y. For a batch of equally long
// chains of 6 x 6 blocks, chain elimination keeps the blocks and the padded vectors
// chain-interleaved (solve/interleaved_chain_elimination.hpp): the scatter's destinations and the
// vectors' indices are moved there once, at analyze().
template <class Space>
class BlockTridiagonalSolver : public CsrSolver {
  using Doubles = ArrayOf<Space, double>;
  using Floats = ArrayOf<Space, float>;
  using Ints = ArrayOf<Space, int>;
  using Longs = ArrayOf<Space, long>;
  // The held rows' indices into the right-hand side and the solution: of the pair's row r, its
  // coordinate j, and its entries' columns (HeldRows).
  struct HeldIndices {
    Ints row, coordinate, entry_column;
    HeldIndices() = default;
    HeldIndices(const std::vector<int>& r, const std::vector<int>& j, const std::vector<int>& columns)
        : row(r.begin(), r.end()), coordinate(j.begin(), j.end()), entry_column(columns.begin(), columns.end()) {}
  };

 public:
  BlockTridiagonalSolver(const std::vector<int>& block_ptr, const std::vector<int>& chain_ptr,
                         std::optional<BlockMethod> method, int right_hand_sides, bool reuses_factorizations)
      : block_ptr_(block_ptr),
        method_(method.value_or(preferred_block_method(chain_ptr))),
        chooses_method_(!method),
        reuses_factorizations_(reuses_factorizations),
        right_hand_sides_(right_hand_sides) {
    const BlockLayout whole(block_ptr);  // the blocks with their held rows: B bounds the layout's
    if (whole.blocks < 1 || whole.B > kMaxBlock)
      throw std::invalid_argument("block-tridiagonal solver: " + std::to_string(whole.blocks) + " blocks of up to " +
                                  std::to_string(whole.B) + " unknowns (at most " + std::to_string(kMaxBlock) + ")");
    check_chains(chain_ptr, whole.blocks);
    chains_ = static_cast<int>(chain_ptr.size()) - 1;
    chain_starts_ = chain_ptr;
    chain_ptr_ = Ints(chain_ptr.begin(), chain_ptr.end());
  }

  // The layout leaves out the pattern's held rows (solve/held_rows.hpp).
  void analyze(int size, int nonzeros, const int* row_ptr, const int* col_index) override {
    graphs_.forget();  // their arrays are made anew
    const std::vector<int> rows = to_host<Space>(row_ptr, size + 1), cols = to_host<Space>(col_index, nonzeros);
    const std::vector<int> entry_row = entry_rows(rows);
    const HeldRows held = held_rows_enabled() ? find_held_rows(block_ptr_, entry_row, cols) : HeldRows{};
    layout_ = BlockLayout(block_ptr_, held);
    blocks_ = layout_.blocks;
    B_ = layout_.B;
    const BlockLayout& layout = layout_;
    const size_t per_array = layout.slots();
    BlockScatter scatter = block_scatter(layout, chain_starts_, entry_row, cols);
    std::vector<int> rhs_index = layout.equation_index, x_index = layout.vector_index;
    if (chooses_method_)  // its own choice, now that the blocks without their held rows are known
      method_ = interleavable(layout, chain_starts_) && interleaved_elimination_preferred(chains_, reuses_factorizations_)
                    ? BlockMethod::ChainElimination
                    : preferred_block_method(chain_starts_);
    interleaved_ = method_ == BlockMethod::ChainElimination && interleavable(layout, chain_starts_);
    if (interleaved_) interleave(scatter, rhs_index, x_index);
    size_ = size;
    nonzeros_ = nonzeros;
    destination_ = Ints(scatter.destination.begin(), scatter.destination.end());
    uncovered_ = Ints(scatter.uncovered.begin(), scatter.uncovered.end());
    rhs_index_ = Ints(rhs_index.begin(), rhs_index.end());
    // Each equation has its own padded entry: where they are all the entries (no block narrower
    // than B), the scatter writes the whole padded right-hand side.
    scatter_fills_padded_ = std::count_if(rhs_index.begin(), rhs_index.end(), [](int i) { return i >= 0; }) ==
                            static_cast<long>(layout.blocks) * layout.B;
    x_index_ = Ints(x_index.begin(), x_index.end());
    float_factors_ = keeps_float_copy() && float_factors_enabled();
    held_ = held.size();
    held_in_block_0_ = std::count_if(held.row.begin(), held.row.end(), [&](int r) { return r < block_ptr_[1]; });
    held_at_ = HeldIndices(held.row, held.coordinate, held.entry_column);
    held_entry_ptr_ = Ints(held.entry_ptr.begin(), held.entry_ptr.end());
    held_entry_slot_ = Ints(held.entry_slot.begin(), held.entry_slot.end());
    outer_ = Outer{};
    held_values_ = Doubles(held.entry_slot.size(), 0.0);
    block_size_ = Ints(layout.size.begin(), layout.size.end());
    block_offset_ = Longs(layout.offset.begin(), layout.offset.end());
    blocks_data_ = Doubles(3 * per_array, 0.0);
    pivots_ = Ints(static_cast<size_t>(blocks_) * B_, 0);
    r_ = Doubles(static_cast<size_t>(blocks_) * B_ * right_hand_sides_, 0.0);
    x_ = Doubles(r_.size(), 0.0);
    if (method_ == BlockMethod::CyclicReduction) {
      plan_levels();
      saved_data_ = Doubles(2 * std::max<size_t>(saved_slots_, 1), 0.0);
      y_ = Doubles(r_.size(), 0.0);
    }
    singular_ = Ints(1, 0);
    lead_delta_ = Doubles(B_, 0.0);
    lead_x_ = Doubles(interleaved_ ? B_ : 0, 0.0);
  }

  std::string method() const override {
    return method_ == BlockMethod::CyclicReduction ? "block cyclic reduction" : "block chain elimination";
  }

  std::string layout_note() const override {
    // Float factors are the default where kept: only their absence is named.
    const bool double_factors = keeps_float_copy() && !float_factors_;
    return std::string(interleaved_ ? " (interleaved chains)" : "") + (double_factors ? " (double factors)" : "");
  }

  size_t workspace_bytes() const override {
    return sizeof(double) * (3 * layout_.slots() + saved_data_.size() + r_.size() + x_.size() + y_.size() +
                             lead_delta_.size() + lead_x_.size() + held_values_.size()) +
           sizeof(float) * (float_blocks_data_.size() + float_saved_data_.size()) +
           sizeof(int) *
               (static_cast<size_t>(nonzeros_) + uncovered_.size() + 2 * static_cast<size_t>(size_) +
                outer_.rhs_index.size() + outer_.x_index.size() + outer_.held.row.size() +
                outer_.held.coordinate.size() + outer_.held.entry_column.size() +
                static_cast<size_t>(B_ + 1) * blocks_ + chain_ptr_.size() + 3 * held_ + 1 + 2 * held_values_.size()) +
           sizeof(long) * (static_cast<size_t>(blocks_) + saved_ + 2);
  }

  void factorize(const double* values) override {
    graphs_.run({values}, [&] { factorize_launches(values); });
    solves_since_factorization_ = 0;
    float_copy_current_ = false;
    const int singular = singular_[0];
    if (singular != 0)
      throw SimulationError("block-tridiagonal solver: block " + std::to_string(singular - 1) +
                            " is singular (a constraint row without a coordinate to hold, or a mechanism)");
  }

  void solve(const double* rhs, double* x) override { solve_many(rhs, x, 1, size_); }

  // From the float copy of the factors where due (newton_update_from_float).
  void solve_newton_update(const double* rhs, double* x) override {
    solve_sweeps(rhs, x, 1, size_, nullptr, newton_update_from_float());
  }

  // The outer order folded into the padded vectors' indices and the held rows' (CsrSolver).
  bool take_outer_order(const std::vector<int>& outer, int split) override {
    if (static_cast<int>(outer.size()) != size_ || split < 0 || split > size_)
      throw std::invalid_argument("block-tridiagonal solver: an outer order of " + std::to_string(outer.size()) +
                                  " unknowns split at " + std::to_string(split) + " for " + std::to_string(size_));
    std::vector<int> position_of(size_, -1);
    for (int p = 0; p < size_; ++p) {
      if (outer[p] < 0 || outer[p] >= size_ || position_of[outer[p]] >= 0)
        throw std::invalid_argument("block-tridiagonal solver: the outer order is not a permutation");
      position_of[outer[p]] = p;
    }
    const std::vector<int> rhs_index = to_host<Space>(raw<int>(rhs_index_), size_),
                           x_index = to_host<Space>(raw<int>(x_index_), size_);
    std::vector<int> outer_rhs(size_), outer_x(size_);
    for (int o = 0; o < size_; ++o) {
      outer_rhs[o] = rhs_index[position_of[o]];
      outer_x[o] = x_index[position_of[o]];
    }
    const auto in_outer = [&](const Ints& positions) {
      std::vector<int> at = to_host<Space>(raw<int>(positions), static_cast<int>(positions.size()));
      for (int& i : at) i = outer[i];
      return at;
    };
    outer_.rhs_index = Ints(outer_rhs.begin(), outer_rhs.end());
    outer_.x_index = Ints(outer_x.begin(), outer_x.end());
    outer_.held = HeldIndices(in_outer(held_at_.row), in_outer(held_at_.coordinate), in_outer(held_at_.entry_column));
    outer_.split = split;
    return true;
  }

  void solve_outer(const double* top, const double* bottom, double* x_top, double* x_bottom,
                   bool newton_update) override {
    if (outer_.rhs_index.empty()) return CsrSolver::solve_outer(top, bottom, x_top, x_bottom, newton_update);
    if (held_ > 0 && (top == x_top || bottom == x_bottom))
      throw std::invalid_argument("block-tridiagonal solver: x overlaps the right-hand side");
    const bool from_float = newton_update && newton_update_from_float();
    grow_vectors(1);
    ++solves_since_factorization_;
    const SplitVector<const double> rhs{top, bottom, outer_.split};
    const SplitVector<double> x{x_top, x_bottom, outer_.split};
    graphs_.run({top, x_top, 1, 0, 2 + from_float, bottom, x_bottom},
                [&] { outer_sweep_launches(rhs, x, from_float); });
  }

  // Both methods eliminate block 0 last (cyclic reduction: member 0 of every level is even;
  // chain elimination: from each chain's end down), so its factorized D is T's Schur complement
  // onto it. A right-hand side with entries only in block 0 leaves the forward sweep with nothing
  // to do (every other block's r stays zero), so block 0's entries of the solution are one small
  // solve: a border coupled to a cable's first node (a crane's boom) needs no sweeps over the
  // chain at its factorization.
  // Not with held rows in block 0: the leading positions are not then block 0's unknowns.
  int leading_block_solved_last() const override { return held_in_block_0_ > 0 ? 0 : layout_.size[0]; }

  void solve_leading_block_many(const double* rhs, double* x, int count, int stride) override {
    const auto policy = graphs_.policy();
    const thrust::counting_iterator<int> first(0);
    const long padded = static_cast<long>(blocks_) * B_;
    const int lead = layout_.size[0];
    grow_vectors(count);
    thrust::for_each(policy, first, first + lead,
                     ScatterEach<>{raw<int>(rhs_index_), rhs, raw<double>(r_), count, stride, padded, false});
    if (interleaved_)
      launch_each(1, InterleavedLeadingBlock{interleaved_blocks(), raw<double>(r_), raw<double>(x_), nullptr}, count);
    else
      launch_each(1, SolveLeft<double>{blocks(), 1, raw<double>(r_), raw<double>(x_)}, count);  // its member 0: block 0
    thrust::for_each(policy, first, first + lead,
                     ScatterEach<>{raw<int>(x_index_), raw<double>(x_), x, count, padded, stride, true});
  }

  // The right-hand sides in one pass: each step is one launch for all of them, so a block's
  // factors are read once per pass instead of once per right-hand side.
  void solve_many(const double* rhs, double* x, int count, int stride) override {
    solve_sweeps(rhs, x, count, stride, nullptr);
  }

  // Block 0 is eliminated last by both methods: its solution is known between the sweeps.
  void solve_correcting_leading_block(const double* rhs, double* x, const LeadingBlockCorrection& correct) override {
    if (leading_block_solved_last() == 0) CsrSolver::solve_correcting_leading_block(rhs, x, correct);  // throws
    solve_sweeps(rhs, x, 1, size_, &correct);
  }

 private:
  // The factorization's loops; a singular block's number + 1 into singular_.
  void factorize_launches(const double* values) {
    const auto policy = graphs_.policy();
    const thrust::counting_iterator<int> first(0);
    thrust::fill(policy, thrust::make_permutation_iterator(blocks_data_.begin(), uncovered_.begin()),
                 thrust::make_permutation_iterator(blocks_data_.begin(), uncovered_.end()), 0.0);
    thrust::for_each(policy, first, first + nonzeros_,
                     ScatterValues{raw<int>(destination_), values, raw<double>(blocks_data_)});
    thrust::for_each(policy, first, first + static_cast<int>(held_values_.size()),
                     GatherAt{raw<int>(held_entry_slot_), values, raw<double>(held_values_)});
    thrust::fill(policy, singular_.begin(), singular_.end(), 0);
    const Blocks b = blocks();
    if (interleaved_) {
      using Factor = FactorInterleavedChains;
      run_blocks<Space, Factor::kThreads, Factor::kSharedValues>(
          chain_groups(chains_), Factor{interleaved_blocks(), raw<int>(singular_)}, graphs_.stream());
      return;
    }
    if (method_ == BlockMethod::ChainElimination) {
      each_item<kChainThreads>(chains_, FactorChain{b, raw<int>(chain_ptr_), raw<int>(singular_)});
      return;
    }
    int* singular = raw<int>(singular_);
    const auto launch = [&](int items, const auto& step) { each_item(items, step); };
    for (size_t l = 0; l < tail_begin_; ++l) factor_level(b, levels_[l], singular, launch);
    if (has_tail())
      run_in_one_block<Space, kTailThreads>(FactorTail{b, tail_levels(), singular}, graphs_.stream());
    else
      each_item(left_.count, FactorLeft{b, left_.stride, singular});
  }

  // Whether a Newton update's solve reads the float copy of the factors (float_factors_), made here
  // where due. Not the first solve after a factorization: full Newton, one solve a factorization,
  // never pays for the copy, and modified Newton makes it once for the many solves that follow.
  bool newton_update_from_float() {
    if (!float_factors_ || solves_since_factorization_ == 0) return false;
    if (!float_copy_current_) {
      // Made at the first such solve: full Newton never holds the copy's memory (the device-memory
      // estimate counts it all the same).
      if (float_blocks_data_.empty()) {
        float_blocks_data_ = Floats(blocks_data_.size());
        float_saved_data_ = Floats(saved_data_.size());
      }
      thrust::copy(graphs_.policy(), blocks_data_.begin(), blocks_data_.end(), float_blocks_data_.begin());
      thrust::copy(graphs_.policy(), saved_data_.begin(), saved_data_.end(), float_saved_data_.begin());
      float_copy_current_ = true;
    }
    return true;
  }

  // solve_many's pass; with `correct`, block 0's correction between the forward and the backward
  // sweeps (one right-hand side); from_float: the sweeps read the float copy.
  void solve_sweeps(const double* rhs, double* x, int count, int stride, const LeadingBlockCorrection* correct,
                    bool from_float = false) {
    if (held_ > 0 && rhs == x) throw std::invalid_argument("block-tridiagonal solver: x overlaps the right-hand side");
    grow_vectors(count);
    ++solves_since_factorization_;
    if (correct)  // the host's correction comes between the sweeps
      sweep_launches(rhs, x, count, stride, correct, false);
    else
      graphs_.run({rhs, x, count, stride, from_float},
                  [&] { sweep_launches(rhs, x, count, stride, nullptr, from_float); });
  }

  void sweep_launches(const double* rhs, double* x, int count, int stride, const LeadingBlockCorrection* correct,
                      bool from_float) {
    from_float ? sweep_launches_of<float>(rhs, x, count, stride, correct)
               : sweep_launches_of<double>(rhs, x, count, stride, correct);
  }
  template <class V>
  void sweep_launches_of(const double* rhs, double* x, int count, int stride, const LeadingBlockCorrection* correct) {
    const long padded = static_cast<long>(blocks_) * B_;
    solve_pass<V>(count, ScatterEach<double, V>{raw<int>(rhs_index_), rhs, padded_vector<V>(r_), count, stride, padded, false},
                  ScatterEach<V, double>{raw<int>(x_index_), padded_vector<V>(x_), x, count, padded, stride, true},
                  held_row_solve(held_at_, rhs, x, count, stride), correct);
  }

  // The same for one right-hand side in the caller's outer order (take_outer_order).
  void outer_sweep_launches(const SplitVector<const double>& rhs, const SplitVector<double>& x, bool from_float) {
    from_float ? outer_sweep_launches_of<float>(rhs, x) : outer_sweep_launches_of<double>(rhs, x);
  }
  template <class V>
  void outer_sweep_launches_of(const SplitVector<const double>& rhs, const SplitVector<double>& x) {
    solve_pass<V>(1, ScatterOuter<V>{raw<int>(outer_.rhs_index), rhs, padded_vector<V>(r_)},
                  GatherOuter<V>{raw<int>(outer_.x_index), padded_vector<V>(x_), x},
                  SolveHeldRowOuter{held_row_solve(outer_.held, nullptr, nullptr, 1, 0), rhs, x}, nullptr);
  }

  // A padded vector's storage as V: double, or float for a Newton update from the float copy of the
  // factors, whose padded vectors are float too (the first half of the doubles' storage). The
  // solve's precision is the float factors' already (a relative 6e-8 times the blocks' condition);
  // rounding its right-hand side and solution to float adds no more, and the scatter, the sweeps
  // and the gather move half the vectors' bytes (about 3 coordinate-sized double vectors a solve
  // in the 10,000-copy sweep).
  template <class V>
  static V* padded_vector(Doubles& v) {
    return reinterpret_cast<V*>(raw<double>(v));
  }

  // A solve's launches: the right-hand sides into the padded r_ (scatter, one thread an unknown),
  // the sweeps, the solutions out of the padded x_ (gather), then the held rows (held, one thread
  // a pair). V: the padded vectors' type, float for a Newton update from the float copy.
  template <class V, class Scatter, class Gather, class Held>
  void solve_pass(int count, const Scatter& scatter, const Gather& gather, const Held& held,
                  const LeadingBlockCorrection* correct) {
    const auto policy = graphs_.policy();
    const thrust::counting_iterator<int> first(0);
    if (!scatter_fills_padded_) {
      V* r = padded_vector<V>(r_);
      thrust::fill(policy, r, r + static_cast<long>(count) * blocks_ * B_, V(0));
    }
    thrust::for_each(policy, first, first + size_, scatter);
    if constexpr (std::is_same_v<V, float>)
      sweeps_from_float(count);
    else
      sweeps(count, correct);
    thrust::for_each(policy, first, first + size_, gather);
    thrust::for_each(policy, first, first + held_, held);
  }

  // The held rows' solve, their indices those of `at` (positions, or the outer order's).
  SolveHeldRow held_row_solve(HeldIndices& at, const double* rhs, double* x, int count, long stride) {
    return SolveHeldRow{raw<int>(at.row),          raw<int>(at.coordinate), raw<int>(held_entry_ptr_),
                        raw<int>(at.entry_column), raw<double>(held_values_), rhs, x, count, stride, stride};
  }

  // The sweeps from the padded right-hand side r_ to the padded solution x_ (count of each), from
  // the float copy of the factors with float vectors.
  void sweeps_from_float(int count) {
    float *r = padded_vector<float>(r_), *y = padded_vector<float>(y_), *xp = padded_vector<float>(x_);
    if (interleaved_)
      solve_interleaved(SolveInterleavedChains<Sweeps::Both, float, float>{interleaved_blocks(float_blocks()), r, xp},
                        count);
    else
      cyclic_reduction_sweeps(float_blocks(), r, y, xp, count, nullptr);
  }

  // The same from the double factors, with double vectors.
  void sweeps(int count, const LeadingBlockCorrection* correct) {
    const Blocks b = blocks();
    double *r = raw<double>(r_), *y = raw<double>(y_), *xp = raw<double>(x_);
    if (interleaved_) {
      const InterleavedBlocks ib = interleaved_blocks(b);
      if (correct) {
        solve_interleaved(SolveInterleavedChains<Sweeps::Forward>{ib, r, xp}, count);
        correct_leading_block(*correct, xp);
        solve_interleaved(SolveInterleavedChains<Sweeps::Backward>{ib, r, xp}, count);
      } else {
        solve_interleaved(SolveInterleavedChains<>{ib, r, xp}, count);
      }
    } else if (method_ == BlockMethod::ChainElimination) {
      const int* chains = raw<int>(chain_ptr_);
      if (correct) {
        launch_each<kChainThreads>(chains_, SolveChain<Sweeps::Forward>{b, chains, r, xp}, count);
        correct_leading_block(*correct, xp);
        launch_each<kChainThreads>(chains_, SolveChain<Sweeps::Backward>{b, chains, r, xp}, count);
      } else {
        launch_each<kChainThreads>(chains_, SolveChain<>{b, chains, r, xp}, count);
      }
    } else {
      cyclic_reduction_sweeps(b, r, y, xp, count, correct);
    }
  }

  // Cyclic reduction's forward sweep level by level, the members left, then the backward sweep,
  // reading factors of T (double, or the float copy) and vectors of V (the same).
  template <class T, class V>
  void cyclic_reduction_sweeps(const BlocksOf<T>& b, V* r, V* y, V* x, int count,
                               const LeadingBlockCorrection* correct) {
    const auto launch = [&](int items, const auto& step) { launch_each(items, step, count); };
    // A leading block's correction comes with double vectors only (solve_correcting_leading_block).
    const auto correct_leading = [&] {
      if constexpr (std::is_same_v<V, double>) correct_leading_block(*correct, x);
    };
    for (size_t l = 0; l < tail_begin_; ++l) reduce_level(b, levels_[l], r, y, launch);
    if (has_tail()) {
      const long padded = static_cast<long>(blocks_) * B_;
      SolveTail<T, V> tail{b, tail_levels(), r, y, x, count, padded, true, correct == nullptr};
      run_in_one_block<Space, kTailThreads>(tail, graphs_.stream());
      if (correct) {
        correct_leading();
        tail.forward = false, tail.backward = true;
        run_in_one_block<Space, kTailThreads>(tail, graphs_.stream());
      }
    } else {
      launch(left_.count, SolveLeft<T, V>{b, left_.stride, r, x});
      if (correct) correct_leading();
    }
    for (size_t l = tail_begin_; l-- > 0;) back_substitute_level(b, levels_[l], y, x, launch);
  }

  // Whether the last levels run in one thread block: where the members left are few enough.
  bool has_tail() const { return left_.count <= kTailMembers; }

  // The levels from tail_begin_ on and the members left, for FactorTail and SolveTail.
  TailLevels tail_levels() const {
    TailLevels tail{};
    tail.count = static_cast<int>(levels_.size() - tail_begin_);
    for (int l = 0; l < tail.count; ++l) tail.level[l] = levels_[tail_begin_ + l];
    tail.left = left_;
    return tail;
  }

  // Cyclic reduction's levels and their save slots (save slot s: the L, U of one even member of
  // one level, that block's rows, B wide), after the layout.
  void plan_levels() {
    levels_.clear();
    int save = 0, stride = 1, count = blocks_;
    std::vector<long> saved_offset(1, 0);
    for (int l = 0; l < cyclic_reduction_levels(chain_starts_); ++l, stride *= 2, count = (count + 1) / 2) {
      levels_.push_back({stride, count, save});
      for (int j = 0; j < (count + 1) / 2; ++j)
        saved_offset.push_back(saved_offset.back() + static_cast<long>(layout_.size[2 * j * stride]) * B_);
      save += (count + 1) / 2;
    }
    left_ = {stride, count, save};
    // The tail (FactorTail, SolveTail): the last levels of kTailMembers members or fewer, where
    // the members left are that few too.
    tail_begin_ = levels_.size();
    while (tail_begin_ > 0 && levels_[tail_begin_ - 1].count <= kTailMembers &&
           levels_.size() - tail_begin_ < kMaxTailLevels)
      --tail_begin_;
    if (!has_tail()) tail_begin_ = levels_.size();
    saved_ = save;
    saved_slots_ = static_cast<size_t>(saved_offset.back());
    saved_offset_ = Longs(saved_offset.begin(), saved_offset.end());
  }

  // Block 0's solution x_0 (the padded x's first values; interleaved, gathered first) to
  // `correct`, and x_0 -= D_0^-1 delta.
  void correct_leading_block(const LeadingBlockCorrection& correct, double* x) {
    const thrust::counting_iterator<int> first(0);
    double* delta = raw<double>(lead_delta_);
    if (interleaved_) {
      thrust::for_each(graphs_.policy(), first, first + B_,
                       InterleavedLeadingValues{interleaved_chains(), x, raw<double>(lead_x_)});
      correct(raw<double>(lead_x_), delta);
      thrust::for_each(graphs_.policy(), first, first + 1, InterleavedLeadingBlock{interleaved_blocks(), x, x, delta});
      return;
    }
    correct(x, delta);
    thrust::for_each(graphs_.policy(), first, first + 1, CorrectLeadingBlock{blocks(), delta, x});
  }

  // The solver's steps, an item a thread (memory_space.cuh, for_each_item): a level's late steps
  // and a batch's chains are a few thousand items, which Thrust's for_each would put on a few SMs,
  // two items a thread in series. A thread per chain runs in thread blocks of one warp, the other
  // steps in blocks of 128.
  static constexpr int kChainThreads = 32, kStepThreads = 128;
  template <int Threads = kStepThreads, class F>
  void each_item(int items, const F& f) const {
    for_each_item<Space, Threads>(items, f, graphs_.stream());
  }

  // A solve step over `items` items for `count` right-hand sides in one launch. One right-hand
  // side (every Newton solve) runs the step itself: wrapped, the cyclic reduction's forward and
  // top steps spilled 36 bytes at the 32 registers Thrust's kernels got (4 and 0 unwrapped; ptxas
  // sm_90). Threads: kChainThreads for a thread per chain.
  template <int Threads = kStepThreads, class Step>
  void launch_each(int items, const Step& step, int count) const {
    const long padded = static_cast<long>(blocks_) * B_;
    if (count == 1)
      each_item<Threads>(items, step);
    else
      each_item<Threads>(items * count, EachRightHandSide<Step>{step, count, padded});
  }

  // An interleaved solve's sweeps for `count` right-hand sides in one launch, a thread block a
  // group of chains of one of them.
  template <class Solve>
  void solve_interleaved(const Solve& solve, int count) const {
    const int groups = chain_groups(chains_);
    run_blocks<Space, Solve::kThreads, Solve::kSharedValues>(
        groups * count, GroupsOfEachRightHandSide<Solve>{solve, groups, static_cast<long>(blocks_) * B_},
        graphs_.stream());
  }

  // Whether the method's Newton-update solves may read a float copy of the factors.
  bool keeps_float_copy() const { return method_ == BlockMethod::CyclicReduction || interleaved_; }

  // Room in the padded vectors for `count` right-hand sides.
  void grow_vectors(int count) {
    const size_t needed = static_cast<size_t>(count) * blocks_ * B_;
    if (r_.size() >= needed) return;
    graphs_.forget();  // the vectors move
    r_.resize(needed);
    x_.resize(needed);
    if (method_ == BlockMethod::CyclicReduction) y_.resize(needed);
  }

  // The scatter's destinations and the padded vectors' indices moved to the interleaved layout.
  void interleave(BlockScatter& scatter, std::vector<int>& rhs_index, std::vector<int>& x_index) const {
    const InterleavedChains at = interleaved_chains();
    const long per_array = static_cast<long>(layout_.slots()), padded = static_cast<long>(blocks_) * B_;
    move_to_interleaved(at, B_ * B_, per_array, scatter.destination);
    move_to_interleaved(at, B_ * B_, per_array, scatter.uncovered);
    move_to_interleaved(at, B_, padded, rhs_index);
    move_to_interleaved(at, B_, padded, x_index);
  }

  InterleavedChains interleaved_chains() const {
    InterleavedChains at;
    at.chains = chains_;
    at.length = blocks_ / chains_;
    return at;
  }

  template <class T>
  InterleavedBlocksOf<T> interleaved_blocks(const BlocksOf<T>& b) const {
    return InterleavedBlocksOf<T>{interleaved_chains(), b.D, b.L, b.U};
  }
  InterleavedBlocks interleaved_blocks() { return interleaved_blocks(blocks()); }

  Blocks blocks() { return blocks_of(raw<double>(blocks_data_), raw<double>(saved_data_)); }

  BlocksOf<float> float_blocks() { return blocks_of(raw<float>(float_blocks_data_), raw<float>(float_saved_data_)); }

  template <class T>
  BlocksOf<T> blocks_of(T* base, T* saved) {
    const size_t per_array = layout_.slots();
    return BlocksOf<T>{base,
                       base + per_array,
                       base + 2 * per_array,
                       saved,
                       saved + std::max<size_t>(saved_slots_, 1),
                       raw<long>(block_offset_),
                       raw<long>(saved_offset_),
                       raw<int>(pivots_),
                       raw<int>(block_size_),
                       B_};
  }

  const std::vector<int> block_ptr_;  // the order's blocks, held rows included
  BlockLayout layout_;                // without the held rows (analyze)
  int blocks_ = 0, B_ = 0, chains_ = 0, saved_ = 0, size_ = 0, nonzeros_ = 0;
  int held_ = 0, held_in_block_0_ = 0;  // held rows, of them in block 0
  BlockMethod method_;
  const bool chooses_method_, reuses_factorizations_;  // method_ the solver's own (analyze); for modified Newton
  bool interleaved_ = false;  // chain elimination in the interleaved layout (solve/interleaved_chain_elimination.hpp)
  bool scatter_fills_padded_ = false;  // the right-hand side's scatter leaves no padded entry unwritten
  // Cyclic reduction's and interleaved elimination's Newton-update solves read a float copy of the
  // factors (float_factors_enabled), made at the second solve after a factorization.
  bool float_factors_ = false, float_copy_current_ = false;
  long solves_since_factorization_ = 0;
  int right_hand_sides_;  // the padded vectors' room (solve_many grows it when asked for more)
  std::vector<int> chain_starts_;
  size_t saved_slots_ = 0;  // doubles of one saved array (L or U)
  std::vector<Level> levels_;
  Level left_{1, 0, 0};  // the members left after the last level
  size_t tail_begin_ = 0;  // levels from here on, with the members left, run as the tail (has_tail)
  // Per position: where its equation goes in the padded vectors (rhs_index_) and where its
  // unknown is (x_index_), -1 where none (held rows); the held rows' pairs and entries.
  Ints destination_, uncovered_, rhs_index_, x_index_, block_size_, pivots_, singular_, chain_ptr_;
  HeldIndices held_at_;  // by position
  Ints held_entry_ptr_, held_entry_slot_;
  // The same indices in the caller's outer order (take_outer_order; empty until then).
  struct Outer {
    Ints rhs_index, x_index;
    HeldIndices held;
    int split = 0;
  } outer_;
  Longs block_offset_, saved_offset_;
  Doubles blocks_data_, saved_data_, r_, x_, y_, held_values_;
  Floats float_blocks_data_, float_saved_data_;  // the factors' float copy (float_factors_)
  Doubles lead_delta_;  // solve_correcting_leading_block's delta
  Doubles lead_x_;      // and, interleaved, x_0 gathered for its caller
  // The factorization and the solves without a host step between their sweeps, recorded on the
  // device (LaunchGraphs); all of the solver's launches run on its stream.
  LaunchGraphs<Space> graphs_;
};

}  // namespace

}  // namespace catenary::cuda

namespace catenary {

std::unique_ptr<CsrSolver> make_block_tridiagonal_solver(const std::vector<int>& block_ptr,
                                                          const std::vector<int>& chain_ptr,
                                                          std::optional<BlockMethod> method, bool on_device,
                                                          int right_hand_sides, bool reuses_factorizations) {
  if (on_device)
    return std::make_unique<cuda::BlockTridiagonalSolver<cuda::DeviceSpace>>(block_ptr, chain_ptr, method,
                                                                             right_hand_sides, reuses_factorizations);
  return std::make_unique<cuda::BlockTridiagonalSolver<cuda::HostSpace>>(block_ptr, chain_ptr, method,
                                                                         right_hand_sides, reuses_factorizations);
}

}  // namespace catenary

namespace catenary {

int cyclic_reduction_levels(const std::vector<int>& chain_ptr) {
  int longest = 0, levels = 0;
  for (size_t c = 0; c + 1 < chain_ptr.size(); ++c) longest = std::max(longest, chain_ptr[c + 1] - chain_ptr[c]);
  while ((1L << levels) < longest) ++levels;
  return levels;
}

// From the H100 measurements of docs/benchmarks.md (tenth session; one factorization, medians of
// 3): cyclic reduction costs about 80 us per level (its launches, and the deep levels' latency)
// plus 8.3 ns per block (1,000,000 blocks: 9.9 ms; 100,000: 2.2 ms); chain elimination runs each
// chain's blocks one after another at about 21 us per block (one chain of 10,000 blocks: 206 ms),
// and a batch of many chains at about 33 ns per block in all (10,000 chains of 101 blocks:
// 34 ms). Those runs reduced a batch as far as one chain of all its blocks (1,000 cables of 20
// elements: 15 levels, 1.4 ms against elimination's 0.7); since the levels stop at the longest
// chain (5 levels there: about 0.6 ms by these costs, not yet measured), elimination is left the
// winner only for a few short chains: a cable of a handful of elements. The elimination's costs
// are those of its thread-a-chain kernels: batches of equal 6-coordinate chains now factorize and
// solve by groups of chains (solve/interleaved_chain_elimination.hpp), which the block solver
// weighs on its own once it knows the blocks (interleaved_elimination_preferred).
BlockMethod preferred_block_method(const std::vector<int>& chain_ptr) {
  constexpr double kLevel = 80e-6, kReductionPerBlock = 8.3e-9, kChainStep = 21e-6, kEliminationPerBlock = 33e-9;
  int longest = 0;
  for (size_t c = 0; c + 1 < chain_ptr.size(); ++c) longest = std::max(longest, chain_ptr[c + 1] - chain_ptr[c]);
  const double blocks = chain_ptr.back();
  const double reduction = kLevel * cyclic_reduction_levels(chain_ptr) + kReductionPerBlock * blocks;
  const double elimination = std::max(kChainStep * longest, kEliminationPerBlock * blocks);
  return elimination < reduction ? BlockMethod::ChainElimination : BlockMethod::CyclicReduction;
}

// From the H100 measurements of docs/benchmarks.md (thirty-seventh session; sweeps of copies of a
// 100-element cable, 101 blocks a chain, ms a factorization / a solve, cyclic reduction against
// interleaved elimination): 1,000 chains 0.54 / 0.23 against 1.73 / 0.35; 10,000 chains 4.38 /
// 1.24 against 4.95 / 0.79 (a Newton update's solve from the float factors 0.80 against 0.54).
// The groups' factorization never wins: full Newton, a factorization a solve, stays with cyclic
// reduction (10,000 chains: 16.9 against 17.2 ms a step). Modified Newton refactorizes about once
// in 17 steps there and is decided by the solves: 3.80 against 3.21 ms a step at 10,000 chains,
// 0.95 against 1.23 at 1,000. Between the two, where the 32-chain groups come to fill the H100's
// 132 SMs (128 groups, 4,096 chains), the solves' costs cross by a power-law fit (about 3,000
// chains; not measured there).
bool interleaved_elimination_preferred(int chains, bool reuses_factorizations) {
  constexpr int kGroupsFillingTheDevice = 128;
  return reuses_factorizations && chains >= kGroupsFillingTheDevice * kChainGroup;
}

}  // namespace catenary
