// A block-tridiagonal matrix with a border (assembly/block_chain_ordering.hpp's bordered order),
//   A = [T B; C E],   T: the node blocks (p unknowns),   E: the border (m unknowns, m small),
// solved by the border's Schur complement S = E - C T^-1 B over an inner solver of T (the block
// solver: cyclic reduction or chain elimination), written once over a MemorySpace like the backend.
// Rigid bodies, joints between beams and the attachments of cable nodes are few unknowns next to
// a long cable's; putting them in the border keeps the cable on the block solver instead of
// sending the whole model to the general sparse QR.
//   factorize: T = its factorization; w_l = T^-1 x_l for split_border's right-hand sides (B's
//              columns with entries, or the unit vectors of B's rows with entries, whichever are
//              fewer; solve/border_split.hpp), kBorderRightHandSides per pass of the inner solver
//              (solve_many: its factors read once per pass; or only the inner solver's last
//              block's solve, where the x_l and C touch nothing else); C w_l on the device, then
//              S = E - sum_l (C w_l) y_l^T and its LU on the host (m x m, partial pivoting; a zero
//              pivot is singular).
//   solve:     y = T^-1 r_T;  x_b = S^-1 (r_b - C y);  x_T = T^-1 (r_T - B x_b).
// W is not kept (at 1,000,000 elements and m = 16 it would be 0.8 GB): a solve costs two solves
// with T instead, or one where B and C touch only the block the inner solver eliminates last: C y
// reads that block's y alone, known once the forward sweep reaches it, and B x_b changes only
// that block's right-hand side, which the backward sweep takes corrected
// (CsrSolver::solve_correcting_leading_block). B, C and S are copied at factorize(): the
// integrator may assemble a matrix it never factorizes and still solve with the last
// factorization (docs/architecture.md). Written by hand: cuSOLVER and cuSPARSE have no
// bordered or block-tridiagonal solver.
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend_functors.cuh"
#include "catenary/core/errors.hpp"
#include "catenary/core/host_device.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/border_split.hpp"
#include "catenary/solve/csr_solver.hpp"
#include "catenary/solve/dense_block.hpp"
#include "memory_space.cuh"

namespace catenary::cuda {

namespace {

// to[index[k]] = from[pick[k]]
struct ScatterPicked {
  const int *index, *pick;
  const double* from;
  double* to;
  CATENARY_HD void operator()(int k) const { to[index[k]] = from[pick[k]]; }
};

// to[row[k]] = B's entry entry[k], or 1.0 where entry[k] < 0: a right-hand side of split_border's.
struct ScatterRightHandSide {
  const int *row, *entry;
  const double* b_values;
  double* to;
  CATENARY_HD void operator()(int k) const { to[row[k]] = border_value(b_values, entry[k]); }
};

// cw = C w for right-hand sides whose w = T^-1 x lie p apart: thread t gives entry t % m of the
// right-hand side t / m.
struct ProductsWithC {
  const int *c_ptr, *c_col;
  const double *c_values, *w;
  int m, p;
  double* cw;
  CATENARY_HD void operator()(int t) const {
    cw[t] = csr_row_dot(c_ptr, c_col, c_values, w + static_cast<long>(t / m) * p, t % m);
  }
};

template <class Space>
class BorderedSolver : public CsrSolver {
  using Doubles = ArrayOf<Space, double>;
  using Ints = ArrayOf<Space, int>;

 public:
  BorderedSolver(std::unique_ptr<CsrSolver> inner, int border) : inner_(std::move(inner)), m_(border) {
    if (m_ < 1) throw std::invalid_argument("bordered solver: a border of " + std::to_string(m_) + " unknowns");
  }

