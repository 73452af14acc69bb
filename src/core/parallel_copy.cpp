#include "catenary/core/parallel_copy.hpp"

#include <algorithm>

#include "catenary/core/parallel_walks.hpp"

namespace catenary {

void copy_in_parallel(const double* from, double* to, std::size_t count) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(count), piece = 1 << 14;  // 128 kB pieces
  const std::ptrdiff_t pieces = (n + piece - 1) / piece;
#pragma omp parallel for schedule(static) if (n >= kParallelEntries)
  for (std::ptrdiff_t p = 0; p < pieces; ++p)
    std::copy(from + p * piece, from + std::min(n, (p + 1) * piece), to + p * piece);
}

}  // namespace catenary
