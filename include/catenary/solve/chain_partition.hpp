#pragma once
// All cores on few long chains: the CPU chain elimination (solve/chain_solver.hpp) cuts each
// chain into parts at separator blocks, eliminates every part at once (a thread each), solves the
// small block-tridiagonal system left in the separators (their Schur complement) alone, and then
// back-substitutes every part at once. Chains that are not cut (a sweep's many copies, or short
// chains) are eliminated whole, a thread each, from their last block down to their first as the
// device's chain elimination does (solve/chain_elimination.hpp's steps, prefetched as a tail's).
//
// The parts of a chain cut P ways, separators s_1 .. s_{P-1}:
//   - head, blocks before s_1: the block Thomas steps towards s_1;
//   - tail, blocks after s_{P-1}: the same steps from the chain's end towards s_{P-1} (L and U
//     swap roles), so a chain cut in two costs no more work than a whole one;
//   - interior, between separators a and b: Thomas steps from a towards b that keep a's unknowns
//     as unknowns. Block k's coupling to a, the spike G_k, fills in: G_{a+1} = L_{a+1},
//     G_{k+1} = -L_{k+1} G'_k with G'_k = D_k^-1 G_k, and back substitution reads
//     x_k = y_k - U'_k x_{k+1} - G'_k x_a. Block a's row gets the part's Schur complement from a
//     backward (Horner) sweep over the same factors, which needs no storage per block. An interior
//     block costs about kInteriorCost Thomas steps (see the .cpp), so interior parts are shorter.
// Pivoting stays inside each block, as in the whole chain's elimination; a cut changes the order
// in which blocks are eliminated, so each part (and the separators' Schur complement) must be
// regular on its own, as every leading block of a whole chain must.
#include <functional>
#include <vector>

#include "catenary/solve/block_layout.hpp"

namespace catenary {

class ChainPartition {
 public:
  // Cuts the chains (chain_ptr over the layout's blocks) for `threads` threads: a chain gets
  // threads / chains parts, fewer where a part would have under kMinPartBlocks blocks. One thread:
  // no cuts, and the chains one after another. first_block_last: block 0 is to be eliminated
  // last (a border on it: solve/chain_solver.hpp); where its chain is cut, block 0 is then its
  // first separator and the part after it interior (about kInteriorCost times a head's cost a
  // block), instead of a head part.
  ChainPartition(const BlockLayout& layout, const std::vector<int>& chain_ptr, int threads,
                 bool first_block_last = false);

  // Factorizes the blocks b (D, L, U of the layout, as scattered); throws SimulationError when a
  // block or a separator's Schur complement is singular.
  void factorize(const Blocks& b);
  // x = A^-1 r on padded vectors (block k's entries at k * B); x may not alias r.
  void solve(const Blocks& b, const double* r, double* x) const;
  // x = A^-1 (r - delta) for a delta in block 0 that depends on block 0's solution (planned with
  // first_block_last): once the elimination has reached block 0, correct(x_0, delta) gets its
  // solution for r and writes delta (padded to B); the back substitution then takes x_0 less F^-1
  // delta (solve_first_block). A border on block 0 alone costs one solve so, not two.
  using FirstBlockCorrection = std::function<void(const double* x_first, double* delta)>;
  void solve_correcting_first_block(const Blocks& b, const double* r, double* x,
                                    const FirstBlockCorrection& correct) const;

  int part_count() const { return static_cast<int>(parts_.size()); }
  // x = F^-1 x for block 0's values x (padded to B), F block 0's factorization at the end of the
  // elimination. Planned with first_block_last, block 0 is eliminated last (an uncut chain from
  // its end down; a cut one's first separator, after the parts, the separators downwards): F is
  // T's Schur complement onto it, and x becomes block 0's entries of T^-1 x for a right-hand side
  // with entries there alone.
  void solve_first_block(const Blocks& b, double* x) const;
  const std::vector<int>& separators() const { return separator_block_; }  // their blocks

 private:
  enum class Kind { Whole, Head, Interior, Tail };
  struct Part {
    Kind kind;
    int first, last;            // its own blocks first .. last - 1
    int before, after;          // its separators' blocks (-1: none)
    int sep_before, sep_after;  // their blocks in the separator system (-1: none)
  };

  bool unrolled(const Blocks& b, const Part& part, int k) const;  // block k's step at N6 (see the .cpp)
  // Block 0 is a cut chain's first separator (planned with first_block_last).
  bool first_block_is_separator() const { return !separator_block_.empty() && separator_block_.front() == 0; }
  // A part's elimination and its terms of the separators' Schur complement.
  void factorize_part(const Blocks& b, int p);
  int eliminate_downwards(const Blocks& b, const Part& part) const;  // tail, whole; a singular block, or -1
  int eliminate_towards_after(const Blocks& b, const Part& part);  // head, interior (with its spike)
  void interior_schur_before(const Blocks& b, int p);
  // `correct` (or null): solve_correcting_first_block's, applied where block 0 is reached.
  void solve_parts(const Blocks& b, const double* r, double* x, const FirstBlockCorrection* correct) const;
  void forward_part(const Blocks& b, int p, const double* r, double* x, const FirstBlockCorrection* correct) const;
  void correct_first_block(const Blocks& b, double* x_first, const FirstBlockCorrection& correct) const;
  void backward_part(const Blocks& b, int p, double* x) const;
  void factorize_separators(const Blocks& b);
  void solve_separators(const Blocks& b, const double* r, double* x, const FirstBlockCorrection* correct) const;
  Blocks separator_blocks() const;
  // A part's B x B scratch block `which` (0, 1: its Schur complement to D_before, D_after; 2: the
  // coupling of `before` to `after`, 3: of `after` to `before`) and B-vector `which` (0, 1: its
  // right-hand side terms to before, after).
  double* part_block(int p, int which) const { return part_blocks_.data() + (4 * p + which) * B_ * B_; }
  double* part_vector(int p, int which) const { return part_vectors_.data() + (2 * p + which) * B_; }
  double* cleared_part_block(int p, int which);

  int B_;
  bool parallel_;
  std::vector<Part> parts_;
  std::vector<int> singular_;  // per part: a singular block + 1
  std::vector<double> spike_;  // G'_k of interior blocks, at the layout's slots
  mutable std::vector<double> part_blocks_, part_vectors_;
  // The separators' block-tridiagonal system, chain by chain.
  BlockLayout separators_;
  std::vector<int> separator_block_, separator_chain_ptr_;
  mutable std::vector<double> separator_data_;  // D, L, U
  mutable std::vector<int> separator_pivots_;
  mutable std::vector<double> separator_r_, separator_x_;
};

}  // namespace catenary
