#include "catenary/solve/linear_solver.hpp"

#include <Eigen/UmfPackSupport>

#include "catenary/core/errors.hpp"

namespace catenary {

struct SparseDirectSolver::Impl {
  Eigen::UmfPackLU<Eigen::SparseMatrix<double>> lu;
  bool analyzed = false;
};

SparseDirectSolver::SparseDirectSolver() : impl_(std::make_unique<Impl>()) {}
SparseDirectSolver::~SparseDirectSolver() = default;

void SparseDirectSolver::analyze(const Eigen::SparseMatrix<double>& A) {
  impl_->lu.analyzePattern(A);
  if (impl_->lu.info() != Eigen::Success)
    throw SimulationError("sparse LU: symbolic analysis failed");
  impl_->analyzed = true;
}

void SparseDirectSolver::factorize(const Eigen::SparseMatrix<double>& A) {
  if (!impl_->analyzed) analyze(A);
  impl_->lu.factorize(A);
  if (impl_->lu.info() != Eigen::Success)
    throw SimulationError("sparse LU: the Newton matrix is singular (a mechanism, a free body "
                          "without mass, or dependent constraints)");
}

void SparseDirectSolver::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const {
  x = impl_->lu.solve(rhs);
  if (impl_->lu.info() != Eigen::Success) throw SimulationError("sparse LU: solve failed");
}

}  // namespace catenary
