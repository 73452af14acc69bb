#include "catenary/solve/linear_solver.hpp"

#include <Eigen/UmfPackSupport>
#include <string>

#include "catenary/core/errors.hpp"

namespace catenary {

namespace {

using WideMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, SuiteSparse_long>;

// Throws the SimulationError for a failed numeric factorization with UMFPACK's status.
[[noreturn]] void factorization_failed(int status, const Eigen::SparseMatrix<double>& A) {
  if (status == UMFPACK_WARNING_singular_matrix)
    throw SimulationError("sparse LU: the Newton matrix is singular (a mechanism, a free body "
                          "without mass, or dependent constraints)");
  if (status == UMFPACK_ERROR_out_of_memory)
    throw SimulationError("sparse LU: UMFPACK ran out of memory factorizing the Newton matrix of " +
                          std::to_string(A.rows()) + " unknowns and " + std::to_string(A.nonZeros()) + " entries");
  throw SimulationError("sparse LU: UMFPACK's numeric factorization failed with status " + std::to_string(status));
}

}  // namespace

struct SparseDirectSolver::Impl {
  Eigen::UmfPackLU<Eigen::SparseMatrix<double>> lu;
  Eigen::UmfPackLU<WideMatrix> wide_lu;
  WideMatrix wide_copy;  // the matrix with 64-bit indices, for wide_lu
  bool wide = false, analyzed = false;

  void analyze_wide(const Eigen::SparseMatrix<double>& A) {
    wide_copy = A;
    wide_lu.analyzePattern(wide_copy);
    if (wide_lu.info() != Eigen::Success) throw SimulationError("sparse LU: symbolic analysis failed");
    wide = true;
  }
};

SparseDirectSolver::SparseDirectSolver(bool wide_indices) : impl_(std::make_unique<Impl>()) {
  impl_->wide = wide_indices;
  // No iterative refinement in the solves (UMFPACK's default is up to 2 steps): the Newton
  // iteration around every solve corrects its error anyway, the device's solvers do not refine
  // either, and a solve with refinement took about 7 times as long as one without (16,384
  // elements: 17.0 -> 2.4 ms of solve per step).
  impl_->lu.umfpackControl()(UMFPACK_IRSTEP) = 0;
  impl_->wide_lu.umfpackControl()(UMFPACK_IRSTEP) = 0;
}
SparseDirectSolver::~SparseDirectSolver() = default;

bool SparseDirectSolver::wide_indices() const { return impl_->wide; }

void SparseDirectSolver::analyze(const Eigen::SparseMatrix<double>& A) {
  if (impl_->wide) {
    impl_->analyze_wide(A);
  } else {
    impl_->lu.analyzePattern(A);
    if (impl_->lu.info() != Eigen::Success) throw SimulationError("sparse LU: symbolic analysis failed");
  }
  impl_->analyzed = true;
}

void SparseDirectSolver::factorize(const Eigen::SparseMatrix<double>& A) {
  Impl& s = *impl_;
  if (!s.analyzed) analyze(A);
  if (!s.wide) {
    s.lu.factorize(A);
    if (s.lu.info() == Eigen::Success) return;
    const int status = s.lu.umfpackFactorizeReturncode();
    if (status != UMFPACK_ERROR_out_of_memory) factorization_failed(status, A);
    s.analyze_wide(A);  // the int version's limit, not necessarily the machine's: go wide
  }
  std::copy(A.valuePtr(), A.valuePtr() + A.nonZeros(), s.wide_copy.valuePtr());
  s.wide_lu.factorize(s.wide_copy);
  if (s.wide_lu.info() != Eigen::Success) factorization_failed(static_cast<int>(s.wide_lu.umfpackFactorizeReturncode()), A);
}

void SparseDirectSolver::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const {
  bool ok;
  if (impl_->wide) {
    x = impl_->wide_lu.solve(rhs);
    ok = impl_->wide_lu.info() == Eigen::Success;
  } else {
    x = impl_->lu.solve(rhs);
    ok = impl_->lu.info() == Eigen::Success;
  }
  if (!ok) throw SimulationError("sparse LU: solve failed");
}

}  // namespace catenary
