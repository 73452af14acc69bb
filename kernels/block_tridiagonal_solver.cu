// The block-tridiagonal solver for the Newton matrix of chain models (the order of
// assembly/block_chain_ordering.hpp) behind the CsrSolver interface, by block cyclic reduction
// (cyclic_reduction_steps.cuh) or by elimination along each chain (solve/chain_elimination.hpp),
// written once over a MemorySpace like the backend. Written by hand because the CUDA libraries
// have no block-tridiagonal solver: cuSPARSE's gtsv2 is for scalar tridiagonal systems,
// cuSOLVER's sparse QR does not exploit the band, and cuDSS is not part of the toolkit.
//
// Each block is worked on at its own size and stored as its own rows, B wide (B: the largest
// block; solve/block_layout.hpp): D_k (diagonal), L_k (coupling to block k - 1), U_k (to k + 1).
// Rows that hold one coordinate (a pinned end's) leave the blocks (solve/held_rows.hpp), so a
// pinned cable's blocks are all 6 x 6, stored 6 wide, not 9.
//
// With BlockSolverOptions::float_factors (the default), a Newton update's solve
// (solve_newton_update) other than the first after a factorization reads a float copy of D, L, U
// and the saved couplings, made then, in double arithmetic: half the factors' bytes. Modified
// Newton solves about twice a step and factorizes once in many steps, and its solves are what
// bound a sweep's step; the copy cuts the solves by 16 to 19 % in the same Newton iterations
// (docs/performance.md, Linear solvers). Full Newton and the one-off solves stay in double. Chain
// elimination in the interleaved layout keeps the same copy of its D (inverses), L' and U.
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "backend_functors.cuh"
#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/core/host_device.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/chain_elimination.hpp"
#include "catenary/solve/csr_solver.hpp"
#include "catenary/solve/dense_block.hpp"
#include "catenary/solve/held_rows.hpp"
#include "catenary/solve/interleaved_chain_elimination.hpp"
#include "cyclic_reduction_steps.cuh"
#include "launch_graph.cuh"
#include "memory_space.cuh"
#include "padded_vectors.cuh"

namespace catenary::cuda {

namespace {

// Both methods share the block storage, the scatter from the CSR values and the solve's padded
// vectors; chain elimination needs neither the saved couplings nor y. For a batch of equally long
// chains of 6 x 6 blocks, chain elimination keeps the blocks and the padded vectors
// chain-interleaved (solve/interleaved_chain_elimination.hpp): the scatter's destinations and the
// vectors' indices are moved there once, at analyze().
template <class Space>
class BlockTridiagonalSolver : public CsrSolver {
  using Doubles = ArrayOf<Space, double>;
  using Floats = ArrayOf<Space, float>;
  using Ints = ArrayOf<Space, int>;
  using Longs = ArrayOf<Space, long>;
  // The held rows' indices into the right-hand side and the solution: of the pair's row r, its
  // coordinate j, and its entries' columns (HeldRows).
  struct HeldIndices {
    Ints row, coordinate, entry_column;
    HeldIndices() = default;
    HeldIndices(const std::vector<int>& r, const std::vector<int>& j, const std::vector<int>& columns)
        : row(r.begin(), r.end()), coordinate(j.begin(), j.end()), entry_column(columns.begin(), columns.end()) {}
  };

 public:
  BlockTridiagonalSolver(const std::vector<int>& block_ptr, const std::vector<int>& chain_ptr,
                         std::optional<BlockMethod> method, int right_hand_sides, bool reuses_factorizations,
                         const BlockSolverOptions& options)
      : block_ptr_(block_ptr),
        options_(options),
        method_(method.value_or(preferred_block_method(chain_ptr))),
        chooses_method_(!method),
        reuses_factorizations_(reuses_factorizations),
        right_hand_sides_(right_hand_sides) {
    const BlockLayout whole(block_ptr);  // the blocks with their held rows: B bounds the layout's
    if (whole.blocks < 1 || whole.B > kMaxBlock)
      throw std::invalid_argument("block-tridiagonal solver: " + std::to_string(whole.blocks) + " blocks of up to " +
                                  std::to_string(whole.B) + " unknowns (at most " + std::to_string(kMaxBlock) + ")");
    check_chains(chain_ptr, whole.blocks);
    chains_ = static_cast<int>(chain_ptr.size()) - 1;
    chain_starts_ = chain_ptr;
    chain_ptr_ = Ints(chain_ptr.begin(), chain_ptr.end());
  }

