#include "catenary/model/constraint_check.hpp"

#include <Eigen/Dense>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>
#include <Eigen/SparseQR>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "catenary/core/errors.hpp"

namespace catenary {

namespace {

// Rows whose matrix (rows x touched columns) has at most this many entries are factored
// densely (ColPivHouseholderQR, the common case: a fix or joint touches a handful of
// coordinates); larger sets, such as long chains of joints, use SparseQR with COLAMD ordering.
constexpr long kDenseLimit = 4096;
// Relative threshold below which a pivot counts as zero. Constraint coefficients are O(1)
// (+1/-1 for every row type of the core), so this is far from both round-off and real pivots.
constexpr double kRankThreshold = 1e-10;

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

// A set of rows that share coordinates with each other and with no other row.
struct RowSet {
  std::vector<int> rows;                 // global row indices, increasing
  std::unordered_map<int, int> columns;  // dof -> local column
};

double row_rhs(const ConstraintRow& row, double t) {
  return row.offset + (row.has_motion ? row.motion.value(t) : 0.0);
}

Eigen::MatrixXd dense_rows(const Model& m, const RowSet& set, int count) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(count, static_cast<int>(set.columns.size()));
  for (int i = 0; i < count; ++i) {
    const ConstraintRow& row = m.constraint_rows[set.rows[i]];
    for (size_t k = 0; k < row.dofs.size(); ++k) a(i, set.columns.at(row.dofs[k])) += row.coefficients[k];
  }
  return a;
}

using SparseQRSolver = Eigen::SparseQR<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>>;

// Factors the transpose of the first `count` rows of the set (columns of A^T are constraint rows).
void factor_sparse_transposed(const Model& m, const RowSet& set, int count, Eigen::SparseMatrix<double>& at,
                              SparseQRSolver& qr) {
  std::vector<Eigen::Triplet<double>> entries;
  for (int i = 0; i < count; ++i) {
    const ConstraintRow& row = m.constraint_rows[set.rows[i]];
    for (size_t k = 0; k < row.dofs.size(); ++k)
      entries.emplace_back(set.columns.at(row.dofs[k]), i, row.coefficients[k]);
  }
  at.resize(static_cast<int>(set.columns.size()), count);
  at.setFromTriplets(entries.begin(), entries.end());
  at.makeCompressed();
  qr.setPivotThreshold(kRankThreshold);
  qr.compute(at);
}

// Rank of the first `count` rows of the set.
int prefix_rank(const Model& m, const RowSet& set, int count) {
  const int cols = static_cast<int>(set.columns.size());
  if (count == 0) return 0;
  if (static_cast<long>(count) * cols <= kDenseLimit) {
    Eigen::MatrixXd at = dense_rows(m, set, count).transpose();
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(at.rows(), at.cols());
    qr.setThreshold(kRankThreshold);
    qr.compute(at);
    return static_cast<int>(qr.rank());
  }
  // count <= cols here (callers ensure it), so A^T is square or tall.
  Eigen::SparseMatrix<double> at;
  SparseQRSolver qr;
  factor_sparse_transposed(m, set, count, at, qr);
  return static_cast<int>(qr.rank());
}

// Index into set.rows of the first row that depends on the rows before it, or -1.
int first_dependent(const Model& m, const RowSet& set) {
  const int n = static_cast<int>(set.rows.size());
  const int cols = static_cast<int>(set.columns.size());
  auto deficient = [&](int p) { return p > cols || prefix_rank(m, set, p) < p; };
  if (!deficient(n)) return -1;
  int lo = 0, hi = n;  // deficient(lo) false (empty prefix), deficient(hi) true
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (deficient(mid))
      hi = mid;
    else
      lo = mid;
  }
  return hi - 1;
}

// How one dependent row relates to the rows before it in its set.
struct Dependence {
  bool dependent = false;
  bool known = false;          // combination computed (dense sets only)
  bool contradictory = false;  // right-hand sides disagree
  std::vector<int> groups;     // groups of the rows in the combination
};

