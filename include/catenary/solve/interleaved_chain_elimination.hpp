#pragma once
// Chain elimination (solve/chain_elimination.hpp: the same steps, from each chain's last block
// down to its first, then back up) for a batch of equally long chains of 6 x 6 blocks (a sweep's
// copies of a 3D cable), with the batch's blocks stored chain-interleaved: entry e of block p of
// chain c at (p W + e) C + c, W the values a block has there (36 in D, L and U; 6 in the padded
// vectors), C the chains. The threads that take neighbouring chains then read one contiguous
// run per entry, where in the chain-contiguous layout each lane of a warp reads its own block
// 101 blocks away from its neighbour's: on an H100 the 10,000-copy sweep's elimination in the
// contiguous layout (on only 20 of the 132 SMs as well: memory_space.cuh, for_each_item) solved
// at ~120 GB/s, 7 ms a solve (docs/performance.md, Sweeps), against the 0.26 ms that reading its
// 0.87 GB of factors takes at the bandwidth bound.
// The factorization and the solve run a thread block a group of 32 chains, a thread a row of a
// chain's block (FactorInterleavedChains, SolveInterleavedChains).
#include <cmath>
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

// The slots in `indices` (of arrays array_size apart, each chain-contiguous with W values a block)
// moved to where the interleaved layout keeps them; -1 stays -1. Threaded
// (src/solve/block_scatter.cpp): the scatter's destinations number 1.1e8 in a batch of 10,000
// 100-element cables.
void move_to_interleaved(const InterleavedChains& at, int W, long array_size, std::vector<int>& indices);

// Whether a layout's blocks can be interleaved: all N x N (held rows out), chains all as long.
inline bool interleavable(const BlockLayout& layout, const std::vector<int>& chain_ptr) {
  if (layout.B != InterleavedChains::N) return false;
  for (int size : layout.size)
    if (size != InterleavedChains::N) return false;
  for (size_t c = 1; c + 1 < chain_ptr.size(); ++c)
    if (chain_ptr[c + 1] - chain_ptr[c] != chain_ptr[1] - chain_ptr[0]) return false;
  return true;
}

// The batch's D, L and U blocks in the interleaved layout. Once factorized, D_p holds the
// explicit inverse of the eliminated diagonal block (FactorInterleavedChains): a solve's step is
// then two block-times-vector products, whose rows the threads of a group of chains share out
// (SolveInterleavedChains), where an LU solve's substitutions run one after another.
// T: double, or the float copy that a Newton update's solve may read (block_layout.hpp,
// float_factors_enabled); the arithmetic is double either way.
template <class T>
struct InterleavedBlocksOf {
  static constexpr int N = InterleavedChains::N;
  InterleavedChains at;
  T *D, *L, *U;

  // Row i of block p of chain c in `base` (D, L or U) times v (N values `stride` apart).
  CATENARY_HD double row_times(const T* base, int c, int p, int i, const double* v, int stride) const {
    double sum = 0.0;
    for (int j = 0; j < N; ++j) sum += base[at.block_entry(c, p, i * N + j)] * v[j * stride];
    return sum;
  }
  // v = D_p^-1 v for block p of chain c.
  CATENARY_HD void solve(int c, int p, double* v) const {
    double w[N];
    for (int i = 0; i < N; ++i) w[i] = row_times(D, c, p, i, v, 1);
    for (int i = 0; i < N; ++i) v[i] = w[i];
  }
};
using InterleavedBlocks = InterleavedBlocksOf<double>;

// The chains a thread block of the group factorization and solve takes, and their threads: a
// thread a row of one chain's block.
constexpr int kChainGroup = 32, kChainGroupThreads = InterleavedChains::N * kChainGroup;
// The groups (thread blocks) that `chains` chains make, the last one possibly short.
inline int chain_groups(int chains) { return (chains + kChainGroup - 1) / kChainGroup; }

// body(i, lane, c) for the items of thread `thread` of `threads` in group `group`: row i of chain
// c = kChainGroup group + lane, for the chains that exist. Thread i kChainGroup + lane takes row i
// of lane's chain: each warp is one row of 32 neighbouring chains, whose loads of the interleaved
// layout are contiguous runs. On a device threads = kChainGroupThreads, an item a thread; on the
// host threads = 1, one thread running each phase's items in order (memory_space.cuh, run_blocks).
// (An item a thread written out: the loop alone left the compiler a thread that might have
// several, its code unrolled four times in the PTX.)
template <class Body>
CATENARY_HD void for_each_group_row(const InterleavedChains& at, int group, int thread, int threads, const Body& body) {
  const auto row = [&](int item) {
    const int i = item / kChainGroup, lane = item % kChainGroup, c = group * kChainGroup + lane;
    if (c < at.chains) body(i, lane, c);
  };
  if (threads == kChainGroupThreads) {
    row(thread);
    return;
  }
  for (int item = thread; item < kChainGroupThreads; item += threads) row(item);
}