  // The layout leaves out the pattern's held rows (solve/held_rows.hpp).
  void analyze(int size, int nonzeros, const int* row_ptr, const int* col_index) override {
    graphs_.forget();  // their arrays are made anew
    const std::vector<int> rows = to_host<Space>(row_ptr, size + 1), cols = to_host<Space>(col_index, nonzeros);
    const std::vector<int> entry_row = entry_rows(rows);
    const HeldRows held = options_.take_out_held_rows ? find_held_rows(block_ptr_, entry_row, cols) : HeldRows{};
    layout_ = BlockLayout(block_ptr_, held);
    blocks_ = layout_.blocks;
    B_ = layout_.B;
    const BlockLayout& layout = layout_;
    const size_t per_array = layout.slots();
    BlockScatter scatter = block_scatter(layout, chain_starts_, entry_row, cols);
    std::vector<int> rhs_index = layout.equation_index, x_index = layout.vector_index;
    if (chooses_method_)  // its own choice, now that the blocks without their held rows are known
      method_ = interleavable(layout, chain_starts_) && interleaved_elimination_preferred(chains_, reuses_factorizations_)
                    ? BlockMethod::ChainElimination
                    : preferred_block_method(chain_starts_);
    interleaved_ = method_ == BlockMethod::ChainElimination && interleavable(layout, chain_starts_);
    if (interleaved_) interleave(scatter, rhs_index, x_index);
    size_ = size;
    nonzeros_ = nonzeros;
    destination_ = Ints(scatter.destination.begin(), scatter.destination.end());
    uncovered_ = Ints(scatter.uncovered.begin(), scatter.uncovered.end());
    rhs_index_ = Ints(rhs_index.begin(), rhs_index.end());
    // Each equation has its own padded entry: where they are all the entries (no block narrower
    // than B), the scatter writes the whole padded right-hand side.
    scatter_fills_padded_ = std::count_if(rhs_index.begin(), rhs_index.end(), [](int i) { return i >= 0; }) ==
                            static_cast<long>(layout.blocks) * layout.B;
    x_index_ = Ints(x_index.begin(), x_index.end());
    float_factors_ = keeps_float_copy() && options_.float_factors;
    held_ = held.size();
    held_in_block_0_ = std::count_if(held.row.begin(), held.row.end(), [&](int r) { return r < block_ptr_[1]; });
    held_at_ = HeldIndices(held.row, held.coordinate, held.entry_column);
    held_entry_ptr_ = Ints(held.entry_ptr.begin(), held.entry_ptr.end());
    held_entry_slot_ = Ints(held.entry_slot.begin(), held.entry_slot.end());
    outer_ = Outer{};
    held_values_ = Doubles(held.entry_slot.size(), 0.0);
    block_size_ = Ints(layout.size.begin(), layout.size.end());
    block_offset_ = Longs(layout.offset.begin(), layout.offset.end());
    blocks_data_ = Doubles(3 * per_array, 0.0);
    pivots_ = Ints(static_cast<size_t>(blocks_) * B_, 0);
    r_ = Doubles(static_cast<size_t>(blocks_) * B_ * right_hand_sides_, 0.0);
    x_ = Doubles(r_.size(), 0.0);
    if (method_ == BlockMethod::CyclicReduction) {
      plan_levels();
      saved_data_ = Doubles(2 * std::max<size_t>(saved_slots_, 1), 0.0);
      y_ = Doubles(r_.size(), 0.0);
    }
    singular_ = Ints(1, 0);
    lead_delta_ = Doubles(B_, 0.0);
    lead_x_ = Doubles(interleaved_ ? B_ : 0, 0.0);
  }

  std::string method() const override {
    return method_ == BlockMethod::CyclicReduction ? "block cyclic reduction" : "block chain elimination";
  }

  std::string layout_note() const override {
    // Float factors are the default where kept: only their absence is named.
    const bool double_factors = keeps_float_copy() && !float_factors_;
    return std::string(interleaved_ ? " (interleaved chains)" : "") + (double_factors ? " (double factors)" : "");
  }

  size_t workspace_bytes() const override {
    return sizeof(double) * (3 * layout_.slots() + saved_data_.size() + r_.size() + x_.size() + y_.size() +
                             lead_delta_.size() + lead_x_.size() + held_values_.size()) +
           sizeof(float) * (float_blocks_data_.size() + float_saved_data_.size()) +
           sizeof(int) *
               (static_cast<size_t>(nonzeros_) + uncovered_.size() + 2 * static_cast<size_t>(size_) +
                outer_.rhs_index.size() + outer_.x_index.size() + outer_.held.row.size() +
                outer_.held.coordinate.size() + outer_.held.entry_column.size() +
                static_cast<size_t>(B_ + 1) * blocks_ + chain_ptr_.size() + 3 * held_ + 1 + 2 * held_values_.size()) +
           sizeof(long) * (static_cast<size_t>(blocks_) + saved_ + 2);
  }

  void factorize(const double* values) override {
    graphs_.run({values}, [&] { factorize_launches(values); });
    solves_since_factorization_ = 0;
    float_copy_current_ = false;
    const int singular = singular_[0];
    if (singular != 0)
      throw SimulationError("block-tridiagonal solver: block " + std::to_string(singular - 1) +
                            " is singular (a constraint row without a coordinate to hold, or a mechanism)");
  }

  void solve(const double* rhs, double* x) override { solve_many(rhs, x, 1, size_); }

