// find_held_rows (solve/held_rows.hpp): two walks over a matrix's entries, once per analysis, each
// shared out by OpenMP's static schedule (contiguous runs in thread order), with the result one
// thread's. A batch of 10,000 100-element cables has 1.1e8 entries; one thread took 350 ms over
// them, counting each row's and column's entries.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "catenary/core/parallel_walks.hpp"
#include "catenary/solve/held_rows.hpp"

namespace catenary {

namespace {

// The positions one thread saw in its run of entries, once or more than once, a bit each. A held
// row needs a row and a column with exactly one entry, not their counts: bits merge across
// threads (a position is seen exactly once if exactly one thread saw it, once), where a histogram
// of counts would need atomics or a copy a thread.
struct SeenPositions {
  std::vector<std::uint64_t> once, twice;
  explicit SeenPositions(size_t words) : once(words, 0), twice(words, 0) {}
  // Marks p; true if this thread had not seen it before.
  bool see(int p) {
    const std::uint64_t bit = std::uint64_t{1} << (p & 63);
    std::uint64_t& seen = once[p >> 6];
    const bool first = !(seen & bit);
    twice[p >> 6] |= seen & bit;
    seen |= bit;
    return first;
  }
};

// Bit p set where exactly one thread saw position p, once.
std::vector<std::uint64_t> seen_exactly_once(const std::vector<SeenPositions>& seen, size_t words) {
  std::vector<std::uint64_t> exactly_once(words);
#pragma omp parallel for schedule(static) if (words * seen.size() > static_cast<size_t>(kParallelEntries))
  for (std::ptrdiff_t w = 0; w < static_cast<std::ptrdiff_t>(words); ++w) {
    std::uint64_t once = 0, more = 0;
    for (const SeenPositions& s : seen) {
      more |= s.twice[w] | (once & s.once[w]);
      once |= s.once[w];
    }
    exactly_once[w] = once & ~more;
  }
  return exactly_once;
}

bool bit_set(const std::vector<std::uint64_t>& bits, int p) { return (bits[p >> 6] >> (p & 63)) & 1; }

}  // namespace

HeldRows find_held_rows(const std::vector<int>& block_ptr, const std::vector<int>& entry_row,
                        const std::vector<int>& entry_col) {
  const int in_blocks = block_ptr.back();
  const std::ptrdiff_t entries = static_cast<std::ptrdiff_t>(entry_row.size());
  const int *rows = entry_row.data(), *cols = entry_col.data();
  const int threads = entries > kParallelEntries ? omp_get_max_threads() : 1;
  const size_t words = (static_cast<size_t>(in_blocks) + 63) / 64;
  // The rows and columns with exactly one entry, and where a row's was (-1: none); a row seen
  // more than once may keep any of its entries there, which nothing reads.
  std::vector<SeenPositions> row_seen(threads, SeenPositions(words)), column_seen(threads, SeenPositions(words));
  std::vector<int> only_entry(in_blocks, -1);
  int* only = only_entry.data();
#pragma omp parallel num_threads(threads)
  {
    SeenPositions &my_rows = row_seen[omp_get_thread_num()], &my_columns = column_seen[omp_get_thread_num()];
#pragma omp for schedule(static)
    for (std::ptrdiff_t s = 0; s < entries; ++s) {
      const int row = rows[s], col = cols[s];
      if (row < in_blocks && my_rows.see(row)) {
#pragma omp atomic write
        only[row] = static_cast<int>(s);
      }
      if (col < in_blocks) my_columns.see(col);
    }
  }
  const std::vector<std::uint64_t> one_in_row = seen_exactly_once(row_seen, words),
                                   one_in_column = seen_exactly_once(column_seen, words);
  std::vector<int> block_of(in_blocks);
  for (size_t k = 0; k + 1 < block_ptr.size(); ++k)
    std::fill(block_of.begin() + block_ptr[k], block_of.begin() + block_ptr[k + 1], static_cast<int>(k));
  // candidate[r]: the column of row r's one entry where r is a held row's candidate, else -1.
  std::vector<int> candidate(in_blocks, -1);
  for (int r = 0; r < in_blocks; ++r) {
    if (!bit_set(one_in_row, r) || !bit_set(one_in_column, r)) continue;
    const int j = cols[only_entry[r]];
    if (j != r && j < in_blocks && block_of[j] == block_of[r]) candidate[r] = j;
  }
  // holder[j]: the pair that holds coordinate j (-1: none).
  std::vector<int> holder(in_blocks, -1);
  HeldRows held;
  for (int r = 0; r < in_blocks; ++r) {
    const int j = candidate[r];
    if (j < 0 || candidate[j] >= 0 || holder[j] >= 0) continue;
    holder[j] = held.size();
    held.row.push_back(r);
    held.coordinate.push_back(j);
  }
  // The entries of the held coordinates' rows, in the entries' order.
  // Captured by value, for listed_in_order's threads to keep in registers.
  const int* holds = holder.data();
  const std::vector<int> found =
      listed_in_order(entries, threads > 1, [rows, in_blocks, holds](std::ptrdiff_t s, std::vector<int>& list) {
        if (rows[s] < in_blocks && holds[rows[s]] >= 0) list.push_back(static_cast<int>(s));
      });
  // A held row's column entry must be its coordinate's row: (j, r).
  std::vector<std::vector<int>> row_entries(held.size());
  std::vector<int> coupling(held.size(), -1);
  for (int s : found) {
    const int h = holder[rows[s]];
    if (cols[s] == held.row[h])
      coupling[h] = s;
    else
      row_entries[h].push_back(s);
  }
  HeldRows out;
  for (int h = 0; h < held.size(); ++h) {
    if (coupling[h] < 0) continue;  // column r's entry is elsewhere: keep the row in the blocks
    out.row.push_back(held.row[h]);
    out.coordinate.push_back(held.coordinate[h]);
    out.entry_slot.push_back(coupling[h]);
    out.entry_slot.insert(out.entry_slot.end(), row_entries[h].begin(), row_entries[h].end());
    out.entry_ptr.push_back(static_cast<int>(out.entry_slot.size()));
  }
  for (int s : out.entry_slot) out.entry_column.push_back(cols[s]);
  return out;
}

}  // namespace catenary
