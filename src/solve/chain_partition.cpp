#include "catenary/solve/chain_partition.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/solve/chain_elimination.hpp"

namespace catenary {

namespace {

// Below this many blocks a part's thread costs more than it saves (a block step takes about a
// microsecond).
constexpr int kMinPartBlocks = 256;
// An interior block's factorization over a Thomas step's: LU, U' and the update (about 14 n^3 / 3
// flops for n x n blocks) plus G', G and the Horner sweep (8 n^3) are 2.7 by count; measured 2.2
// (catenary_chain_solver_benchmark, OMP_NUM_THREADS=1; docs/performance.md, CPU threads).
constexpr double kInteriorCost = 2.2;
constexpr int N6 = kUnrolledBlock;

// Sweeps towards lower blocks run 12 % slower than the same sweeps upwards on a 2-core EPYC (the
// hardware prefetcher follows ascending streams only), unless they ask for the slots a few blocks
// ahead themselves (docs/performance.md, CPU threads). Forced inline: out of line, the call costs
// what the prefetch saves.
constexpr int kPrefetchAhead = 4;
__attribute__((always_inline)) inline void prefetch_slot(const Blocks& b, int k, const double* x, const double* y,
                                                         const double* z = nullptr) {
  const long first = b.offset[k], bytes = (b.offset[k + 1] - first) * static_cast<long>(sizeof(double));
  for (long at = 0; at < bytes; at += 64) {
    __builtin_prefetch(reinterpret_cast<const char*>(x + first) + at);
    __builtin_prefetch(reinterpret_cast<const char*>(y + first) + at);
    if (z) __builtin_prefetch(reinterpret_cast<const char*>(z + first) + at);
  }
}

// The chain steps (solve/chain_elimination.hpp) at N6 where the block and its neighbours are N6 x
// N6 (`unrolled`), at run-time sizes otherwise; forced inline as the steps are.
template <bool Up>
__attribute__((always_inline)) inline bool eliminate(const Blocks& b, int k, bool has_prev, bool has_next,
                                                     bool unrolled) {
  return unrolled ? eliminate_block<N6, Up>(b, k, has_prev, has_next)
                  : eliminate_block<0, Up>(b, k, has_prev, has_next);
}
template <bool Up>
__attribute__((always_inline)) inline void forward(const Blocks& b, const double* r, double* x, int k, bool has_prev,
                                                   bool unrolled) {
  unrolled ? forward_block<N6, Up>(b, r, x, k, has_prev) : forward_block<0, Up>(b, r, x, k, has_prev);
}
template <bool Up>
__attribute__((always_inline)) inline void backward(const Blocks& b, double* x, int k, bool unrolled) {
  unrolled ? backward_block<N6, Up>(b, x, k) : backward_block<0, Up>(b, x, k);
}

// to (rows x cols, leading dimension to_ld) += from (leading dimension from_ld).
void add_block(const double* from, int from_ld, double* to, int to_ld, int rows, int cols) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) to[i * to_ld + j] += from[i * from_ld + j];
}

}  // namespace