  // From the float copy of the factors where due (newton_update_from_float).
  void solve_newton_update(const double* rhs, double* x) override {
    solve_sweeps(rhs, x, 1, size_, nullptr, newton_update_from_float());
  }

  // The outer order folded into the padded vectors' indices and the held rows' (CsrSolver).
  bool take_outer_order(const std::vector<int>& outer, int split) override {
    if (static_cast<int>(outer.size()) != size_ || split < 0 || split > size_)
      throw std::invalid_argument("block-tridiagonal solver: an outer order of " + std::to_string(outer.size()) +
                                  " unknowns split at " + std::to_string(split) + " for " + std::to_string(size_));
    std::vector<int> position_of(size_, -1);
    for (int p = 0; p < size_; ++p) {
      if (outer[p] < 0 || outer[p] >= size_ || position_of[outer[p]] >= 0)
        throw std::invalid_argument("block-tridiagonal solver: the outer order is not a permutation");
      position_of[outer[p]] = p;
    }
    const std::vector<int> rhs_index = to_host<Space>(raw<int>(rhs_index_), size_),
                           x_index = to_host<Space>(raw<int>(x_index_), size_);
    std::vector<int> outer_rhs(size_), outer_x(size_);
    for (int o = 0; o < size_; ++o) {
      outer_rhs[o] = rhs_index[position_of[o]];
      outer_x[o] = x_index[position_of[o]];
    }
    const auto in_outer = [&](const Ints& positions) {
      std::vector<int> at = to_host<Space>(raw<int>(positions), static_cast<int>(positions.size()));
      for (int& i : at) i = outer[i];
      return at;
    };
    outer_.rhs_index = Ints(outer_rhs.begin(), outer_rhs.end());
    outer_.x_index = Ints(outer_x.begin(), outer_x.end());
    outer_.held = HeldIndices(in_outer(held_at_.row), in_outer(held_at_.coordinate), in_outer(held_at_.entry_column));
    outer_.split = split;
    return true;
  }

  void solve_outer(const double* top, const double* bottom, double* x_top, double* x_bottom,
                   bool newton_update) override {
    if (outer_.rhs_index.empty()) return CsrSolver::solve_outer(top, bottom, x_top, x_bottom, newton_update);
    if (held_ > 0 && (top == x_top || bottom == x_bottom))
      throw std::invalid_argument("block-tridiagonal solver: x overlaps the right-hand side");
    const bool from_float = newton_update && newton_update_from_float();
    grow_vectors(1);
    ++solves_since_factorization_;
    const SplitVector<const double> rhs{top, bottom, outer_.split};
    const SplitVector<double> x{x_top, x_bottom, outer_.split};
    graphs_.run({top, x_top, 1, 0, 2 + from_float, bottom, x_bottom},
                [&] { outer_sweep_launches(rhs, x, from_float); });
  }

  // Both methods eliminate block 0 last (cyclic reduction: member 0 of every level is even;
  // chain elimination: from each chain's end down), so its factorized D is T's Schur complement
  // onto it. A right-hand side with entries only in block 0 leaves the forward sweep with nothing
  // to do (every other block's r stays zero), so block 0's entries of the solution are one small
  // solve: a border coupled to a cable's first node (a crane's boom) needs no sweeps over the
  // chain at its factorization.
  // Not with held rows in block 0: the leading positions are not then block 0's unknowns.
  int leading_block_solved_last() const override { return held_in_block_0_ > 0 ? 0 : layout_.size[0]; }

  void solve_leading_block_many(const double* rhs, double* x, int count, int stride) override {
    const auto policy = graphs_.policy();
    const thrust::counting_iterator<int> first(0);
    const long padded = static_cast<long>(blocks_) * B_;
    const int lead = layout_.size[0];
    grow_vectors(count);
    thrust::for_each(policy, first, first + lead,
                     ScatterEach<>{raw<int>(rhs_index_), rhs, raw<double>(r_), count, stride, padded, false});
    if (interleaved_)
      launch_each(1, InterleavedLeadingBlock{interleaved_blocks(), raw<double>(r_), raw<double>(x_), nullptr}, count);
    else
      launch_each(1, SolveLeft<double>{blocks(), 1, raw<double>(r_), raw<double>(x_)}, count);  // its member 0: block 0
    thrust::for_each(policy, first, first + lead,
                     ScatterEach<>{raw<int>(x_index_), raw<double>(x_), x, count, padded, stride, true});
  }

  // The right-hand sides in one pass: each step is one launch for all of them, so a block's
  // factors are read once per pass instead of once per right-hand side.
  void solve_many(const double* rhs, double* x, int count, int stride) override {
    solve_sweeps(rhs, x, count, stride, nullptr);
  }

