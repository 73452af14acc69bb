// The host passes over a matrix's entries that place them in the block solvers' storage
// (solve/block_layout.hpp, solve/interleaved_chain_elimination.hpp), once per analysis. They are
// linear but long: a batch of 10,000 100-element cables has 1.1e8 entries, and the scatter and
// the move to the interleaved layout take 1.05 s on one thread (0.60 s on two; docs/performance.md,
// CPU threads). Each pass is shared out by OpenMP's static schedule, whose chunks are
// contiguous and in thread order, so the results are one thread's, in the same order.
#include <algorithm>
#include <cstdlib>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "catenary/core/first_touch.hpp"
#include "catenary/core/parallel_walks.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/interleaved_chain_elimination.hpp"

namespace catenary {

std::vector<int> entry_rows(const std::vector<int>& row_ptr) {
  std::vector<int> rows(row_ptr.back());
  const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(row_ptr.size()) - 1;
#pragma omp parallel for schedule(static) if (row_ptr.back() > kParallelEntries)
  for (std::ptrdiff_t row = 0; row < count; ++row)
    std::fill(rows.begin() + row_ptr[row], rows.begin() + row_ptr[row + 1], static_cast<int>(row));
  return rows;
}

BlockScatter block_scatter(const BlockLayout& layout, const std::vector<int>& chain_ptr,
                           const std::vector<int>& entry_row, const std::vector<int>& entry_col) {
  const size_t per_array = layout.slots();
  std::vector<char> starts_chain(layout.blocks, 0);
  for (size_t c = 0; c + 1 < chain_ptr.size(); ++c) starts_chain[chain_ptr[c]] = 1;
  // Raw pointers: the threads' loops then keep them in registers.
  const int *rows = entry_row.data(), *cols = entry_col.data(), *block_of = layout.block_of.data();
  const int* equation_index = layout.equation_index.data();
  const char* starts = starts_chain.data();
  const BlockLayout::EntryIndex entry = layout.entry_index();
  const std::ptrdiff_t entries = static_cast<std::ptrdiff_t>(entry_row.size());
  BlockScatter out;
  out.destination.resize(entries);
  int* destination = out.destination.data();
  std::ptrdiff_t first_bad = entries;  // an entry outside the bands, or coupling two chains
#pragma omp parallel for schedule(static) reduction(min : first_bad) firstprivate(entry) if (entries > kParallelEntries)
  for (std::ptrdiff_t s = 0; s < entries; ++s) {
    const int row = rows[s], col = cols[s];
    destination[s] = -1;
    if (equation_index[row] < 0) continue;  // a held coordinate's equation (solve/held_rows.hpp)
    const int br = block_of[row], bc = block_of[col];
    const int part = bc == br ? 0 : bc == br - 1 ? 1 : bc == br + 1 ? 2 : -1;
    if (part < 0 || (part == 1 && starts[br]) || (part == 2 && starts[bc]))
      first_bad = std::min(first_bad, s);
    else
      destination[s] = static_cast<int>(part * per_array + entry(br, row, col));
  }
  if (first_bad < entries) {
    const int row = rows[first_bad], col = cols[first_bad], br = block_of[row], bc = block_of[col];
    throw std::invalid_argument("block-tridiagonal solver: entry (" + std::to_string(row) + ", " +
                                std::to_string(col) + ") couples blocks " + std::to_string(br) + " and " +
                                std::to_string(bc) + (std::abs(bc - br) <= 1 ? ", which are in different chains" : ""));
  }
  // Distinct entries land in distinct slots, so the threads' marks never meet. Zeroed in pages by
  // the threads (core/first_touch.hpp).
  constexpr std::ptrdiff_t kPage = 4096;
  const std::ptrdiff_t pages = (3 * static_cast<std::ptrdiff_t>(per_array) + kPage - 1) / kPage;
  FirstTouchVector<char> covered_slots(pages * kPage);
  zero_in_parallel(covered_slots.data(), pages, kPage);
  char* covered = covered_slots.data();
#pragma omp parallel for schedule(static) if (entries > kParallelEntries)
  for (std::ptrdiff_t s = 0; s < entries; ++s)
    if (destination[s] >= 0) covered[destination[s]] = 1;
  // The slots of block k's regions that no entry covers (each thread those of its run of blocks).
  // Captured by value, for listed_in_order's threads to keep in registers.
  const int* size = layout.size.data();
  const auto list_uncovered = [size, blocks = layout.blocks, per_array, covered, entry](std::ptrdiff_t k,
                                                                                       std::vector<int>& uncovered) {
    const int n = size[k];
    const int widths[3] = {n, k > 0 ? size[k - 1] : 0, k + 1 < blocks ? size[k + 1] : 0};
    for (int part = 0; part < 3; ++part)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < widths[part]; ++j) {
          const size_t at = part * per_array + entry.offset[k] + static_cast<size_t>(i) * entry.B + j;
          if (!covered[at]) uncovered.push_back(static_cast<int>(at));
        }
  };
  out.uncovered =
      listed_in_order(layout.blocks, 3 * per_array > static_cast<size_t>(kParallelEntries), list_uncovered);
  return out;
}

namespace {
// W a constant: its divisions become multiplications (the others, by the chains' length and the
// arrays' size, stay divisions).
template <int W>
void move_slots_to_interleaved(const InterleavedChains at, long array_size, std::vector<int>& indices) {
  const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(indices.size());
  int* index = indices.data();
#pragma omp parallel for schedule(static) if (count > kParallelEntries)
  for (std::ptrdiff_t s = 0; s < count; ++s) {
    const int d = index[s];
    if (d >= 0) index[s] = static_cast<int>(d / array_size * array_size + at.from_contiguous(d % array_size, W));
  }
}
}  // namespace

void move_to_interleaved(const InterleavedChains& at, int W, long array_size, std::vector<int>& indices) {
  constexpr int N = InterleavedChains::N;
  if (W == N * N)
    move_slots_to_interleaved<N * N>(at, array_size, indices);
  else if (W == N)
    move_slots_to_interleaved<N>(at, array_size, indices);
  else
    throw std::invalid_argument("move_to_interleaved: " + std::to_string(W) + " values a block (" +
                                std::to_string(N) + " or " + std::to_string(N * N) + ")");
}

}  // namespace catenary
