#include "catenary/solve/border_split.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/solve/dense_block.hpp"

namespace catenary {

namespace {

// Rows of a part from entries given as (row, col, slot) in any row order: a counting sort by row,
// which keeps each row's entries in the order they were added.
class PartBuilder {
 public:
  explicit PartBuilder(int rows) : count_(rows + 1, 0) {}
  void add(int row, int col, int slot) {
    row_.push_back(row), col_.push_back(col), slot_.push_back(slot);
    ++count_[row + 1];
  }
  // The part, and per added entry (in the order added) its index in the part.
  CsrPart build(std::vector<int>* index_of_added = nullptr) const {
    CsrPart part;
    part.row_ptr = count_;
    for (size_t i = 1; i < part.row_ptr.size(); ++i) part.row_ptr[i] += part.row_ptr[i - 1];
    part.col.resize(col_.size());
    part.slot.resize(slot_.size());
    std::vector<int> next(part.row_ptr.begin(), part.row_ptr.end() - 1);
    if (index_of_added) index_of_added->resize(col_.size());
    for (size_t k = 0; k < col_.size(); ++k) {
      const int at = next[row_[k]]++;
      part.col[at] = col_[k], part.slot[at] = slot_[k];
      if (index_of_added) (*index_of_added)[k] = at;
    }
    return part;
  }

 private:
  std::vector<int> count_, row_, col_, slot_;
};

}  // namespace

BorderSplit split_border(int size, int m, const std::vector<int>& entry_row, const std::vector<int>& entry_col) {
  if (m < 1 || m >= size)
    throw std::invalid_argument("bordered solver: a border of " + std::to_string(m) + " unknowns in a matrix of " +
                                std::to_string(size));
  BorderSplit out;
  out.m = m;
  const int p = out.p = size - m;
  PartBuilder t(p), b(p), c(m);
  std::vector<std::vector<int>> b_column_added(m);  // per border column: its entries' places in b's list
  std::vector<int> b_row_added;
  for (size_t s = 0; s < entry_row.size(); ++s) {
    const int row = entry_row[s], col = entry_col[s], slot = static_cast<int>(s);
    if (row < p && col < p) {
      t.add(row, col, slot);
    } else if (row < p) {
      b_column_added[col - p].push_back(static_cast<int>(b_row_added.size()));
      b_row_added.push_back(row);
      b.add(row, col - p, slot);
    } else if (col < p) {
      c.add(row - p, col, slot);
    } else {
      out.e_index.push_back((col - p) * m + row - p);
      out.e_slot.push_back(slot);
    }
  }
  std::vector<int> b_place;
  out.t = t.build();
  out.b = b.build(&b_place);
  out.c = c.build();
  int rows_with_entries = 0, columns_with_entries = 0;
  for (int row = 0; row < p; ++row) rows_with_entries += out.b.row_ptr[row + 1] > out.b.row_ptr[row];
  for (int j = 0; j < m; ++j) columns_with_entries += !b_column_added[j].empty();
  if (columns_with_entries <= rows_with_entries) {
    for (int j = 0; j < m; ++j) {
      if (b_column_added[j].empty()) continue;  // S_j = E_j
      for (int added : b_column_added[j])
        out.rhs_row.push_back(b_row_added[added]), out.rhs_entry.push_back(b_place[added]);
      out.fold_rhs.push_back(out.right_hand_sides());
      out.fold_column.push_back(j);
      out.fold_entry.push_back(-1);
      out.rhs_ptr.push_back(static_cast<int>(out.rhs_row.size()));
    }
  } else {
    for (int row = 0; row < p; ++row) {
      if (out.b.row_ptr[row + 1] == out.b.row_ptr[row]) continue;
      for (int entry = out.b.row_ptr[row]; entry < out.b.row_ptr[row + 1]; ++entry) {
        out.fold_rhs.push_back(out.right_hand_sides());
        out.fold_column.push_back(out.b.col[entry]);
        out.fold_entry.push_back(entry);
      }
      out.rhs_row.push_back(row);
      out.rhs_entry.push_back(-1);
      out.rhs_ptr.push_back(static_cast<int>(out.rhs_row.size()));
    }
  }
  return out;
}

void factorize_schur_complement(const BorderSplit& split, const std::vector<double>& e, const std::vector<double>& cw,
                                const std::vector<double>& b_values, std::vector<double>& lu, std::vector<int>& pivots,
                                const std::string& solver) {
  const int m = split.m;
  std::vector<double> schur = e;  // column-major
  for (size_t f = 0; f < split.fold_rhs.size(); ++f) {
    const double y = border_value(b_values.data(), split.fold_entry[f]);
    const double* cw_l = cw.data() + static_cast<size_t>(split.fold_rhs[f]) * m;
    for (int i = 0; i < m; ++i) schur[split.fold_column[f] * m + i] -= cw_l[i] * y;
  }
  lu.resize(schur.size());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) lu[i * m + j] = schur[j * m + i];  // row-major for lu_factor
  pivots.resize(m);
  if (!lu_factor(lu.data(), pivots.data(), m, m))
    throw SimulationError(solver + ": the Schur complement of the " + std::to_string(m) +
                          " border unknowns (rigid bodies, joints, rows over several nodes) is singular "
                          "(a mechanism, or a constraint that repeats another)");
}

bool BorderSplit::within_leading_block(int lead) const {
  const auto within = [lead](const std::vector<int>& indices) {
    return std::all_of(indices.begin(), indices.end(), [lead](int i) { return i < lead; });
  };
  return lead > 0 && within(rhs_row) && within(c.col);
}

}  // namespace catenary