  // Block 0 is eliminated last by both methods: its solution is known between the sweeps.
  void solve_correcting_leading_block(const double* rhs, double* x, const LeadingBlockCorrection& correct) override {
    if (leading_block_solved_last() == 0) CsrSolver::solve_correcting_leading_block(rhs, x, correct);  // throws
    solve_sweeps(rhs, x, 1, size_, &correct);
  }

 private:
  // The factorization's loops; a singular block's number + 1 into singular_.
  void factorize_launches(const double* values) {
    const auto policy = graphs_.policy();
    const thrust::counting_iterator<int> first(0);
    thrust::fill(policy, thrust::make_permutation_iterator(blocks_data_.begin(), uncovered_.begin()),
                 thrust::make_permutation_iterator(blocks_data_.begin(), uncovered_.end()), 0.0);
    thrust::for_each(policy, first, first + nonzeros_,
                     ScatterValues{raw<int>(destination_), values, raw<double>(blocks_data_)});
    thrust::for_each(policy, first, first + static_cast<int>(held_values_.size()),
                     GatherAt{raw<int>(held_entry_slot_), values, raw<double>(held_values_)});
    thrust::fill(policy, singular_.begin(), singular_.end(), 0);
    const Blocks b = blocks();
    if (interleaved_) {
      using Factor = FactorInterleavedChains;
      run_blocks<Space, Factor::kThreads, Factor::kSharedValues>(
          chain_groups(chains_), Factor{interleaved_blocks(), raw<int>(singular_)}, graphs_.stream());
      return;
    }
    if (method_ == BlockMethod::ChainElimination) {
      each_item<kChainThreads>(chains_, FactorChain{b, raw<int>(chain_ptr_), raw<int>(singular_)});
      return;
    }
    int* singular = raw<int>(singular_);
    const auto launch = [&](int items, const auto& step) { each_item(items, step); };
    for (size_t l = 0; l < tail_begin_; ++l) factor_level(b, levels_[l], singular, launch);
    if (has_tail())
      run_in_one_block<Space, kTailThreads>(FactorTail{b, tail_levels(), singular}, graphs_.stream());
    else
      each_item(left_.count, FactorLeft{b, left_.stride, singular});
  }

  // Whether a Newton update's solve reads the float copy of the factors (float_factors_), made here
  // where due. Not the first solve after a factorization: full Newton, one solve a factorization,
  // never pays for the copy, and modified Newton makes it once for the many solves that follow.
  bool newton_update_from_float() {
    if (!float_factors_ || solves_since_factorization_ == 0) return false;
    if (!float_copy_current_) {
      // Made at the first such solve: full Newton never holds the copy's memory (the device-memory
      // estimate counts it all the same).
      if (float_blocks_data_.empty()) {
        float_blocks_data_ = Floats(blocks_data_.size());
        float_saved_data_ = Floats(saved_data_.size());
      }
      thrust::copy(graphs_.policy(), blocks_data_.begin(), blocks_data_.end(), float_blocks_data_.begin());
      thrust::copy(graphs_.policy(), saved_data_.begin(), saved_data_.end(), float_saved_data_.begin());
      float_copy_current_ = true;
    }
    return true;
  }

  // solve_many's pass; with `correct`, block 0's correction between the forward and the backward
  // sweeps (one right-hand side); from_float: the sweeps read the float copy.
  void solve_sweeps(const double* rhs, double* x, int count, int stride, const LeadingBlockCorrection* correct,
                    bool from_float = false) {
    if (held_ > 0 && rhs == x) throw std::invalid_argument("block-tridiagonal solver: x overlaps the right-hand side");
    grow_vectors(count);
    ++solves_since_factorization_;
    if (correct)  // the host's correction comes between the sweeps
      sweep_launches(rhs, x, count, stride, correct, false);
    else
      graphs_.run({rhs, x, count, stride, from_float},
                  [&] { sweep_launches(rhs, x, count, stride, nullptr, from_float); });
  }

  void sweep_launches(const double* rhs, double* x, int count, int stride, const LeadingBlockCorrection* correct,
                      bool from_float) {
    from_float ? sweep_launches_of<float>(rhs, x, count, stride, correct)
               : sweep_launches_of<double>(rhs, x, count, stride, correct);
  }
  template <class V>
  void sweep_launches_of(const double* rhs, double* x, int count, int stride, const LeadingBlockCorrection* correct) {
    const long padded = static_cast<long>(blocks_) * B_;
    solve_pass<V>(count, ScatterEach<double, V>{raw<int>(rhs_index_), rhs, padded_vector<V>(r_), count, stride, padded, false},
                  ScatterEach<V, double>{raw<int>(x_index_), padded_vector<V>(x_), x, count, padded, stride, true},
                  held_row_solve(held_at_, rhs, x, count, stride), correct);
  }

