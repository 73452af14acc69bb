#pragma once
// A direct solver over a square CSR matrix whose pattern is fixed after analyze(): the interface
// of the CUDA backend's linear solve. Pointers are in the memory of the solver's side (device
// pointers for cuSOLVER, host pointers for the host reference).
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "catenary/solve/block_solver_options.hpp"

namespace catenary {

class CsrSolver {
 public:
  virtual ~CsrSolver() = default;
  // Symbolic analysis of the pattern, once.
  virtual void analyze(int size, int nonzeros, const int* row_ptr, const int* col_index) = 0;
  // Bytes of working memory the factorization needs beyond the matrix (after analyze).
  virtual size_t workspace_bytes() const = 0;
  // Numeric factorization of these values (the pattern of analyze).
  virtual void factorize(const double* values) = 0;
  // x = A^-1 rhs with the last factorization; x and rhs do not overlap (here and below: the block
  // solvers read rhs after writing x, for held rows).
  virtual void solve(const double* rhs, double* x) = 0;
  // The same for a Newton update, which the iteration corrects: a solver may solve it from a less
  // exact copy of its factors (the block-tridiagonal solver's float factors, block_layout.hpp).
  virtual void solve_newton_update(const double* rhs, double* x) { solve(rhs, x); }
  // The same for `count` right-hand sides, the k-th at rhs + k * stride (its solution at
  // x + k * stride); one at a time unless a solver does better.
  virtual void solve_many(const double* rhs, double* x, int count, int stride) {
    for (int k = 0; k < count; ++k) solve(rhs + static_cast<long>(k) * stride, x + static_cast<long>(k) * stride);
  }
  // The caller's unknowns in another order and in two vectors: the solver's unknown p is entry
  // outer[p] of [top; bottom], top holding the first `split` (the CUDA backend's coordinates and
  // multipliers). A solver that returns true (after analyze; outer must be a permutation of its
  // size) then solves from and into those vectors (solve_outer) with the outer order folded into
  // its own maps: the caller's copy of the right-hand side into the solver's order and of the
  // solution back would be two passes over the unknowns a solve, on top of the solver's own.
  virtual bool take_outer_order(const std::vector<int>& outer, int split) {
    (void)outer, (void)split;
    return false;
  }
  // [x_top; x_bottom] = A^-1 [top; bottom] in the outer order (after take_outer_order returned
  // true); newton_update: as solve_newton_update.
  virtual void solve_outer(const double* top, const double* bottom, double* x_top, double* x_bottom,
                           bool newton_update) {
    (void)top, (void)bottom, (void)x_top, (void)x_bottom, (void)newton_update;
    throw std::logic_error("solve_outer: the solver took no outer order");
  }
  // Iterations of all solves so far (iterative solvers; a direct solver has none).
  virtual long iterations() const { return 0; }
  // Its method where the solver has several (the block solver: "block cyclic reduction" or "block
  // chain elimination"), for the solver's name (after analyze; empty for a solver of one method).
  virtual std::string method() const { return ""; }
  // How it lays out its factors where that depends on the pattern, for the solver's name (after
  // analyze; empty where there is nothing to say).
  virtual std::string layout_note() const { return ""; }
  // How many leading unknowns form the block a factorization eliminates last (0: none such). For a
  // right-hand side with entries only there, the solution's entries there are that block's
  // (factorized, fully updated) system solved alone: solve_leading_block_many, which forms only
  // those entries of x (after analyze).
  virtual int leading_block_solved_last() const { return 0; }
  virtual void solve_leading_block_many(const double* rhs, double* x, int count, int stride) {
    solve_many(rhs, x, count, stride);
  }
  // x = A^-1 (rhs - delta) for a delta in the leading block that depends on that block's solution
  // (after analyze, with leading_block_solved_last() > 0): once the elimination has reached the
  // block, correct(x_lead, delta) gets the block's solution x_lead for rhs and writes delta (both
  // leading_block_solved_last() values in the solver's memory); the sweeps back over the rest
  // then take the corrected block, so the solve costs one sweep each way. A border coupled to the
  // leading block alone (solve/border_split.hpp) is solved so: x_b from x_lead, delta = B x_b.
  using LeadingBlockCorrection = std::function<void(const double* x_lead, double* delta)>;
  virtual void solve_correcting_leading_block(const double*, double*, const LeadingBlockCorrection&) {
    throw std::logic_error("solve_correcting_leading_block: the solver eliminates no leading block last");
  }
};

// UMFPACK on host CSR arrays: stands in for cuSOLVER when the CUDA backend's code runs on the host.
std::unique_ptr<CsrSolver> make_host_csr_solver();

}  // namespace catenary