// The factorization (chain_elimination.hpp's, from each chain's last block p down) by groups of
// kChainGroup chains, each block step in the group's shared memory:
//   [D_p - U_p L'_{p+1} | I | L_p], rows loaded and updated by their threads,
//   Gauss-Jordan elimination with partial pivoting: for each column k, the largest |entry| among
//     the rows not yet pivots (one thread a chain decides, from the candidates each row's thread
//     left: its |entry| in column k, or -1 once it is a pivot row), then every other row
//     eliminates column k with that pivot row and leaves its candidate for column k + 1 (each
//     thread its own row); the pivot rows then hold the rows of D_p^-1 and of
//     L'_p = D_p^-1 L_p, over their pivots;
//   D_p^-1 stored in D_p's place, and L'_p (p > 0) stored and kept for the next step.
// L'_p by the elimination, not as the product D_p^-1 L_p: the product lost a digit (a
// 1,000-copy batch solved to 2.9e-9 of UMFPACK's solution, against 1e-9 by the elimination).
// Fourteen barriers a block step. A singular block's number (c length + p) + 1 into singular
// (a chain's first, from its last block down, as the thread-a-chain FactorChain reports it).
// Why not a thread a chain (FactorChain: LU, then the inverse by the LU): 10,000 threads of 101
// dependent steps take about 3 ms on an H100 for a sweep's factorization (0.23 ms a step in
// modified Newton, a whole factorization an iteration in full Newton; docs/performance.md,
// Sweeps).
// Shared memory: each value of a chain's rows lane-fastest (lane, then entry), so that a warp's
// reads of one entry of 32 chains fall in distinct banks.
// Reads before writes: the elimination reads N entries of the pivot row into registers before it
// writes as many of its own row. Both rows are in shared memory at places known only at run time,
// so the compiler kept each read of the pivot row after the write before it: the loop over a
// row's 18 - k entries (not unrolled: k is known only at run time) would be a load, a load and a
// store an entry, one after another (as its PTX shows); read first, it is 3 groups of N loads. The
// pivot row's results are read before L'_p's row is stored to shared memory for the same reason.
// (Between global and shared memory the compiler reorders freely.)
struct FactorInterleavedChains {
  static constexpr int N = InterleavedBlocks::N, G = kChainGroup, kThreads = kChainGroupThreads, kWidth = 3 * N;
  static constexpr int kAugmented = 0, kNextL = kAugmented + N * kWidth * G, kPivot = kNextL + N * N * G,
                       kCandidate = kPivot + N * G, kFailed = kCandidate + N * G, kSharedValues = kFailed + G;
  InterleavedBlocks b;
  int* singular;

