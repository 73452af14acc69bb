// UMFPACK wrapper: the int and the long (64-bit index) versions solve the same system to
// round-off, checked against the residual; a singular matrix is reported as singular.
#include <catch2/catch.hpp>

#include <Eigen/SparseCore>
#include <random>

#include "catenary/core/errors.hpp"
#include "catenary/solve/linear_solver.hpp"

using namespace catenary;

namespace {

// A nonsymmetric, diagonally dominant banded matrix with a few far couplings.
Eigen::SparseMatrix<double> test_matrix(int n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Eigen::Triplet<double>> t;
  for (int i = 0; i < n; ++i) {
    t.emplace_back(i, i, 8.0 + u(rng));
    for (int d : {1, 2, 7})
      if (i + d < n) t.emplace_back(i, i + d, u(rng)), t.emplace_back(i + d, i, u(rng));
  }
  Eigen::SparseMatrix<double> A(n, n);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

}  // namespace

TEST_CASE("UMFPACK int and long versions solve the same system", "[solver]") {
  const int n = 300;
  Eigen::SparseMatrix<double> A = test_matrix(n);
  const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
  Eigen::VectorXd x_narrow, x_wide;
  SparseDirectSolver narrow, wide(true);
  CHECK_FALSE(narrow.wide_indices());
  CHECK(wide.wide_indices());
  for (int round = 0; round < 2; ++round) {  // a second factorization of new values, same pattern
    narrow.factorize(A);
    wide.factorize(A);
    narrow.solve(b, x_narrow);
    wide.solve(b, x_wide);
    CHECK((A * x_narrow - b).norm() < 1e-12 * b.norm());
    CHECK((A * x_wide - b).norm() < 1e-12 * b.norm());
    CHECK((x_narrow - x_wide).norm() < 1e-13 * x_narrow.norm());
    A *= 2.0;
  }
}

TEST_CASE("UMFPACK reports a singular matrix as singular, in both versions", "[solver]") {
  Eigen::SparseMatrix<double> A = test_matrix(50);
  A.prune([](int row, int, double) { return row != 20; });  // an empty row
  for (bool wide : {false, true}) {
    SparseDirectSolver solver(wide);
    CHECK_THROWS_WITH(solver.factorize(A), Catch::Contains("singular"));
  }
}
