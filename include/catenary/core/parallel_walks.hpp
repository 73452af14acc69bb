#pragma once
// Host walks over many items (a matrix's entries, its blocks) shared out by OpenMP's static
// schedule, whose chunks are contiguous and in thread order: what they produce is one thread's,
// in the same order.
#include <omp.h>

#include <cstddef>
#include <vector>

namespace catenary {

// Below this many items one thread is faster than starting the others.
constexpr std::ptrdiff_t kParallelEntries = 1 << 16;

// What list(i, out) appends to out for i = 0 .. count - 1, in that order: each thread lists
// its run of items, and the runs are joined in thread order. Threads where parallel. Each thread
// works on its own copy of list (firstprivate), so that what list captured by value stays in
// registers: through the shared one, the walks over 1e8 items ran 5 to 30 % slower.
template <class List>
std::vector<int> listed_in_order(std::ptrdiff_t count, bool parallel, List list) {
  std::vector<std::vector<int>> runs(parallel ? omp_get_max_threads() : 1);
#pragma omp parallel num_threads(static_cast<int>(runs.size())) firstprivate(list)
  {
    std::vector<int>& mine = runs[omp_get_thread_num()];
#pragma omp for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) list(i, mine);
  }
  std::vector<int> joined;
  for (const std::vector<int>& run : runs) joined.insert(joined.end(), run.begin(), run.end());
  return joined;
}

}  // namespace catenary