  template <class Barrier>
  CATENARY_HD void run(int group, int thread, int threads, double* shared, const Barrier& barrier) const {
    // Entry (row, column) of lane's augmented rows and of L'_{p+1}; the pivot row of column k
    // (-1: none, the block is singular); a row's candidacy for the next pivot (|its entry| in the
    // column, -1 once it is a pivot row); whether the chain has failed.
    // Why candidates: a deciding thread that read each row's entry and scanned the earlier pivots
    // for it would make about 6 (k + 1) shared-memory reads in a row, where each row's own thread
    // can leave its value as it eliminates, and the decision reads 6 (the group factorization
    // takes about 17 us a block step on an H100; docs/performance.md, Sweeps).
    const auto augmented = [shared](int lane, int row, int column) -> double& {
      return shared[kAugmented + (row * kWidth + column) * G + lane];
    };
    const auto next_L = [shared](int lane, int row, int column) -> double& {
      return shared[kNextL + (row * N + column) * G + lane];
    };
    const auto pivot = [shared](int lane, int k) -> double& { return shared[kPivot + k * G + lane]; };
    const auto candidate = [shared](int lane, int row) -> double& { return shared[kCandidate + row * G + lane]; };
    const auto each = [&](const auto& body) { for_each_group_row(b.at, group, thread, threads, body); };
    const int length = b.at.length;
    each([&](int i, int lane, int) {
      if (i == 0) shared[kFailed + lane] = 0.0;
    });
    for (int p = length - 1; p >= 0; --p) {
      each([&](int i, int lane, int c) {
        double row[N];
        for (int j = 0; j < N; ++j) row[j] = b.D[b.at.block_entry(c, p, i * N + j)];
        if (p + 1 < length)
          for (int k = 0; k < N; ++k) {
            const double u = b.U[b.at.block_entry(c, p, i * N + k)];
            for (int j = 0; j < N; ++j) row[j] -= u * next_L(lane, k, j);
          }
        for (int j = 0; j < N; ++j) {
          augmented(lane, i, j) = row[j];
          augmented(lane, i, N + j) = i == j ? 1.0 : 0.0;
          augmented(lane, i, 2 * N + j) = p > 0 ? b.L[b.at.block_entry(c, p, i * N + j)] : 0.0;
        }
        candidate(lane, i) = fabs(row[0]);
      });
      barrier();
      for (int k = 0; k < N; ++k) {
        each([&](int i, int lane, int c) {
          if (i != 0) return;
          int best = -1;
          double largest = 0.0;
          for (int r = 0; r < N; ++r) {
            const double size = candidate(lane, r);
            if (size > largest) best = r, largest = size;
          }
          pivot(lane, k) = best;
          if (best >= 0) candidate(lane, best) = -1.0;
          if (best < 0 && shared[kFailed + lane] == 0.0) {
            shared[kFailed + lane] = 1.0;
            *singular = c * length + p + 1;
          }
        });
        barrier();
        each([&](int i, int lane, int) {
          const int r = static_cast<int>(pivot(lane, k));
          if (r >= 0 && i != r) {
            const double m = augmented(lane, i, k) / augmented(lane, r, k);
            for (int first = 0; first < kWidth; first += N) {  // N entries of the pivot row at a time
              double pivot_row[N];
              for (int j = 0; j < N; ++j)
                if (first + j >= k) pivot_row[j] = augmented(lane, r, first + j);
              for (int j = 0; j < N; ++j)
                if (first + j >= k) augmented(lane, i, first + j) -= m * pivot_row[j];
            }
          }
          if (k + 1 < N && !(candidate(lane, i) < 0.0)) candidate(lane, i) = fabs(augmented(lane, i, k + 1));
        });
        barrier();
      }
      // Rows i of D_p^-1 and L'_p: the rest of column i's pivot row over its pivot.
      each([&](int i, int lane, int c) {
        const int r = static_cast<int>(pivot(lane, i));
        if (r < 0) return;
        const double scale = 1.0 / augmented(lane, r, i);
        double inverse[N], next[N];
        for (int j = 0; j < N; ++j) {
          inverse[j] = scale * augmented(lane, r, N + j);
          next[j] = scale * augmented(lane, r, 2 * N + j);
        }
        for (int j = 0; j < N; ++j) {
          b.D[b.at.block_entry(c, p, i * N + j)] = inverse[j];
          if (p > 0) b.L[b.at.block_entry(c, p, i * N + j)] = next_L(lane, i, j) = next[j];
        }
      });
      barrier();
    }
  }
};

// The solve on interleaved padded vectors (x may not alias r), by groups of kChainGroup chains
// (the last group may be short), a thread a row of one chain's block (for_each_group_row):
// forward x_p = D_p^-1 (r_p - U_p x_{p+1}) from the last block, backward x_p -= L'_p x_{p-1}
// from the first. The vectors a step hands to the next (r_p - U_p x_{p+1}, then x_p) pass
// through the group's shared memory between barriers: two a forward step, one a backward step
// (x_{p-1} double-buffered).
// Why not a thread a chain (SolveChain): a sweep's 10,000 chains are 10,000 threads there, 2.4
// warps an SM of an H100, each step a chain of dependent loads, LU substitutions and products:
// 1.0 ms a solve (docs/performance.md, Sweeps) against the 0.32 ms that its
// 1.06 GB (the factors' 0.87 and the vectors') take at the bandwidth bound. Here 60,000 threads,
// each with 13 loads a forward step and 7 a backward one, coalesced (a warp is one row of 32
// neighbouring chains).
// Loaded a step ahead: where each thread has one row (threads = kThreads: a device, or the
// threaded test), a step's loads (its rows of the blocks, its entry of r or x) are issued at the
// start of the step before, so that their memory latency overlaps that step's two barriers and
// products instead of stalling the step that reads them. The groups' solve takes 0.54 ms from the
// float factors at 10,000 chains on an H100 (docs/performance.md, Sweeps), 2.6 us a block step, a
// step's loads waited for at each phase: latency, not bandwidth (0.8 TB/s). The one-thread host
// run loads them where they are used.
// Sweeps as for SolveChain: the backward sweep alone starts from x_0 in memory (block 0 corrected
// in between). T: the factors' type, V: the padded vectors' (float, both, for a Newton update
// from the float copy); the arithmetic and the shared vectors stay double.
template <Sweeps S = Sweeps::Both, class T = double, class V = double>
struct SolveInterleavedChains {
  static constexpr int N = InterleavedBlocks::N, G = kChainGroup, kThreads = kChainGroupThreads;
  static constexpr int kSharedValues = 3 * kThreads;  // the step's vector, and x_p in two buffers
  InterleavedBlocksOf<T> b;
  const V* r;
  V* x;
  CATENARY_HD void shift(long k) { r += k, x += k; }  // to another right-hand side's vectors