  // The same for one right-hand side in the caller's outer order (take_outer_order).
  void outer_sweep_launches(const SplitVector<const double>& rhs, const SplitVector<double>& x, bool from_float) {
    from_float ? outer_sweep_launches_of<float>(rhs, x) : outer_sweep_launches_of<double>(rhs, x);
  }
  template <class V>
  void outer_sweep_launches_of(const SplitVector<const double>& rhs, const SplitVector<double>& x) {
    solve_pass<V>(1, ScatterOuter<V>{raw<int>(outer_.rhs_index), rhs, padded_vector<V>(r_)},
                  GatherOuter<V>{raw<int>(outer_.x_index), padded_vector<V>(x_), x},
                  SolveHeldRowOuter{held_row_solve(outer_.held, nullptr, nullptr, 1, 0), rhs, x}, nullptr);
  }

  // A padded vector's storage as V: double, or float for a Newton update from the float copy of the
  // factors, whose padded vectors are float too (the first half of the doubles' storage). The
  // solve's precision is the float factors' already (a relative 6e-8 times the blocks' condition);
  // rounding its right-hand side and solution to float adds no more, and the scatter, the sweeps
  // and the gather move half the vectors' bytes (about 3 coordinate-sized double vectors a solve
  // in the 10,000-copy sweep).
  template <class V>
  static V* padded_vector(Doubles& v) {
    return reinterpret_cast<V*>(raw<double>(v));
  }

  // A solve's launches: the right-hand sides into the padded r_ (scatter, one thread an unknown),
  // the sweeps, the solutions out of the padded x_ (gather), then the held rows (held, one thread
  // a pair). V: the padded vectors' type, float for a Newton update from the float copy.
  template <class V, class Scatter, class Gather, class Held>
  void solve_pass(int count, const Scatter& scatter, const Gather& gather, const Held& held,
                  const LeadingBlockCorrection* correct) {
    const auto policy = graphs_.policy();
    const thrust::counting_iterator<int> first(0);
    if (!scatter_fills_padded_) {
      V* r = padded_vector<V>(r_);
      thrust::fill(policy, r, r + static_cast<long>(count) * blocks_ * B_, V(0));
    }
    thrust::for_each(policy, first, first + size_, scatter);
    if constexpr (std::is_same_v<V, float>)
      sweeps_from_float(count);
    else
      sweeps(count, correct);
    thrust::for_each(policy, first, first + size_, gather);
    thrust::for_each(policy, first, first + held_, held);
  }

  // The held rows' solve, their indices those of `at` (positions, or the outer order's).
  SolveHeldRow held_row_solve(HeldIndices& at, const double* rhs, double* x, int count, long stride) {
    return SolveHeldRow{raw<int>(at.row),          raw<int>(at.coordinate), raw<int>(held_entry_ptr_),
                        raw<int>(at.entry_column), raw<double>(held_values_), rhs, x, count, stride, stride};
  }

  // The sweeps from the padded right-hand side r_ to the padded solution x_ (count of each), from
  // the float copy of the factors with float vectors.
  void sweeps_from_float(int count) {
    float *r = padded_vector<float>(r_), *y = padded_vector<float>(y_), *xp = padded_vector<float>(x_);
    if (interleaved_)
      solve_interleaved(SolveInterleavedChains<Sweeps::Both, float, float>{interleaved_blocks(float_blocks()), r, xp},
                        count);
    else
      cyclic_reduction_sweeps(float_blocks(), r, y, xp, count, nullptr);
  }

  // The same from the double factors, with double vectors.
  void sweeps(int count, const LeadingBlockCorrection* correct) {
    const Blocks b = blocks();
    double *r = raw<double>(r_), *y = raw<double>(y_), *xp = raw<double>(x_);
    if (interleaved_) {
      const InterleavedBlocks ib = interleaved_blocks(b);
      if (correct) {
        solve_interleaved(SolveInterleavedChains<Sweeps::Forward>{ib, r, xp}, count);
        correct_leading_block(*correct, xp);
        solve_interleaved(SolveInterleavedChains<Sweeps::Backward>{ib, r, xp}, count);
      } else {
        solve_interleaved(SolveInterleavedChains<>{ib, r, xp}, count);
      }
    } else if (method_ == BlockMethod::ChainElimination) {
      const int* chains = raw<int>(chain_ptr_);
      if (correct) {
        launch_each<kChainThreads>(chains_, SolveChain<Sweeps::Forward>{b, chains, r, xp}, count);
        correct_leading_block(*correct, xp);
        launch_each<kChainThreads>(chains_, SolveChain<Sweeps::Backward>{b, chains, r, xp}, count);
      } else {
        launch_each<kChainThreads>(chains_, SolveChain<>{b, chains, r, xp}, count);
      }
    } else {
      cyclic_reduction_sweeps(b, r, y, xp, count, correct);
    }
  }