ChainPartition::ChainPartition(const BlockLayout& layout, const std::vector<int>& chain_ptr, int threads,
                               bool first_block_last)
    : B_(layout.B), parallel_(threads > 1) {
  check_chains(chain_ptr, layout.blocks);
  const int chains = static_cast<int>(chain_ptr.size()) - 1;
  const int per_chain = std::max(1, threads / chains);
  std::vector<int> separator_ptr{0};
  separator_chain_ptr_.push_back(0);
  bool any_interior = false;
  for (int c = 0; c < chains; ++c) {
    const int first = chain_ptr[c], last = chain_ptr[c + 1];
    const int cuts = std::min(per_chain, (last - first) / kMinPartBlocks);
    if (cuts <= 1) {
      parts_.push_back({Kind::Whole, first, last, -1, -1, -1, -1});
      continue;
    }
    // Block 0 eliminated last in a cut chain: it is the chain's first separator (no head part),
    // which the separators' elimination (downwards) reaches last.
    const bool leading_separator = first_block_last && first == 0;
    if (leading_separator) {
      separator_block_.push_back(first);
      separator_ptr.push_back(separator_ptr.back() + layout.size[first]);
    }
    // The end parts (head and tail, or the tail alone) get `end_part` blocks, the interior parts
    // about end_part / kInteriorCost.
    const int ends = leading_separator ? 1 : 2, interiors = cuts - ends;
    const int own = last - first - (leading_separator ? cuts : cuts - 1);
    const int end_part = static_cast<int>(std::lround(own / (ends + interiors / kInteriorCost)));
    const int interior = interiors > 0 ? (own - ends * end_part) / interiors : 0;
    const int longer_interiors = interiors > 0 ? (own - ends * end_part) % interiors : 0;
    int start = leading_separator ? first + 1 : first;
    for (int p = 0; p < cuts; ++p) {
      const Kind kind = p == 0 && !leading_separator ? Kind::Head : p == cuts - 1 ? Kind::Tail : Kind::Interior;
      const int nth_interior = leading_separator ? p : p - 1;
      const int end = kind == Kind::Tail   ? last
                      : kind == Kind::Head ? start + end_part
                                           : start + interior + (nth_interior < longer_interiors ? 1 : 0);
      const int sep = static_cast<int>(separator_block_.size());  // the separator after this part
      const bool before = kind != Kind::Head, after = kind != Kind::Tail;
      parts_.push_back(
          {kind, start, end, before ? start - 1 : -1, after ? end : -1, before ? sep - 1 : -1, after ? sep : -1});
      any_interior = any_interior || kind == Kind::Interior;
      if (after) {
        separator_block_.push_back(end);
        separator_ptr.push_back(separator_ptr.back() + layout.size[end]);
      }
      start = end + 1;
    }
    separator_chain_ptr_.push_back(static_cast<int>(separator_block_.size()));
  }
  singular_.assign(parts_.size(), 0);
  if (any_interior) spike_.assign(layout.slots(), 0.0);
  if (!separator_block_.empty()) {  // only cut chains' parts use them (a sweep has thousands of whole ones)
    part_blocks_.assign(parts_.size() * 4 * B_ * B_, 0.0);
    part_vectors_.assign(parts_.size() * 2 * B_, 0.0);
  }
  separators_ = BlockLayout(separator_ptr);
  separator_data_.assign(3 * separators_.slots(), 0.0);
  separator_pivots_.assign(static_cast<size_t>(separators_.blocks) * separators_.B, 0);
  separator_r_.assign(static_cast<size_t>(separators_.blocks) * separators_.B, 0.0);
  separator_x_ = separator_r_;
}

Blocks ChainPartition::separator_blocks() const {
  double* base = separator_data_.data();
  const size_t per_array = separators_.slots();
  return Blocks{
      base,    base + per_array,         base + 2 * per_array,    nullptr,      nullptr, separators_.offset.data(),
      nullptr, separator_pivots_.data(), separators_.size.data(), separators_.B};
}

void ChainPartition::factorize(const Blocks& b) {
  const int parts = part_count();
  std::fill(singular_.begin(), singular_.end(), 0);
#pragma omp parallel for schedule(dynamic) if (parallel_)
  for (int p = 0; p < parts; ++p) factorize_part(b, p);
  for (int p = 0; p < parts; ++p)
    if (singular_[p] != 0)
      throw SimulationError("chain solver: block " + std::to_string(singular_[p] - 1) +
                            " is singular (a constraint row without a coordinate to hold, or a mechanism)");
  if (separators_.blocks > 0) factorize_separators(b);
}

void ChainPartition::solve(const Blocks& b, const double* r, double* x) const { solve_parts(b, r, x, nullptr); }

void ChainPartition::solve_correcting_first_block(const Blocks& b, const double* r, double* x,
                                                  const FirstBlockCorrection& correct) const {
  if (parts_.front().kind != Kind::Whole && !first_block_is_separator())
    throw std::logic_error("chain partition: block 0 is not eliminated last (plan it with first_block_last)");
  solve_parts(b, r, x, &correct);
}

void ChainPartition::correct_first_block(const Blocks& b, double* x_first, const FirstBlockCorrection& correct) const {
  std::vector<double> delta(B_, 0.0);
  correct(x_first, delta.data());
  solve_first_block(b, delta.data());
  for (int i = 0; i < b.size[0]; ++i) x_first[i] -= delta[i];
}

void ChainPartition::solve_parts(const Blocks& b, const double* r, double* x,
                                 const FirstBlockCorrection* correct) const {
  const int parts = part_count();
#pragma omp parallel for schedule(dynamic) if (parallel_)
  for (int p = 0; p < parts; ++p) forward_part(b, p, r, x, correct);
  if (separators_.blocks == 0) return;
  solve_separators(b, r, x, correct);
#pragma omp parallel for schedule(dynamic) if (parallel_)
  for (int p = 0; p < parts; ++p) backward_part(b, p, x);
}