  void analyze(int size, int nonzeros, const int* row_ptr, const int* col_index) override {
    const std::vector<int> rows = to_host<Space>(row_ptr, size + 1), cols = to_host<Space>(col_index, nonzeros);
    split_ = split_border(size, m_, entry_rows(rows), cols);
    p_ = split_.p;
    const CsrPart &t = split_.t, &b = split_.b, &c = split_.c;
    const int pass = std::max(1, std::min(kBorderRightHandSides, split_.right_hand_sides()));
    upload(t, t_ptr_, t_col_, t_slot_);
    upload(b, b_ptr_, b_col_, b_slot_);
    upload(c, c_ptr_, c_col_, c_slot_);
    rhs_row_ = Ints(split_.rhs_row.begin(), split_.rhs_row.end());
    rhs_entry_ = Ints(split_.rhs_entry.begin(), split_.rhs_entry.end());
    e_index_ = Ints(split_.e_index.begin(), split_.e_index.end());
    e_slot_ = Ints(split_.e_slot.begin(), split_.e_slot.end());
    t_values_ = Doubles(t.col.size(), 0.0);
    b_values_ = Doubles(b.col.size(), 0.0);
    c_values_ = Doubles(c.col.size(), 0.0);
    e_ = Doubles(static_cast<size_t>(m_) * m_, 0.0);
    cw_ = Doubles(static_cast<size_t>(m_) * std::max(1, split_.right_hand_sides()), 0.0);
    column_ = Doubles(static_cast<size_t>(pass) * p_, 0.0);
    w_ = Doubles(column_.size(), 0.0);
    border_ = Doubles(m_, 0.0);
    inner_->analyze(p_, static_cast<int>(t.col.size()), raw<int>(t_ptr_), raw<int>(t_col_));
    leading_block_only_ = split_.within_leading_block(inner_->leading_block_solved_last());
    split_.t = CsrPart();  // uploaded: the host copy is not needed again
  }

  std::string method() const override { return inner_->method(); }
  std::string layout_note() const override { return inner_->layout_note(); }

  size_t workspace_bytes() const override {
    const size_t ints = t_ptr_.size() + t_col_.size() + t_slot_.size() + b_ptr_.size() + b_col_.size() +
                        b_slot_.size() + c_ptr_.size() + c_col_.size() + c_slot_.size() + rhs_row_.size() +
                        rhs_entry_.size() + e_index_.size() + e_slot_.size();
    const size_t doubles = t_values_.size() + b_values_.size() + c_values_.size() + e_.size() + cw_.size() +
                           column_.size() + w_.size() + border_.size();
    return inner_->workspace_bytes() + sizeof(int) * ints + sizeof(double) * doubles;
  }

  void factorize(const double* values) override {
    const auto policy = Space::policy();
    const thrust::counting_iterator<int> first(0);
    gather(t_slot_, values, t_values_);
    gather(b_slot_, values, b_values_);
    gather(c_slot_, values, c_values_);
    thrust::fill(policy, e_.begin(), e_.end(), 0.0);
    thrust::for_each(policy, first, first + static_cast<int>(e_index_.size()),
                     ScatterPicked{raw<int>(e_index_), raw<int>(e_slot_), values, raw<double>(e_)});
    inner_->factorize(raw<double>(t_values_));
    // C T^-1 x_l for split_border's right-hand sides (B's columns or the unit vectors of its rows),
    // several per pass of the inner solver; then S and its LU on the host.
    const int count_all = split_.right_hand_sides(), pass = static_cast<int>(column_.size() / p_);
    for (int first_rhs = 0; first_rhs < count_all; first_rhs += pass) {
      const int count = std::min(pass, count_all - first_rhs);
      thrust::fill(policy, column_.begin(), column_.end(), 0.0);
      for (int k = 0; k < count; ++k) {
        const int l = first_rhs + k;
        thrust::for_each(policy, first + split_.rhs_ptr[l], first + split_.rhs_ptr[l + 1],
                         ScatterRightHandSide{raw<int>(rhs_row_), raw<int>(rhs_entry_), raw<double>(b_values_),
                                              raw<double>(column_) + static_cast<size_t>(k) * p_});
      }
      if (leading_block_only_)
        inner_->solve_leading_block_many(raw<double>(column_), raw<double>(w_), count, p_);
      else
        inner_->solve_many(raw<double>(column_), raw<double>(w_), count, p_);
      thrust::for_each(policy, first, first + count * m_,
                       ProductsWithC{raw<int>(c_ptr_), raw<int>(c_col_), raw<double>(c_values_), raw<double>(w_), m_,
                                     p_, raw<double>(cw_) + static_cast<size_t>(first_rhs) * m_});
    }
    factorize_schur_complement(split_, to_host<Space>(raw<double>(e_), m_ * m_),
                               to_host<Space>(raw<double>(cw_), m_ * count_all),
                               to_host<Space>(raw<double>(b_values_), static_cast<int>(b_values_.size())), schur_lu_,
                               schur_pivots_, "bordered solver");
  }