  // Cyclic reduction's forward sweep level by level, the members left, then the backward sweep,
  // reading factors of T (double, or the float copy) and vectors of V (the same).
  template <class T, class V>
  void cyclic_reduction_sweeps(const BlocksOf<T>& b, V* r, V* y, V* x, int count,
                               const LeadingBlockCorrection* correct) {
    const auto launch = [&](int items, const auto& step) { launch_each(items, step, count); };
    // A leading block's correction comes with double vectors only (solve_correcting_leading_block).
    const auto correct_leading = [&] {
      if constexpr (std::is_same_v<V, double>) correct_leading_block(*correct, x);
    };
    for (size_t l = 0; l < tail_begin_; ++l) reduce_level(b, levels_[l], r, y, launch);
    if (has_tail()) {
      const long padded = static_cast<long>(blocks_) * B_;
      SolveTail<T, V> tail{b, tail_levels(), r, y, x, count, padded, true, correct == nullptr};
      run_in_one_block<Space, kTailThreads>(tail, graphs_.stream());
      if (correct) {
        correct_leading();
        tail.forward = false, tail.backward = true;
        run_in_one_block<Space, kTailThreads>(tail, graphs_.stream());
      }
    } else {
      launch(left_.count, SolveLeft<T, V>{b, left_.stride, r, x});
      if (correct) correct_leading();
    }
    for (size_t l = tail_begin_; l-- > 0;) back_substitute_level(b, levels_[l], y, x, launch);
  }

  // Whether the last levels run in one thread block: where the members left are few enough.
  bool has_tail() const { return left_.count <= kTailMembers; }

  // The levels from tail_begin_ on and the members left, for FactorTail and SolveTail.
  TailLevels tail_levels() const {
    TailLevels tail{};
    tail.count = static_cast<int>(levels_.size() - tail_begin_);
    for (int l = 0; l < tail.count; ++l) tail.level[l] = levels_[tail_begin_ + l];
    tail.left = left_;
    return tail;
  }

  // Cyclic reduction's levels and their save slots (save slot s: the L, U of one even member of
  // one level, that block's rows, B wide), after the layout.
  void plan_levels() {
    levels_.clear();
    int save = 0, stride = 1, count = blocks_;
    std::vector<long> saved_offset(1, 0);
    for (int l = 0; l < cyclic_reduction_levels(chain_starts_); ++l, stride *= 2, count = (count + 1) / 2) {
      levels_.push_back({stride, count, save});
      for (int j = 0; j < (count + 1) / 2; ++j)
        saved_offset.push_back(saved_offset.back() + static_cast<long>(layout_.size[2 * j * stride]) * B_);
      save += (count + 1) / 2;
    }
    left_ = {stride, count, save};
    // The tail (FactorTail, SolveTail): the last levels of kTailMembers members or fewer, where
    // the members left are that few too.
    tail_begin_ = levels_.size();
    while (tail_begin_ > 0 && levels_[tail_begin_ - 1].count <= kTailMembers &&
           levels_.size() - tail_begin_ < kMaxTailLevels)
      --tail_begin_;
    if (!has_tail()) tail_begin_ = levels_.size();
    saved_ = save;
    saved_slots_ = static_cast<size_t>(saved_offset.back());
    saved_offset_ = Longs(saved_offset.begin(), saved_offset.end());
  }

  // Block 0's solution x_0 (the padded x's first values; interleaved, gathered first) to
  // `correct`, and x_0 -= D_0^-1 delta.
  void correct_leading_block(const LeadingBlockCorrection& correct, double* x) {
    const thrust::counting_iterator<int> first(0);
    double* delta = raw<double>(lead_delta_);
    if (interleaved_) {
      thrust::for_each(graphs_.policy(), first, first + B_,
                       InterleavedLeadingValues{interleaved_chains(), x, raw<double>(lead_x_)});
      correct(raw<double>(lead_x_), delta);
      thrust::for_each(graphs_.policy(), first, first + 1, InterleavedLeadingBlock{interleaved_blocks(), x, x, delta});
      return;
    }
    correct(x, delta);
    thrust::for_each(graphs_.policy(), first, first + 1, CorrectLeadingBlock{blocks(), delta, x});
  }

  // The solver's steps, an item a thread (memory_space.cuh, for_each_item): a level's late steps
  // and a batch's chains are a few thousand items, which Thrust's for_each would put on a few SMs,
  // two items a thread in series. A thread per chain runs in thread blocks of one warp, the other
  // steps in blocks of 128.
  static constexpr int kChainThreads = 32, kStepThreads = 128;
  template <int Threads = kStepThreads, class F>
  void each_item(int items, const F& f) const {
    for_each_item<Space, Threads>(items, f, graphs_.stream());
  }

  // A solve step over `items` items for `count` right-hand sides in one launch. One right-hand
  // side (every Newton solve) runs the step itself: wrapped, the cyclic reduction's forward and
  // top steps spilled 36 bytes at the 32 registers Thrust's kernels got (4 and 0 unwrapped; ptxas
  // sm_90). Threads: kChainThreads for a thread per chain.
  template <int Threads = kStepThreads, class Step>
  void launch_each(int items, const Step& step, int count) const {
    const long padded = static_cast<long>(blocks_) * B_;
    if (count == 1)
      each_item<Threads>(items, step);
    else
      each_item<Threads>(items * count, EachRightHandSide<Step>{step, count, padded});
  }

