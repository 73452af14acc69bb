// The block solvers' small dense LU (solve/dense_block.hpp) against Eigen's partial-pivoting LU:
// the factors' layout (the pivot's reciprocal on the diagonal) is private to lu_factor and
// lu_solve, so what must hold is the solution, on blocks that need row swaps and on a node block
// with constraint rows (zero diagonal), at run-time sizes and at the unrolled size; and the
// columns' solve side by side (lu_solve_columns) must give lu_solve's numbers column by column.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <vector>

#include "catenary/solve/dense_block.hpp"

using namespace catenary;

namespace {

// x = A^-1 b by lu_factor and lu_solve, A row-major in a block of leading dimension ld >= n.
template <int N>
Eigen::VectorXd dense_block_solve(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, int ld) {
  const int n = static_cast<int>(A.rows());
  std::vector<double> block(static_cast<size_t>(n) * ld, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) block[i * ld + j] = A(i, j);
  std::vector<int> pivots(n);
  REQUIRE(lu_factor<N>(block.data(), pivots.data(), n, ld));
  Eigen::VectorXd x = b;
  lu_solve<N>(block.data(), pivots.data(), x.data(), n, ld, 1);
  return x;
}

}  // namespace

TEST_CASE("Dense block LU solves as Eigen's partial-pivoting LU does", "[chain-solver]") {
  std::srand(7);
  // A random block (row swaps), a diagonally weak one (a swap at every step) and a 3D cable
  // node's 6 coordinates with 3 pin rows: [M I; I 0], zero diagonal in the constraint rows.
  Eigen::MatrixXd weak = Eigen::MatrixXd::Random(6, 6);
  weak.diagonal() *= 1e-3;
  Eigen::MatrixXd saddle = Eigen::MatrixXd::Zero(9, 9);
  saddle.topLeftCorner(6, 6) = Eigen::MatrixXd::Random(6, 6) + 8.0 * Eigen::MatrixXd::Identity(6, 6);
  saddle.block(0, 6, 3, 3) = Eigen::MatrixXd::Identity(3, 3);
  saddle.block(6, 0, 3, 3) = Eigen::MatrixXd::Identity(3, 3);
  for (const Eigen::MatrixXd& A : {Eigen::MatrixXd(Eigen::MatrixXd::Random(6, 6)), weak, saddle,
                                   Eigen::MatrixXd(Eigen::MatrixXd::Random(4, 4))}) {
    const int n = static_cast<int>(A.rows());
    const Eigen::VectorXd b = Eigen::VectorXd::Random(n);
    const Eigen::VectorXd reference = A.partialPivLu().solve(b);
    const Eigen::VectorXd x = dense_block_solve<0>(A, b, 9);
    INFO(n << " x " << n << ": relative difference " << (x - reference).norm() / reference.norm());
    CHECK((x - reference).norm() <= 1e-12 * reference.norm());
    CHECK((A * x - b).norm() <= 1e-12 * (A.norm() * x.norm() + b.norm()));
    if (n == kUnrolledBlock) CHECK(dense_block_solve<kUnrolledBlock>(A, b, 9) == x);
  }
  // A zero column: no pivot, the factorization says so.
  Eigen::MatrixXd singular = Eigen::MatrixXd::Random(6, 6);
  singular.col(3).setZero();
  std::vector<double> block(36);
  Eigen::Map<Eigen::Matrix<double, 6, 6, Eigen::RowMajor>>(block.data()) = singular;
  std::vector<int> pivots(6);
  CHECK_FALSE(lu_factor(block.data(), pivots.data(), 6, 6));
}

TEST_CASE("Dense block LU: the columns side by side give lu_solve's numbers column by column", "[chain-solver]") {
  std::srand(11);
  for (const auto& [n, cols] : {std::pair<int, int>{6, 6}, {9, 6}, {6, 9}, {4, 2}}) {
    const int ld = 9;
    std::vector<double> A(static_cast<size_t>(ld) * ld), X(static_cast<size_t>(ld) * ld);
    Eigen::Map<Eigen::VectorXd>(A.data(), A.size()) = Eigen::VectorXd::Random(A.size());
    Eigen::Map<Eigen::VectorXd>(X.data(), X.size()) = Eigen::VectorXd::Random(X.size());
    for (int i = 0; i < n; ++i) A[i * ld + (i + 1) % n] += 3.0;  // a pivot off the diagonal: row swaps
    std::vector<int> pivots(n);
    REQUIRE(lu_factor(A.data(), pivots.data(), n, ld));
    std::vector<double> by_column = X, together = X;
    for (int c = 0; c < cols; ++c) lu_solve(A.data(), pivots.data(), by_column.data() + c, n, ld, ld);
    lu_solve_columns(A.data(), pivots.data(), together.data(), n, cols, ld);
    INFO(n << " x " << cols);
    CHECK(together == by_column);
    if (n == kUnrolledBlock && cols == kUnrolledBlock) {
      std::vector<double> unrolled = X;
      lu_solve_columns<kUnrolledBlock>(A.data(), pivots.data(), unrolled.data(), n, cols, ld);
      CHECK(unrolled == by_column);
    }
  }
}
