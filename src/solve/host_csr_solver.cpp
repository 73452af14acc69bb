// The host stand-in for cuSOLVER in the CUDA backend's host build: the CSR matrix is copied to
// column storage and factorized with the same UMFPACK wrapper the CPU backend uses.
#include <vector>

#include <Eigen/SparseCore>

#include "catenary/solve/csr_solver.hpp"
#include "catenary/solve/linear_solver.hpp"

namespace catenary {

namespace {

class HostCsrSolver : public CsrSolver {
 public:
  void analyze(int size, int nonzeros, const int* row_ptr, const int* col_index) override {
    size_ = size;
    nonzeros_ = nonzeros;
    row_ptr_.assign(row_ptr, row_ptr + size + 1);
    col_index_.assign(col_index, col_index + nonzeros);
    values_.assign(nonzeros, 0.0);
    copy_to_columns();
    solver_.analyze(matrix_);
  }
  size_t workspace_bytes() const override { return 0; }
  void factorize(const double* values) override {
    values_.assign(values, values + nonzeros_);
    copy_to_columns();
    solver_.factorize(matrix_);
  }
  void solve(const double* rhs, double* x) override {
    Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(rhs, size_), sol;
    solver_.solve(b, sol);
    Eigen::Map<Eigen::VectorXd>(x, size_) = sol;
  }

 private:
  void copy_to_columns() {
    matrix_ = Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor>>(size_, size_, nonzeros_, row_ptr_.data(),
                                                                              col_index_.data(), values_.data());
  }
  int size_ = 0, nonzeros_ = 0;
  std::vector<int> row_ptr_, col_index_;
  std::vector<double> values_;
  Eigen::SparseMatrix<double> matrix_;
  SparseDirectSolver solver_;
};

}  // namespace

std::unique_ptr<CsrSolver> make_host_csr_solver() { return std::make_unique<HostCsrSolver>(); }

}  // namespace catenary