bool ChainPartition::unrolled(const Blocks& b, const Part& part, int k) const {
  // Among the part's blocks and its separators.
  const int lo = part.before >= 0 ? part.before : part.first, hi = part.after >= 0 ? part.after + 1 : part.last;
  return blocks_of_size(b, k, lo, hi, N6);
}

double* ChainPartition::cleared_part_block(int p, int which) {
  double* block = part_block(p, which);
  std::fill(block, block + B_ * B_, 0.0);
  return block;
}

void ChainPartition::solve_first_block(const Blocks& b, double* x) const {
  if (first_block_is_separator()) {  // separator 0's factorization
    const Blocks sb = separator_blocks();
    lu_solve(sb.at(sb.D, 0), sb.piv, x, sb.size[0], sb.B, 1);
  } else {
    lu_solve(b.at(b.D, 0), b.piv, x, b.size[0], b.B, 1);
  }
}

void ChainPartition::factorize_part(const Blocks& b, int p) {
  const Part& part = parts_[p];
  const bool downwards = part.kind == Kind::Whole || part.kind == Kind::Tail;
  const int singular = downwards ? eliminate_downwards(b, part) : eliminate_towards_after(b, part);
  if (singular >= 0) {
    singular_[p] = singular + 1;
    return;
  }
  if (part.kind == Kind::Whole) return;
  const int ld = b.B, f = part.first, l = part.last;
  if (part.kind == Kind::Tail) {  // -U_before L'_first
    const int a = part.before;
    add_product<0>(-1.0, b.at(b.U, a), b.at(b.L, f), cleared_part_block(p, 0), b.size[a], b.size[f], b.size[a], ld);
    return;
  }
  const int s = part.after;  // -L_after U'_{last-1}
  add_product<0>(-1.0, b.at(b.L, s), b.at(b.U, l - 1), cleared_part_block(p, 1), b.size[s], b.size[l - 1], b.size[s],
                 ld);
  if (part.kind == Kind::Interior) {
    const int a = part.before;  // -L_after G'_{last-1}
    add_product<0>(-1.0, b.at(b.L, s), b.at(spike_.data(), l - 1), cleared_part_block(p, 3), b.size[s], b.size[l - 1],
                   b.size[a], ld);
    interior_schur_before(b, p);
  }
}

int ChainPartition::eliminate_downwards(const Blocks& b, const Part& part) const {
  // From the chain's end towards `before` (a tail) or the chain's first block (a whole chain, as
  // FactorChain does on the device): behind = U, ahead = L.
  const int f = part.first, l = part.last;
  const bool tail = part.kind == Kind::Tail;
  for (int k = l - 1; k >= f; --k) {
    if (k - kPrefetchAhead >= f) prefetch_slot(b, k - kPrefetchAhead, b.D, b.L, b.U);
    if (!eliminate<false>(b, k, k + 1 < l, tail || k > f, unrolled(b, part, k))) return k;
  }
  return -1;
}

int ChainPartition::eliminate_towards_after(const Blocks& b, const Part& part) {
  const int f = part.first, l = part.last, ld = b.B;
  const bool spike = part.kind == Kind::Interior;
  const int na = spike ? b.size[part.before] : 0;
  for (int k = f; k < l; ++k) {
    const int prev = k > f ? k - 1 : -1;
    const bool u = unrolled(b, part, k) && (!spike || na == N6);
    double* G = spike ? b.at(spike_.data(), k) : nullptr;
    if (spike) {  // G_k (n_k x n_a) from L_k and G'_{k-1}, before D_k is factored
      const double* L = b.at(b.L, k);
      for (int i = 0; i < b.size[k]; ++i)
        for (int j = 0; j < na; ++j) G[i * ld + j] = prev < 0 ? L[i * ld + j] : 0.0;
      if (prev >= 0)
        u ? add_product<N6>(-1.0, L, b.at(spike_.data(), prev), G, N6, N6, N6, ld)
          : add_product<0>(-1.0, L, b.at(spike_.data(), prev), G, b.size[k], b.size[prev], na, ld);
    }
    if (!eliminate<true>(b, k, k > f, true, u)) return k;
    if (spike)  // G'_k = D_k^-1 G_k
      u ? lu_solve_columns<N6>(b.at(b.D, k), b.piv + k * ld, G, N6, N6, ld)
        : lu_solve_columns<0>(b.at(b.D, k), b.piv + k * ld, G, b.size[k], na, ld);
  }
  return -1;
}