  void solve(const double* rhs, double* x) override {
    if (leading_block_only_) {
      solve_through_leading_block(rhs, x);
      return;
    }
    const thrust::counting_iterator<int> first(0);
    inner_->solve(rhs, x);  // y = T^-1 r_T in x's first p entries
    solve_border(x, rhs, x + p_);
    thrust::for_each(
        Space::policy(), first, first + p_,
        CsrRowResidual{raw<int>(b_ptr_), raw<int>(b_col_), raw<double>(b_values_), x + p_, rhs, raw<double>(column_)});
    inner_->solve(raw<double>(column_), x);
  }

  long iterations() const override { return inner_->iterations(); }

 private:
  // x_b = S^-1 (r_b - C y) for T's part y of a solution (C reads it alone).
  void solve_border(const double* y, const double* rhs, double* x_border) {
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(
        Space::policy(), first, first + m_,
        CsrRowResidual{raw<int>(c_ptr_), raw<int>(c_col_), raw<double>(c_values_), y, rhs + p_, raw<double>(border_)});
    std::vector<double> host_border = to_host<Space>(raw<double>(border_), m_);
    lu_solve(schur_lu_.data(), schur_pivots_.data(), host_border.data(), m_, m_, 1);
    from_host<Space>(host_border, x_border);
  }

  // B and C touch only the leading block, which the inner solver eliminates last: once its
  // forward sweep has that block's y, x_b follows, and the backward sweep takes the block's
  // right-hand side less B x_b. One solve with T instead of two.
  void solve_through_leading_block(const double* rhs, double* x) {
    const int lead = inner_->leading_block_solved_last();
    inner_->solve_correcting_leading_block(rhs, x, [&](const double* y_lead, double* delta) {
      const thrust::counting_iterator<int> first(0);
      solve_border(y_lead, rhs, x + p_);
      thrust::for_each(Space::policy(), first, first + lead,
                       CsrRowProduct{raw<int>(b_ptr_), raw<int>(b_col_), raw<double>(b_values_), x + p_, delta});
    });
  }

  void upload(const CsrPart& part, Ints& row_ptr, Ints& col, Ints& slot) {
    row_ptr = Ints(part.row_ptr.begin(), part.row_ptr.end());
    col = Ints(part.col.begin(), part.col.end());
    slot = Ints(part.slot.begin(), part.slot.end());
  }
  void gather(const Ints& slot, const double* values, Doubles& out) {
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + static_cast<int>(slot.size()),
                     GatherAt{raw<int>(slot), values, raw<double>(out)});
  }

  std::unique_ptr<CsrSolver> inner_;
  int m_, p_ = 0;
  // The factorization's right-hand sides and C's columns all lie in the block the inner solver
  // eliminates last (a crane's boom on the cable's first node, under either block method): C T^-1 x_l
  // then needs that block's solve alone, no sweeps over the chain.
  bool leading_block_only_ = false;
  BorderSplit split_;  // host: the parts (without T's, uploaded) and the factorization's right-hand sides
  Ints t_ptr_, t_col_, t_slot_, b_ptr_, b_col_, b_slot_;  // T and B by rows; slot: A's value
  Ints c_ptr_, c_col_, c_slot_, rhs_row_, rhs_entry_, e_index_, e_slot_;
  Doubles t_values_, b_values_, c_values_, e_, cw_, column_, w_, border_;  // cw_: C T^-1 x_l
  std::vector<double> schur_lu_;  // host: S's LU, row-major
  std::vector<int> schur_pivots_;
};

}  // namespace

}  // namespace catenary::cuda

namespace catenary {

std::unique_ptr<CsrSolver> make_bordered_solver(std::unique_ptr<CsrSolver> inner, int border, bool on_device) {
  if (on_device) return std::make_unique<cuda::BorderedSolver<cuda::DeviceSpace>>(std::move(inner), border);
  return std::make_unique<cuda::BorderedSolver<cuda::HostSpace>>(std::move(inner), border);
}

}  // namespace catenary