  // An interleaved solve's sweeps for `count` right-hand sides in one launch, a thread block a
  // group of chains of one of them.
  template <class Solve>
  void solve_interleaved(const Solve& solve, int count) const {
    const int groups = chain_groups(chains_);
    run_blocks<Space, Solve::kThreads, Solve::kSharedValues>(
        groups * count, GroupsOfEachRightHandSide<Solve>{solve, groups, static_cast<long>(blocks_) * B_},
        graphs_.stream());
  }

  // Whether the method's Newton-update solves may read a float copy of the factors.
  bool keeps_float_copy() const { return method_ == BlockMethod::CyclicReduction || interleaved_; }

  // Room in the padded vectors for `count` right-hand sides.
  void grow_vectors(int count) {
    const size_t needed = static_cast<size_t>(count) * blocks_ * B_;
    if (r_.size() >= needed) return;
    graphs_.forget();  // the vectors move
    r_.resize(needed);
    x_.resize(needed);
    if (method_ == BlockMethod::CyclicReduction) y_.resize(needed);
  }

  // The scatter's destinations and the padded vectors' indices moved to the interleaved layout.
  void interleave(BlockScatter& scatter, std::vector<int>& rhs_index, std::vector<int>& x_index) const {
    const InterleavedChains at = interleaved_chains();
    const long per_array = static_cast<long>(layout_.slots()), padded = static_cast<long>(blocks_) * B_;
    move_to_interleaved(at, B_ * B_, per_array, scatter.destination);
    move_to_interleaved(at, B_ * B_, per_array, scatter.uncovered);
    move_to_interleaved(at, B_, padded, rhs_index);
    move_to_interleaved(at, B_, padded, x_index);
  }

  InterleavedChains interleaved_chains() const {
    InterleavedChains at;
    at.chains = chains_;
    at.length = blocks_ / chains_;
    return at;
  }

  template <class T>
  InterleavedBlocksOf<T> interleaved_blocks(const BlocksOf<T>& b) const {
    return InterleavedBlocksOf<T>{interleaved_chains(), b.D, b.L, b.U};
  }
  InterleavedBlocks interleaved_blocks() { return interleaved_blocks(blocks()); }

  Blocks blocks() { return blocks_of(raw<double>(blocks_data_), raw<double>(saved_data_)); }

  BlocksOf<float> float_blocks() { return blocks_of(raw<float>(float_blocks_data_), raw<float>(float_saved_data_)); }

  template <class T>
  BlocksOf<T> blocks_of(T* base, T* saved) {
    const size_t per_array = layout_.slots();
    return BlocksOf<T>{base,
                       base + per_array,
                       base + 2 * per_array,
                       saved,
                       saved + std::max<size_t>(saved_slots_, 1),
                       raw<long>(block_offset_),
                       raw<long>(saved_offset_),
                       raw<int>(pivots_),
                       raw<int>(block_size_),
                       B_};
  }

  const std::vector<int> block_ptr_;  // the order's blocks, held rows included
  const BlockSolverOptions options_;
  BlockLayout layout_;                // without the held rows (analyze)
  int blocks_ = 0, B_ = 0, chains_ = 0, saved_ = 0, size_ = 0, nonzeros_ = 0;
  int held_ = 0, held_in_block_0_ = 0;  // held rows, of them in block 0
  BlockMethod method_;
  const bool chooses_method_, reuses_factorizations_;  // method_ the solver's own (analyze); for modified Newton
  bool interleaved_ = false;  // chain elimination in the interleaved layout (solve/interleaved_chain_elimination.hpp)
  bool scatter_fills_padded_ = false;  // the right-hand side's scatter leaves no padded entry unwritten
  // Cyclic reduction's and interleaved elimination's Newton-update solves read a float copy of the
  // factors (BlockSolverOptions::float_factors), made at the second solve after a factorization.
  bool float_factors_ = false, float_copy_current_ = false;
  long solves_since_factorization_ = 0;
  int right_hand_sides_;  // the padded vectors' room (solve_many grows it when asked for more)
  std::vector<int> chain_starts_;
  size_t saved_slots_ = 0;  // doubles of one saved array (L or U)
  std::vector<Level> levels_;
  Level left_{1, 0, 0};  // the members left after the last level
  size_t tail_begin_ = 0;  // levels from here on, with the members left, run as the tail (has_tail)
  // Per position: where its equation goes in the padded vectors (rhs_index_) and where its
  // unknown is (x_index_), -1 where none (held rows); the held rows' pairs and entries.
  Ints destination_, uncovered_, rhs_index_, x_index_, block_size_, pivots_, singular_, chain_ptr_;
  HeldIndices held_at_;  // by position
  Ints held_entry_ptr_, held_entry_slot_;
  // The same indices in the caller's outer order (take_outer_order; empty until then).
  struct Outer {
    Ints rhs_index, x_index;
    HeldIndices held;
    int split = 0;
  } outer_;
  Longs block_offset_, saved_offset_;
  Doubles blocks_data_, saved_data_, r_, x_, y_, held_values_;
  Floats float_blocks_data_, float_saved_data_;  // the factors' float copy (float_factors_)
  Doubles lead_delta_;  // solve_correcting_leading_block's delta
  Doubles lead_x_;      // and, interleaved, x_0 gathered for its caller
  // The factorization and the solves without a host step between their sweeps, recorded on the
  // device (LaunchGraphs); all of the solver's launches run on its stream.
  LaunchGraphs<Space> graphs_;
};

}  // namespace

}  // namespace catenary::cuda

