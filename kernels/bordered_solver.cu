// A block-tridiagonal matrix with a border (assembly/block_chain_ordering.hpp's bordered order),
//   A = [T B; C E],   T: the node blocks (p unknowns),   E: the border (m unknowns, m small),
// solved by the border's Schur complement S = E - C T^-1 B over an inner solver of T (the block
// solver: cyclic reduction or chain elimination), written once over a MemorySpace like the backend.
// Rigid bodies, joints between beams and the attachments of cable nodes are few unknowns next to
// a long cable's; putting them in the border keeps the cable on the block solver instead of
// sending the whole model to the general sparse QR.
//   factorize: T = its factorization; w_j = T^-1 b_j for each border column j with entries in B
//              (a zero column's w is zero), kBorderRightHandSides per pass of the inner solver
//              (solve_many: its factors read once per pass); S = E - C W, LU on the host (m x m,
//              partial pivoting; a zero pivot is singular).
//   solve:     y = T^-1 r_T;  x_b = S^-1 (r_b - C y);  x_T = T^-1 (r_T - B x_b).
// W is not kept (at 1,000,000 elements and m = 16 it would be 0.8 GB): a solve costs two solves
// with T instead. B, C and S are copied at factorize(): the integrator may assemble a matrix it
// never factorizes and still solve with the last factorization (docs/design.md, fourth part).
// Written by hand: cuSOLVER and cuSPARSE have no bordered or block-tridiagonal solver.
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

// Columns of S = E - C W for the border columns `columns[0 .. count)`, whose w = T^-1 b lie p
// apart in w (E and S column-major, m x m): thread t gives entry t % m of column t / m.
struct SchurColumns {
  const int *c_ptr, *c_col;
  const double *c_values, *w, *e;
  const int* columns;
  int m, p;
  double* schur;
  CATENARY_HD void operator()(int t) const {
    const int i = t % m, column = columns[t / m];
    const double* wj = w + static_cast<long>(t / m) * p;
    schur[column * m + i] = e[column * m + i] - csr_row_dot(c_ptr, c_col, c_values, wj, i);
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
    std::vector<int> entry_row(nonzeros);
    for (int row = 0; row < size; ++row)
      std::fill(entry_row.begin() + rows[row], entry_row.begin() + rows[row + 1], row);
    const BorderSplit split = split_border(size, m_, entry_row, cols);
    p_ = split.p;
    const CsrPart &t = split.t, &b = split.b, &c = split.c;
    b_column_ptr_ = split.b_column_ptr;
    solved_columns_ = split.solved_columns;
    solved_columns_on_space_ = Ints(solved_columns_.begin(), solved_columns_.end());
    const int pass = std::max(1, std::min<int>(kBorderRightHandSides, static_cast<int>(solved_columns_.size())));
    upload(t, t_ptr_, t_col_, t_slot_);
    upload(b, b_ptr_, b_col_, b_slot_);
    upload(c, c_ptr_, c_col_, c_slot_);
    b_column_row_ = Ints(split.b_column_row.begin(), split.b_column_row.end());
    b_column_entry_ = Ints(split.b_column_entry.begin(), split.b_column_entry.end());
    e_index_ = Ints(split.e_index.begin(), split.e_index.end());
    e_slot_ = Ints(split.e_slot.begin(), split.e_slot.end());
    t_values_ = Doubles(t.col.size(), 0.0);
    b_values_ = Doubles(b.col.size(), 0.0);
    c_values_ = Doubles(c.col.size(), 0.0);
    e_ = Doubles(static_cast<size_t>(m_) * m_, 0.0);
    schur_ = Doubles(e_.size(), 0.0);
    column_ = Doubles(static_cast<size_t>(pass) * p_, 0.0);
    w_ = Doubles(column_.size(), 0.0);
    border_ = Doubles(m_, 0.0);
    inner_->analyze(p_, static_cast<int>(t.col.size()), raw<int>(t_ptr_), raw<int>(t_col_));
  }

