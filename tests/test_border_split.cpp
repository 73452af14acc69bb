// split_border and factorize_schur_complement (solve/border_split.hpp), the part both bordered
// solvers share, on small dense matrices against Eigen: the Schur complement built from the
// split's right-hand sides equals E - C T^-1 B, whichever right-hand sides it picks.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <random>

#include "catenary/core/errors.hpp"
#include "catenary/solve/border_split.hpp"
#include "catenary/solve/dense_block.hpp"

using namespace catenary;

namespace {

// A (p + m) x (p + m) matrix with a well-conditioned T, random E, and B, C nonzero only in the
// given rows (B) / columns (C) of T and the given border columns (B) / rows (C).
Eigen::MatrixXd bordered_matrix(int p, int m, const std::vector<int>& b_rows, const std::vector<int>& b_columns,
                                unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(p + m, p + m);
  for (int i = 0; i < p; ++i)
    for (int j = std::max(0, i - 1); j <= std::min(p - 1, i + 1); ++j) A(i, j) = u(rng) + (i == j ? 4.0 : 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) A(p + i, p + j) = u(rng) + (i == j ? 3.0 : 0.0);
  for (int r : b_rows)
    for (int c : b_columns) A(r, p + c) = u(rng), A(p + c, r) = u(rng);  // B and C, C's pattern B's transpose
  return A;
}

// The entries of A's nonzeros in column-major order: their rows and columns.
void entries_of(const Eigen::MatrixXd& A, std::vector<int>& rows, std::vector<int>& cols, std::vector<double>& values) {
  for (int j = 0; j < A.cols(); ++j)
    for (int i = 0; i < A.rows(); ++i)
      if (A(i, j) != 0.0) rows.push_back(i), cols.push_back(j), values.push_back(A(i, j));
}

// The Schur complement from the split's right-hand sides (T^-1 by Eigen), factorized by
// factorize_schur_complement, and its solution of S x = r, against Eigen's S.
void check_schur(const Eigen::MatrixXd& A, int m, int expected_right_hand_sides) {
  const int p = static_cast<int>(A.rows()) - m;
  std::vector<int> rows, cols;
  std::vector<double> values;
  entries_of(A, rows, cols, values);
  const BorderSplit split = split_border(p + m, m, rows, cols);
  CHECK(split.right_hand_sides() == expected_right_hand_sides);
  const Eigen::MatrixXd T = A.topLeftCorner(p, p), C = A.bottomLeftCorner(m, p);
  std::vector<double> b_values(split.b.slot.size()), e(static_cast<size_t>(m) * m, 0.0), cw;
  for (size_t k = 0; k < b_values.size(); ++k) b_values[k] = values[split.b.slot[k]];
  for (size_t k = 0; k < split.e_index.size(); ++k) e[split.e_index[k]] = values[split.e_slot[k]];
  for (int l = 0; l < split.right_hand_sides(); ++l) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(p);
    for (int k = split.rhs_ptr[l]; k < split.rhs_ptr[l + 1]; ++k)
      x[split.rhs_row[k]] = split.rhs_entry[k] < 0 ? 1.0 : b_values[split.rhs_entry[k]];
    const Eigen::VectorXd cw_l = C * T.partialPivLu().solve(x);
    cw.insert(cw.end(), cw_l.data(), cw_l.data() + m);
  }
  std::vector<double> lu;
  std::vector<int> pivots;
  factorize_schur_complement(split, e, cw, b_values, lu, pivots, "test");
  const Eigen::MatrixXd S =
      A.bottomRightCorner(m, m) - C * T.partialPivLu().solve(Eigen::MatrixXd(A.topRightCorner(p, m)));
  const Eigen::VectorXd r = Eigen::VectorXd::LinSpaced(m, 1.0, 2.0);
  Eigen::VectorXd x = r;
  lu_solve(lu.data(), pivots.data(), x.data(), m, m, 1);
  const Eigen::VectorXd reference = S.partialPivLu().solve(r);
  CHECK((x - reference).cwiseAbs().maxCoeff() < 1e-13 * reference.cwiseAbs().maxCoeff());
}

}  // namespace

TEST_CASE("Border split: the Schur complement from B's columns or from its rows' unit vectors", "[solver]") {
  SECTION("B's entries in 2 columns over 5 rows: the 2 columns") {
    check_schur(bordered_matrix(12, 4, {1, 2, 3, 7, 9}, {0, 2}, 1), 4, 2);
  }
  SECTION("B's entries in 4 columns over 2 rows: the 2 rows' unit vectors") {
    check_schur(bordered_matrix(12, 5, {0, 11}, {0, 1, 3, 4}, 2), 5, 2);
  }
  SECTION("a crane's shape: 10 of 16 border columns over the first block's 6 rows") {
    check_schur(bordered_matrix(30, 16, {0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 3), 16, 6);
  }
  SECTION("no entries in B: S = E, no right-hand sides") { check_schur(bordered_matrix(8, 3, {}, {}, 4), 3, 0); }
}

TEST_CASE("Border split: a singular Schur complement names the solver and the border", "[solver]") {
  Eigen::MatrixXd A = bordered_matrix(10, 3, {4}, {1}, 5);
  A.row(10 + 2).setZero();  // a border row without entries
  std::vector<int> rows, cols;
  std::vector<double> values;
  entries_of(A, rows, cols, values);
  const BorderSplit split = split_border(13, 3, rows, cols);
  std::vector<double> e(9, 0.0), cw(3 * split.right_hand_sides(), 0.0), b_values(split.b.slot.size(), 1.0), lu;
  for (size_t k = 0; k < split.e_index.size(); ++k) e[split.e_index[k]] = values[split.e_slot[k]];
  std::vector<int> pivots;
  CHECK_THROWS_WITH(factorize_schur_complement(split, e, cw, b_values, lu, pivots, "some solver"),
                    Catch::StartsWith("some solver: the Schur complement of the 3 border unknowns"));
  CHECK_THROWS_WITH(split_border(13, 13, rows, cols), Catch::Contains("a border of 13 unknowns in a matrix of 13"));
}

TEST_CASE("Border split: whether the right-hand sides and C lie in a leading block", "[solver]") {
  const auto split_of = [](const Eigen::MatrixXd& A, int m) {
    std::vector<int> rows, cols;
    std::vector<double> values;
    entries_of(A, rows, cols, values);
    return split_border(static_cast<int>(A.rows()), m, rows, cols);
  };
  // The crane's shape: B's and C's entries in T's first 6 rows / columns.
  const BorderSplit crane = split_of(bordered_matrix(30, 16, {0, 1, 2, 3, 4, 5}, {6, 7, 8, 9}, 3), 16);
  CHECK(crane.within_leading_block(6));
  CHECK(crane.within_leading_block(9));
  CHECK_FALSE(crane.within_leading_block(5));
  CHECK_FALSE(crane.within_leading_block(0));  // no block eliminated last
  // A border on both ends of the chain: not within any leading block short of the whole T.
  const BorderSplit both_ends = split_of(bordered_matrix(30, 4, {0, 29}, {1, 2}, 4), 4);
  CHECK_FALSE(both_ends.within_leading_block(6));
  CHECK(both_ends.within_leading_block(30));
}
