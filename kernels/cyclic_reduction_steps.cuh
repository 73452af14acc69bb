#pragma once
// Block cyclic reduction's steps for the block-tridiagonal solver (block_tridiagonal_solver.cu),
// each a functor over the items of one launch (or of one step of the tail's thread block).
//
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
//
// Cyclic reduction runs the chains of a batch as one chain whose blocks at a chain's ends simply do
// not couple (the updates keep those couplings zero). Reducing further than the longest chain
// needs would only pair members of different chains: a sweep of 10,000 copies of a 101-block cable
// takes 7 levels, not the 20 of one 1,010,000-block chain (each level of a factorization costs
// about 80 us on an H100, 13 levels about 1 ms, however few its members).
#include "backend_functors.cuh"
#include "catenary/core/host_device.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/chain_elimination.hpp"
#include "catenary/solve/dense_block.hpp"
#include "launch_graph.cuh"

namespace catenary::cuda {

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
// loaded into registers: its loads issue together, not one dependent load per arithmetic step
// (factorized in place in memory, the first level of a 1,000,000-element chain takes 33 ms on an
// H100 and each of the last levels' few members 0.8 ms, one memory latency per step).
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
// thread per member doing its LU and then the 12 columns' solves in series holds about 90 doubles
// (16 bytes spilled; ptxas sm_90), and each level of the factorization costs about 80 us on an
// H100 however few its members (docs/performance.md, Linear solvers); what this split saves is not
// measured on a device.
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
// (ncu; docs/performance.md, Linear solvers). A thread per entry reads neighbouring columns in
// neighbouring lanes.
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

// The solve's sweeps work one row of a member per thread (item t: member t / B, row t % B): with a
// thread per member reading its blocks' 36 to 72 values alone, each warp's load touches 32 blocks,
// and the solves take 4 ms of a 1,000,000-element modified-Newton step's 13 ms on an H100, against
// 2.2 ms a row per thread (docs/performance.md, Linear solvers). A member's rows read their
// neighbours' vector values at the same addresses.

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
// after them run in one thread block (run_in_one_block), a barrier between steps, where they would
// take three launches a level in a factorization and three in a solve (two forward, one backward),
// of a few hundred items or fewer: each such launch would cost its latency, about 4 to 7 us (ncu,
// the 100,000-element profile), not its work. That is 8 levels of a 1,000,000-block chain, and all
// 7 of a 100-element cable's.
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

}  // namespace catenary::cuda