void ChainPartition::interior_schur_before(const Blocks& b, int p) {
  // Horner: Z_k = G'_k - U'_k Z_{k+1} and W_k = -U'_k W_{k+1}, from Z = G'_{last-1} and
  // W = U'_{last-1} down to `first`; then block a's row gets -U_a Z_first (to its diagonal) and
  // -U_a W_first (its coupling to `after`).
  const Part& part = parts_[p];
  const int f = part.first, l = part.last, ld = b.B, a = part.before, na = b.size[a], ns = b.size[part.after];
  std::vector<double> work(4 * B_ * B_, 0.0);
  double *Z = work.data(), *W = Z + B_ * B_, *next_Z = W + B_ * B_, *next_W = next_Z + B_ * B_;
  for (int i = 0; i < b.size[l - 1]; ++i) {
    std::copy(b.at(spike_.data(), l - 1) + i * ld, b.at(spike_.data(), l - 1) + i * ld + na, Z + i * ld);
    std::copy(b.at(b.U, l - 1) + i * ld, b.at(b.U, l - 1) + i * ld + ns, W + i * ld);
  }
  for (int k = l - 2; k >= f; --k) {
    if (k - kPrefetchAhead >= f) prefetch_slot(b, k - kPrefetchAhead, b.U, spike_.data());
    const int n = b.size[k], n_next = b.size[k + 1];
    const double* Uk = b.at(b.U, k);
    for (int i = 0; i < n; ++i) {
      std::copy(b.at(spike_.data(), k) + i * ld, b.at(spike_.data(), k) + i * ld + na, next_Z + i * ld);
      std::fill(next_W + i * ld, next_W + i * ld + ns, 0.0);
    }
    if (unrolled(b, part, k) && na == N6 && ns == N6) {
      add_product<N6>(-1.0, Uk, Z, next_Z, N6, N6, N6, ld);
      add_product<N6>(-1.0, Uk, W, next_W, N6, N6, N6, ld);
    } else {
      add_product<0>(-1.0, Uk, Z, next_Z, n, n_next, na, ld);
      add_product<0>(-1.0, Uk, W, next_W, n, n_next, ns, ld);
    }
    std::swap(Z, next_Z);
    std::swap(W, next_W);
  }
  add_product<0>(-1.0, b.at(b.U, a), Z, cleared_part_block(p, 0), na, b.size[f], na, ld);
  add_product<0>(-1.0, b.at(b.U, a), W, cleared_part_block(p, 2), na, b.size[f], ns, ld);
}

void ChainPartition::factorize_separators(const Blocks& b) {
  const Blocks sb = separator_blocks();
  const int sld = separators_.B;
  std::fill(separator_data_.begin(), separator_data_.end(), 0.0);
  for (int j = 0; j < separators_.blocks; ++j) {
    const int s = separator_block_[j], n = b.size[s];
    add_block(b.at(b.D, s), b.B, sb.at(sb.D, j), sld, n, n);
  }
  for (int p = 0; p < part_count(); ++p) {
    const Part& part = parts_[p];
    if (part.sep_before >= 0) {
      const int j = part.sep_before, n = separators_.size[j];
      add_block(part_block(p, 0), B_, sb.at(sb.D, j), sld, n, n);
      if (part.kind == Kind::Interior)
        add_block(part_block(p, 2), B_, sb.at(sb.U, j), sld, n, separators_.size[part.sep_after]);
    }
    if (part.sep_after >= 0) {
      const int j = part.sep_after, n = separators_.size[j];
      add_block(part_block(p, 1), B_, sb.at(sb.D, j), sld, n, n);
      if (part.kind == Kind::Interior)
        add_block(part_block(p, 3), B_, sb.at(sb.L, j), sld, n, separators_.size[part.sep_before]);
    }
  }
  int singular = 0;
  for (size_t c = 0; c + 1 < separator_chain_ptr_.size(); ++c) {
    FactorChain{sb, separator_chain_ptr_.data(), &singular}(static_cast<int>(c));
    if (singular != 0)
      throw SimulationError("chain solver: the Schur complement of separator block " +
                            std::to_string(separator_block_[singular - 1]) +
                            " is singular (a constraint row without a coordinate to hold, or a mechanism)");
  }
}