  // What a forward step of row i of chain c at block p reads from memory: r_p's entry, and rows
  // i of U_p (but for the last block) and of D_p^-1.
  struct ForwardRow {
    double r;
    T u[N], d[N];
  };
  CATENARY_HD ForwardRow forward_row(int c, int p, int i) const {
    ForwardRow row;
    row.r = r[b.at.vector_entry(c, p, i)];
    for (int j = 0; j < N; ++j) {
      row.u[j] = p + 1 < b.at.length ? b.U[b.at.block_entry(c, p, i * N + j)] : T(0);
      row.d[j] = b.D[b.at.block_entry(c, p, i * N + j)];
    }
    return row;
  }
  // What a backward step reads: x_p's entry (as the forward sweep left it) and row i of L'_p.
  struct BackwardRow {
    double x;
    T l[N];
  };
  CATENARY_HD BackwardRow backward_row(int c, int p, int i) const {
    BackwardRow row;
    row.x = x[b.at.vector_entry(c, p, i)];
    for (int j = 0; j < N; ++j) row.l[j] = b.L[b.at.block_entry(c, p, i * N + j)];
    return row;
  }
  // A row of a block times N values `stride` apart, in row_times' order.
  CATENARY_HD static double times(const T* row, const double* v, int stride) {
    double sum = 0.0;
    for (int j = 0; j < N; ++j) sum += row[j] * v[j * stride];
    return sum;
  }

  template <class Barrier>
  CATENARY_HD void run(int group, int thread, int threads, double* shared, const Barrier& barrier) const {
    double* step = shared;  // entry i of lane at i G + lane
    // x_p the same way, in buffer 0 or 1 (not an array of two pointers: indexed at run time, it
    // would sit in local memory).
    const auto solved = [shared](int buffer) { return shared + (1 + buffer) * kThreads; };
    const int length = b.at.length;
    const auto each = [&](const auto& body) { for_each_group_row(b.at, group, thread, threads, body); };
    const bool ahead = threads == kThreads;  // a row a thread: its next step's loads held in `next`
    if constexpr (S != Sweeps::Backward) {
      ForwardRow next{}, current{};
      if (ahead) each([&](int i, int, int c) { next = forward_row(c, length - 1, i); });
      for (int p = length - 1; p >= 0; --p) {
        each([&](int i, int lane, int c) {
          current = ahead ? next : forward_row(c, p, i);
          if (ahead && p > 0) next = forward_row(c, p - 1, i);
          double v = current.r;
          if (p + 1 < length) v -= times(current.u, solved(0) + lane, G);
          step[i * G + lane] = v;
        });
        barrier();
        each([&](int i, int lane, int c) {
          const ForwardRow& row = ahead ? current : forward_row(c, p, i);
          const double v = times(row.d, step + lane, G);
          x[b.at.vector_entry(c, p, i)] = solved(0)[i * G + lane] = v;
        });
        barrier();
      }
    }
    if constexpr (S != Sweeps::Forward) {
      if constexpr (S == Sweeps::Backward) {
        each([&](int i, int lane, int c) { solved(0)[i * G + lane] = x[b.at.vector_entry(c, 0, i)]; });
        barrier();
      }
      BackwardRow next{};
      if (ahead && length > 1) each([&](int i, int, int c) { next = backward_row(c, 1, i); });
      for (int p = 1; p < length; ++p) {
        const double* previous = solved((p - 1) % 2);  // x_{p-1}
        double* current = solved(p % 2);
        each([&](int i, int lane, int c) {
          const BackwardRow row = ahead ? next : backward_row(c, p, i);
          if (ahead && p + 1 < length) next = backward_row(c, p + 1, i);
          const double v = row.x - times(row.l, previous + lane, G);
          x[b.at.vector_entry(c, p, i)] = current[i * G + lane] = v;
        });
        barrier();
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