  size_t workspace_bytes() const override {
    const size_t ints = t_ptr_.size() + t_col_.size() + t_slot_.size() + b_ptr_.size() + b_col_.size() +
                        b_slot_.size() + c_ptr_.size() + c_col_.size() + c_slot_.size() + b_column_row_.size() +
                        b_column_entry_.size() + e_index_.size() + e_slot_.size() + solved_columns_on_space_.size();
    const size_t doubles = t_values_.size() + b_values_.size() + c_values_.size() + e_.size() + schur_.size() +
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
    thrust::copy(policy, e_.begin(), e_.end(), schur_.begin());
    // Column j of S is e_j - C T^-1 b_j: the columns with entries in B, several per pass.
    const int solved = static_cast<int>(solved_columns_.size()), pass = static_cast<int>(column_.size() / p_);
    for (int first_column = 0; first_column < solved; first_column += pass) {
      const int count = std::min(pass, solved - first_column);
      thrust::fill(policy, column_.begin(), column_.end(), 0.0);
      for (int k = 0; k < count; ++k) {
        const int j = solved_columns_[first_column + k];
        thrust::for_each(policy, first + b_column_ptr_[j], first + b_column_ptr_[j + 1],
                         ScatterPicked{raw<int>(b_column_row_), raw<int>(b_column_entry_), raw<double>(b_values_),
                                       raw<double>(column_) + static_cast<size_t>(k) * p_});
      }
      inner_->solve_many(raw<double>(column_), raw<double>(w_), count, p_);
      thrust::for_each(policy, first, first + count * m_,
                       SchurColumns{raw<int>(c_ptr_), raw<int>(c_col_), raw<double>(c_values_), raw<double>(w_),
                                    raw<double>(e_), raw<int>(solved_columns_on_space_) + first_column, m_, p_,
                                    raw<double>(schur_)});
    }
    const std::vector<double> by_column = to_host<Space>(raw<double>(schur_), m_ * m_);
    schur_lu_.resize(by_column.size());
    for (int i = 0; i < m_; ++i)
      for (int j = 0; j < m_; ++j) schur_lu_[i * m_ + j] = by_column[j * m_ + i];  // row-major for lu_factor
    schur_pivots_.resize(m_);
    if (!lu_factor(schur_lu_.data(), schur_pivots_.data(), m_, m_))
      throw SimulationError("bordered solver: the Schur complement of the " + std::to_string(m_) +
                            " border unknowns (rigid bodies, joints, rows over several nodes) is singular "
                            "(a mechanism, or a constraint that repeats another)");
  }

  void solve(const double* rhs, double* x) override {
    const auto policy = Space::policy();
    const thrust::counting_iterator<int> first(0);
    inner_->solve(rhs, x);  // y = T^-1 r_T in x's first p entries
    thrust::for_each(policy, first, first + m_,
                     CsrRowResidual{raw<int>(c_ptr_), raw<int>(c_col_), raw<double>(c_values_), x, rhs + p_,
                                    raw<double>(border_)});
    std::vector<double> x_border = to_host<Space>(raw<double>(border_), m_);
    lu_solve(schur_lu_.data(), schur_pivots_.data(), x_border.data(), m_, m_, 1);
    from_host<Space>(x_border, x + p_);
    thrust::for_each(policy, first, first + p_,
                     CsrRowResidual{raw<int>(b_ptr_), raw<int>(b_col_), raw<double>(b_values_), x + p_, rhs,
                                    raw<double>(column_)});
    inner_->solve(raw<double>(column_), x);
  }

  long iterations() const override { return inner_->iterations(); }

 private:
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
  std::vector<int> b_column_ptr_;                         // host: B's entries by border column
  std::vector<int> solved_columns_;                       // host: the border columns with entries in B
  Ints solved_columns_on_space_;
  Ints t_ptr_, t_col_, t_slot_, b_ptr_, b_col_, b_slot_;  // T and B by rows; slot: A's value
  Ints c_ptr_, c_col_, c_slot_, b_column_row_, b_column_entry_, e_index_, e_slot_;
  Doubles t_values_, b_values_, c_values_, e_, schur_, column_, w_, border_;
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