#ifdef CATENARY_WITH_CUDA
namespace catenary {
// cuSOLVER's sparse QR (the low-level csrqr API) on device CSR arrays: the symbolic analysis runs
// once in analyze(), the numeric factorization in factorize() (a zero pivot throws
// SimulationError), and each solve() uses that factor. No pivoting or reordering is done, so the
// caller orders the unknowns (newton_unknown_order).
std::unique_ptr<CsrSolver> make_cusolver_qr_solver();
// How the block-tridiagonal solver eliminates: block cyclic reduction (2 log2(N) dependent steps
// for chains of up to N blocks, each step parallel over all blocks: long chains), or block elimination along
// each chain (depth: the longest chain; many short chains, as a sweep's).
enum class BlockMethod { CyclicReduction, ChainElimination };
// A block-tridiagonal matrix whose block k holds the unknowns block_ptr[k] .. block_ptr[k + 1] - 1
// and whose chain c, coupling with no other, is blocks chain_ptr[c] .. chain_ptr[c + 1] - 1
// (kernels/block_tridiagonal_solver.cu); on the device, or the same code on the host.
// right_hand_sides: how many its solve_many is planned for (the room is allocated in analyze()).
// method: none for the solver's own choice, preferred_block_method(chain_ptr) and then, once
// analyze() knows the blocks, chain elimination where its interleaved groups apply and
// interleaved_elimination_preferred(chains, reuses_factorizations) says so; reuses_factorizations:
// the caller solves several times from a factorization (modified Newton).
// options: held rows out of the blocks, and the float copy of the factors (BlockSolverOptions).
std::unique_ptr<CsrSolver> make_block_tridiagonal_solver(const std::vector<int>& block_ptr,
                                                          const std::vector<int>& chain_ptr,
                                                          std::optional<BlockMethod> method, bool on_device,
                                                          int right_hand_sides = 1, bool reuses_factorizations = false,
                                                          const BlockSolverOptions& options = {});
// The faster method on an H100 for chains of these lengths (chain_ptr as above), from measured costs.
BlockMethod preferred_block_method(const std::vector<int>& chain_ptr);
// Whether chain elimination by interleaved groups of 32 chains (equal chains of 6 x 6 blocks,
// solve/interleaved_chain_elimination.hpp) beats cyclic reduction for `chains` such chains, from
// H100 measurements: only where a factorization serves several solves, on enough chains.
bool interleaved_elimination_preferred(int chains, bool reuses_factorizations);
// The levels block cyclic reduction takes for these chains: ceil(log2) of the longest chain's
// blocks (after them no two blocks left are of one chain).
int cyclic_reduction_levels(const std::vector<int>& chain_ptr);
// A matrix whose last `border` unknowns border a block-tridiagonal rest (the bordered order of
// assembly/block_chain_ordering.hpp): the rest by `inner` (a block-tridiagonal solver of its
// size), the border by its Schur complement (kernels/bordered_solver.cu). Each factorization
// costs one solve with the inner solver per right-hand side of split_border (the border columns
// coupled to the blocks, or the block rows coupled to the border, whichever are fewer;
// solve/border_split.hpp), kBorderRightHandSides at a time (solve_many); each solve two (one where
// the border touches only the inner solver's leading block: solve_correcting_leading_block).
constexpr int kBorderRightHandSides = 8;
std::unique_ptr<CsrSolver> make_bordered_solver(std::unique_ptr<CsrSolver> inner, int border, bool on_device);
// Restarted GMRES with a block-Jacobi preconditioner over the same node blocks
// (kernels/krylov_solver.cu), for mass-dominated matrices; throws SimulationError when it does
// not converge to 1e-12 relative residual.
std::unique_ptr<CsrSolver> make_gmres_solver(std::vector<int> block_ptr, bool on_device);
}  // namespace catenary
#endif
