#pragma once
// The forces pass of a Newton residual for elements numbered along chains of nodes (a cable, a
// sweep's cables), with the sums over each node's elements done in the pass: r = from - (the
// element rows summed per dof) (ForceTerms::from), without the element-local force array. The
// plain pass writes each element's 4D rows (12 doubles in 3D) to that array and a gather reads
// them back with its per-dof source maps: in the 10,000 x 100-element sweep about 5.5
// coordinate-sized vectors of 48.5 MB an evaluation (the rows written and read, 2 + 2; the maps,
// 1.5), against none here.
//
// A thread block of 256 threads takes 256 consecutive elements; each thread evaluates its element
// (ElementPass::evaluate_into) into shared memory, then, after a barrier, writes its node a (its
// own rows 0 .. 2D-1 plus the element before's rows 2D .. 4D-1 where that element ends there) and
// its node b where no element starts there. A node whose two elements lie in two thread blocks is
// written by ChainForceSeams after the pass from the two rows each block left (carry_first,
// carry_last). Each dof's sum has at most two terms, and a + b = b + a in floating point: the
// residual is the gather's bit for bit.
#include <vector>

#include "backend_functors.cuh"

namespace catenary::cuda {

// Whether every node's element rows come from at most its element as node a and the element
// before as node b: node_a[e] != node_b[e], each node node a of at most one element and node b of
// at most one, and a node that is both is node b of e - 1 and node a of e.
inline bool elements_along_node_chains(const std::vector<int>& node_a, const std::vector<int>& node_b, int nodes) {
  std::vector<int> starts(nodes, -1), ends(nodes, -1);  // the element with node a (b) there
  for (size_t e = 0; e < node_a.size(); ++e) {
    const int a = node_a[e], b = node_b[e];
    if (a == b || starts[a] >= 0 || ends[b] >= 0) return false;
    starts[a] = ends[b] = static_cast<int>(e);
  }
  for (int n = 0; n < nodes; ++n)
    if (starts[n] >= 0 && ends[n] >= 0 && ends[n] != starts[n] - 1) return false;
  return true;
}

template <int D, bool Damped>
struct ChainForcesPass {
  static constexpr int kThreads = 256, kNodeDofs = 2 * D, kRows = 4 * D;
  static constexpr int kSharedValues = kRows * kThreads;  // 24.6 kB in 3D
  using Pass = ElementPass<D, Damped, false>;
  Pass pass;  // its local_forces unused
  int elements;
  const double* from;
  double* r;
  double *carry_first, *carry_last;  // kNodeDofs a thread block: its first element's node a rows, its last's node b rows

  static int blocks(int elements) { return (elements + kThreads - 1) / kThreads; }

  // An element's rows at own[row kThreads] (own: its thread's first value in shared memory).
  struct SharedRows {
    double* own;
    CATENARY_HD StridedSlots operator()(int, int first_row) const { return {own + first_row * kThreads, kThreads}; }
  };

  CATENARY_HD bool joined_before(int e) const { return e > 0 && pass.node_b[e - 1] == pass.node_a[e]; }
  CATENARY_HD bool joined_after(int e) const { return e + 1 < elements && pass.node_a[e + 1] == pass.node_b[e]; }

  template <class Barrier>
  CATENARY_HD void run(int block, int thread, int threads, double* shared, const Barrier& barrier) const {
    for (int t = thread; t < kThreads; t += threads) evaluate(block * kThreads + t, shared + t);
    barrier();
    for (int t = thread; t < kThreads; t += threads) sum_nodes(block, t, shared + t);
  }

  // Element e's rows into own[row kThreads].
  CATENARY_HD void evaluate(int e, double* own) const {
    if (e < elements) pass.evaluate_into(e, 0, nullptr, SharedRows{own});
  }

  // Thread t's nodes from the rows of the block's elements (row i of its own at own[i kThreads]).
  CATENARY_HD void sum_nodes(int block, int t, const double* own) const {
    const int e = block * kThreads + t;
    if (e >= elements) return;
    const int a = pass.node_a[e] * kNodeDofs, b = pass.node_b[e] * kNodeDofs;
    if (!joined_before(e))
      for (int i = 0; i < kNodeDofs; ++i) r[a + i] = from[a + i] - own[i * kThreads];
    else if (t > 0)
      for (int i = 0; i < kNodeDofs; ++i)
        r[a + i] = from[a + i] - (own[i * kThreads] + own[(kNodeDofs + i) * kThreads - 1]);
    else
      for (int i = 0; i < kNodeDofs; ++i) carry_first[block * kNodeDofs + i] = own[i * kThreads];
    if (!joined_after(e))
      for (int i = 0; i < kNodeDofs; ++i) r[b + i] = from[b + i] - own[(kNodeDofs + i) * kThreads];
    else if (t == kThreads - 1)
      for (int i = 0; i < kNodeDofs; ++i) carry_last[block * kNodeDofs + i] = own[(kNodeDofs + i) * kThreads];
  }
};

// The nodes whose two elements lie in thread blocks g - 1 and g of a ChainForcesPass (one item a
// block g >= 1): r = from - (the two blocks' rows).
struct ChainForceSeams {
  const int *node_a, *node_b;
  int node_dofs, threads_per_block;
  const double* from;
  double* r;
  const double *carry_first, *carry_last;
  CATENARY_HD void operator()(int g) const {
    const int e = g * threads_per_block;
    if (node_b[e - 1] != node_a[e]) return;
    const int a = node_a[e] * node_dofs;
    for (int i = 0; i < node_dofs; ++i)
      r[a + i] = from[a + i] - (carry_first[g * node_dofs + i] + carry_last[(g - 1) * node_dofs + i]);
  }
};

}  // namespace catenary::cuda