Dependence analyse_row(const Model& m, const RowSet& set, int local, const std::vector<int>& group_of) {
  Dependence d;
  const int cols = static_cast<int>(set.columns.size());
  // Least-squares combination c of the earlier rows that comes closest to this row.
  Eigen::VectorXd target = Eigen::VectorXd::Zero(cols);
  {
    const ConstraintRow& row = m.constraint_rows[set.rows[local]];
    for (size_t k = 0; k < row.dofs.size(); ++k) target[set.columns.at(row.dofs[k])] += row.coefficients[k];
  }
  Eigen::VectorXd c = Eigen::VectorXd::Zero(local);
  Eigen::VectorXd fit = Eigen::VectorXd::Zero(cols);
  if (local > 0 && static_cast<long>(local) * cols <= kDenseLimit) {
    const Eigen::MatrixXd pt = dense_rows(m, set, local).transpose();
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(pt.rows(), pt.cols());
    qr.setThreshold(kRankThreshold);
    qr.compute(pt);
    c = qr.solve(target);
    fit = pt * c;
  } else if (local > 0) {
    Eigen::SparseMatrix<double> pt;
    SparseQRSolver qr;
    factor_sparse_transposed(m, set, local, pt, qr);
    if (qr.info() != Eigen::Success) {
      // Fall back to naming every earlier constraint of the set.
      d.dependent = true;
      for (int i = 0; i < local; ++i) {
        const int g = group_of[set.rows[i]];
        if (std::find(d.groups.begin(), d.groups.end(), g) == d.groups.end()) d.groups.push_back(g);
      }
      return d;
    }
    c = qr.solve(target);
    fit = pt * c;
  }
  d.dependent = (fit - target).norm() <= 1e-8 * std::max(1.0, target.norm());
  if (!d.dependent) return d;
  d.known = true;
  static const double kSampleTimes[] = {0.0, 0.013, 0.37, 1.0, 2.3, 5.9, 17.0};
  for (double t : kSampleTimes) {
    const double own = row_rhs(m.constraint_rows[set.rows[local]], t);
    double combined = 0.0, scale = std::fabs(own) + std::max(1.0, m.characteristic_length);
    for (int i = 0; i < local; ++i) {
      const double v = c[i] * row_rhs(m.constraint_rows[set.rows[i]], t);
      combined += v;
      scale += std::fabs(v);
    }
    if (std::fabs(own - combined) > 1e-9 * scale) d.contradictory = true;
  }
  for (int i = 0; i < local; ++i) {
    if (std::fabs(c[i]) <= 1e-9) continue;
    const int g = group_of[set.rows[i]];
    if (std::find(d.groups.begin(), d.groups.end(), g) == d.groups.end()) d.groups.push_back(g);
  }
  return d;
}

std::string describe_group(const ConstraintGroup& g) {
  return "'" + g.name + "' (" + g.type + (g.json_path.empty() ? "" : " at " + g.json_path) + ")";
}

std::string join_labels(const std::vector<std::string>& labels) {
  std::string s;
  for (size_t i = 0; i < labels.size(); ++i) s += (i ? ", '" : "'") + labels[i] + "'";
  return s;
}

}  // namespace