namespace catenary {

std::unique_ptr<CsrSolver> make_block_tridiagonal_solver(const std::vector<int>& block_ptr,
                                                          const std::vector<int>& chain_ptr,
                                                          std::optional<BlockMethod> method, bool on_device,
                                                          int right_hand_sides, bool reuses_factorizations,
                                                          const BlockSolverOptions& options) {
  if (on_device)
    return std::make_unique<cuda::BlockTridiagonalSolver<cuda::DeviceSpace>>(
        block_ptr, chain_ptr, method, right_hand_sides, reuses_factorizations, options);
  return std::make_unique<cuda::BlockTridiagonalSolver<cuda::HostSpace>>(block_ptr, chain_ptr, method,
                                                                         right_hand_sides, reuses_factorizations, options);
}

}  // namespace catenary

namespace catenary {

int cyclic_reduction_levels(const std::vector<int>& chain_ptr) {
  int longest = 0, levels = 0;
  for (size_t c = 0; c + 1 < chain_ptr.size(); ++c) longest = std::max(longest, chain_ptr[c + 1] - chain_ptr[c]);
  while ((1L << levels) < longest) ++levels;
  return levels;
}

// From H100 measurements (docs/performance.md, Linear solvers; one factorization, medians of
// 3): cyclic reduction costs about 80 us per level (its launches, and the deep levels' latency)
// plus 8.3 ns per block (1,000,000 blocks: 9.9 ms; 100,000: 2.2 ms); chain elimination runs each
// chain's blocks one after another at about 21 us per block (one chain of 10,000 blocks: 206 ms),
// and a batch of many chains at about 33 ns per block in all (10,000 chains of 101 blocks:
// 34 ms). The levels stop at the longest chain: 1,000 cables of 20 elements take 5 levels, about
// 0.6 ms by these costs (not measured; reduced to one chain of all their blocks, 15 levels, they
// measured 1.4 ms against elimination's 0.7), so elimination wins only for a few short chains: a
// cable of a handful of elements. The elimination's costs are those of its thread-a-chain
// kernels: batches of equal 6-coordinate chains factorize and solve by groups of chains
// (solve/interleaved_chain_elimination.hpp), which the block solver weighs on its own once it
// knows the blocks (interleaved_elimination_preferred).
BlockMethod preferred_block_method(const std::vector<int>& chain_ptr) {
  constexpr double kLevel = 80e-6, kReductionPerBlock = 8.3e-9, kChainStep = 21e-6, kEliminationPerBlock = 33e-9;
  int longest = 0;
  for (size_t c = 0; c + 1 < chain_ptr.size(); ++c) longest = std::max(longest, chain_ptr[c + 1] - chain_ptr[c]);
  const double blocks = chain_ptr.back();
  const double reduction = kLevel * cyclic_reduction_levels(chain_ptr) + kReductionPerBlock * blocks;
  const double elimination = std::max(kChainStep * longest, kEliminationPerBlock * blocks);
  return elimination < reduction ? BlockMethod::ChainElimination : BlockMethod::CyclicReduction;
}

// From H100 measurements (docs/performance.md, Sweeps; sweeps of copies of a
// 100-element cable, 101 blocks a chain, ms a factorization / a solve, cyclic reduction against
// interleaved elimination): 1,000 chains 0.54 / 0.23 against 1.73 / 0.35; 10,000 chains 4.38 /
// 1.24 against 4.95 / 0.79 (a Newton update's solve from the float factors 0.80 against 0.54).
// The groups' factorization never wins: full Newton, a factorization a solve, stays with cyclic
// reduction (10,000 chains: 16.9 against 17.2 ms a step). Modified Newton refactorizes about once
// in 17 steps there and is decided by the solves: 3.80 against 3.21 ms a step at 10,000 chains,
// 0.95 against 1.23 at 1,000. Between the two, where the 32-chain groups come to fill the H100's
// 132 SMs (128 groups, 4,096 chains), the solves' costs cross by a power-law fit (about 3,000
// chains; not measured there).
bool interleaved_elimination_preferred(int chains, bool reuses_factorizations) {
  constexpr int kGroupsFillingTheDevice = 128;
  return reuses_factorizations && chains >= kGroupsFillingTheDevice * kChainGroup;
}

}  // namespace catenary