void ChainPartition::forward_part(const Blocks& b, int p, const double* r, double* x,
                                  const FirstBlockCorrection* correct) const {
  const Part& part = parts_[p];
  const int f = part.first, l = part.last, ld = b.B;
  auto unrolled = [&](int k) { return this->unrolled(b, part, k); };
  if (part.kind == Kind::Whole || part.kind == Kind::Tail) {
    for (int k = l - 1; k >= f; --k) forward<false>(b, r, x, k, k + 1 < l, unrolled(k));
    if (part.kind == Kind::Whole) {  // needs no separator: its back substitution follows at once
      if (correct && f == 0) correct_first_block(b, x, *correct);
      for (int k = f + 1; k < l; ++k) backward<false>(b, x, k, unrolled(k));
      return;
    }
    double* term = part_vector(p, 0);  // -U_before y_first
    std::fill(term, term + B_, 0.0);
    add_product_vector<0>(-1.0, b.at(b.U, part.before), x + f * ld, term, b.size[part.before], b.size[f], ld);
    return;
  }
  for (int k = f; k < l; ++k) forward<true>(b, r, x, k, k > f, unrolled(k));
  const int s = part.after;
  double* after = part_vector(p, 1);  // -L_after y_{last-1}
  std::fill(after, after + B_, 0.0);
  add_product_vector<0>(-1.0, b.at(b.L, s), x + (l - 1) * ld, after, b.size[s], b.size[l - 1], ld);
  if (part.kind != Kind::Interior) return;
  // Horner, as in the factorization: w = y_{last-1}, w = y_k - U'_k w down to `first`; then
  // block a's right-hand side gets -U_a w.
  std::vector<double> w(B_), next(B_);
  std::copy(x + (l - 1) * ld, x + (l - 1) * ld + b.size[l - 1], w.begin());
  for (int k = l - 2; k >= f; --k) {
    std::copy(x + k * ld, x + k * ld + b.size[k], next.begin());
    add_product_vector<0>(-1.0, b.at(b.U, k), w.data(), next.data(), b.size[k], b.size[k + 1], ld);
    w.swap(next);
  }
  double* before = part_vector(p, 0);
  std::fill(before, before + B_, 0.0);
  add_product_vector<0>(-1.0, b.at(b.U, part.before), w.data(), before, b.size[part.before], b.size[f], ld);
}

void ChainPartition::solve_separators(const Blocks& b, const double* r, double* x,
                                      const FirstBlockCorrection* correct) const {
  const Blocks sb = separator_blocks();
  const int sld = separators_.B;
  for (int j = 0; j < separators_.blocks; ++j) {
    const int s = separator_block_[j];
    std::copy(r + s * b.B, r + s * b.B + b.size[s], separator_r_.begin() + j * sld);
  }
  for (int p = 0; p < part_count(); ++p) {
    const Part& part = parts_[p];
    if (part.sep_before >= 0)
      add_block(part_vector(p, 0), 1, &separator_r_[part.sep_before * sld], 1, separators_.size[part.sep_before], 1);
    if (part.sep_after >= 0)
      add_block(part_vector(p, 1), 1, &separator_r_[part.sep_after * sld], 1, separators_.size[part.sep_after], 1);
  }
  const int* chains = separator_chain_ptr_.data();
  double *sr = separator_r_.data(), *sx = separator_x_.data();
  for (size_t c = 0; c + 1 < separator_chain_ptr_.size(); ++c) {
    if (c == 0 && correct && first_block_is_separator()) {  // block 0, the first separator, is reached last
      SolveChain<Sweeps::Forward>{sb, chains, sr, sx}(0);
      correct_first_block(b, sx, *correct);
      SolveChain<Sweeps::Backward>{sb, chains, sr, sx}(0);
    } else {
      SolveChain<>{sb, chains, sr, sx}(static_cast<int>(c));
    }
  }
  for (int j = 0; j < separators_.blocks; ++j) {
    const int s = separator_block_[j];
    std::copy(separator_x_.begin() + j * sld, separator_x_.begin() + j * sld + b.size[s], x + s * b.B);
  }
}

void ChainPartition::backward_part(const Blocks& b, int p, double* x) const {
  const Part& part = parts_[p];
  const int f = part.first, l = part.last, ld = b.B;
  auto unrolled = [&](int k) { return this->unrolled(b, part, k); };
  switch (part.kind) {
    case Kind::Whole:  // done by forward_part
      return;
    case Kind::Tail:
      for (int k = f; k < l; ++k) backward<false>(b, x, k, unrolled(k));
      return;
    case Kind::Head:
      for (int k = l - 1; k >= f; --k) backward<true>(b, x, k, unrolled(k));
      return;
    case Kind::Interior: {
      const int a = part.before, na = b.size[a];
      for (int k = l - 1; k >= f; --k) {
        backward<true>(b, x, k, unrolled(k));
        add_product_vector<0>(-1.0, b.at(spike_.data(), k), x + a * ld, x + k * ld, b.size[k], na, ld);
      }
      return;
    }
  }
}

}  // namespace catenary