void check_constraints(const Model& m, const std::string& file) {
  const int nrows = m.linear_constraint_count();
  if (nrows == 0) return;

  std::vector<int> group_of(nrows, -1);
  for (size_t g = 0; g < m.constraint_groups.size(); ++g) {
    const ConstraintGroup& grp = m.constraint_groups[g];
    for (int r = grp.first_row; r < grp.first_row + grp.row_count && r < nrows; ++r)
      group_of[r] = static_cast<int>(g);
  }

  // Split the rows into sets that share coordinates.
  UnionFind uf(nrows);
  std::unordered_map<int, int> first_row_of_dof;
  for (int r = 0; r < nrows; ++r)
    for (int dof : m.constraint_rows[r].dofs) {
      auto it = first_row_of_dof.find(dof);
      if (it == first_row_of_dof.end())
        first_row_of_dof.emplace(dof, r);
      else
        uf.unite(r, it->second);
    }
  std::unordered_map<int, int> set_of_root;
  std::vector<RowSet> sets;
  std::vector<int> set_of_row(nrows);
  for (int r = 0; r < nrows; ++r) {
    const int root = uf.find(r);
    auto it = set_of_root.find(root);
    int s;
    if (it == set_of_root.end()) {
      s = static_cast<int>(sets.size());
      set_of_root.emplace(root, s);
      sets.emplace_back();
    } else {
      s = it->second;
    }
    set_of_row[r] = s;
    RowSet& set = sets[s];
    set.rows.push_back(r);
    for (int dof : m.constraint_rows[r].dofs)
      if (!set.columns.count(dof)) set.columns.emplace(dof, static_cast<int>(set.columns.size()));
  }

  // The first dependent row over all sets belongs to the first offending group.
  int first_row = -1;
  for (const RowSet& set : sets) {
    const int local = first_dependent(m, set);
    if (local >= 0 && (first_row < 0 || set.rows[local] < first_row)) first_row = set.rows[local];
  }
  if (first_row < 0) return;

  const int g = group_of[first_row];
  if (g < 0)
    throw InputError(file, "", "constraint row " + std::to_string(first_row) +
                                   " is redundant with or contradicts earlier constraints");
  const ConstraintGroup& group = m.constraint_groups[g];

  // Look at every row of the offending group for a complete message.
  std::vector<std::string> redundant_rows, contradictory_rows;
  std::vector<int> involved;
  bool own_rows = false, all_known = true;
  for (int r = group.first_row; r < group.first_row + group.row_count; ++r) {
    if (r < first_row) continue;
    const RowSet& set = sets[set_of_row[r]];
    const int local = static_cast<int>(std::find(set.rows.begin(), set.rows.end(), r) - set.rows.begin());
    const Dependence d = analyse_row(m, set, local, group_of);
    if (!d.dependent && r != first_row) continue;
    all_known = all_known && d.known;
    const int k = r - group.first_row;
    const std::string label =
        k < static_cast<int>(group.row_labels.size()) ? group.row_labels[k] : std::to_string(k);
    (d.contradictory ? contradictory_rows : redundant_rows).push_back(label);
    for (int other : d.groups) {
      if (other == g)
        own_rows = true;
      else if (std::find(involved.begin(), involved.end(), other) == involved.end())
        involved.push_back(other);
    }
  }
  std::sort(involved.begin(), involved.end());

  std::string others;
  const size_t shown = std::min<size_t>(involved.size(), 6);
  for (size_t i = 0; i < shown; ++i) others += (i ? ", " : "") + describe_group(m.constraint_groups[involved[i]]);
  if (involved.size() > shown) others += " and " + std::to_string(involved.size() - shown) + " more";
  if (own_rows) others += (others.empty() ? "" : " and ") + std::string("its own other rows");
  if (others.empty()) others = "no other constraint (the row is empty)";

  std::string rule = "constraint " + describe_group(group) +
                     " is redundant with or contradicts earlier constraints: ";
  if (!all_known) {
    rule += "coordinate(s) " + join_labels(redundant_rows) +
            " depend on the constraints before it that share its coordinates: " + others;
  } else if (!contradictory_rows.empty()) {
    rule += "it contradicts " + others + ": coordinate(s) " + join_labels(contradictory_rows) +
            " are required to take different values";
    if (!redundant_rows.empty()) rule += ", and " + join_labels(redundant_rows) + " are constrained twice";
  } else {
    rule += "it is redundant with " + others + ": coordinate(s) " + join_labels(redundant_rows) +
            " are already constrained; remove them from one of the constraints";
  }
  throw InputError(file, group.json_path, rule);
}

}  // namespace catenary
