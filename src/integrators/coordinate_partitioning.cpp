#include "catenary/integrators/coordinate_partitioning.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/multibody/mechanism.hpp"

namespace catenary {

namespace {

// Newton on q_D stops when |Phi| is at most this times (1 + max |q|): a few hundred roundings of
// the coordinates. From a step's drift (its local error) it takes one or two iterations.
constexpr double kPhiTolerance = 1e-13;
constexpr int kMaxIterations = 10;
// The partition is chosen again when the pivot ratio falls below this fraction of its value at
// the choice.
constexpr double kRepartitionFraction = 0.1;

}  // namespace

CoordinatePartitioning::CoordinatePartitioning(System& sys) : sys_(sys) {}

void CoordinatePartitioning::partition(const Eigen::MatrixXd& jacobian) {
  const Eigen::FullPivLU<Eigen::MatrixXd> full(jacobian);
  const int rows = static_cast<int>(jacobian.rows());
  if (full.rank() < rows) {
    std::ostringstream msg;
    msg << "coordinate partitioning needs independent constraint rows: the mechanism's Jacobian has rank "
        << full.rank() << " of its " << rows << " rows";
    throw SimulationError(msg.str());
  }
  dependent_.assign(full.permutationQ().indices().data(), full.permutationQ().indices().data() + rows);
  chosen_ratio_ = factorize(jacobian);
  ++partitions_;
}

double CoordinatePartitioning::factorize(const Eigen::MatrixXd& jacobian) {
  const int rows = static_cast<int>(jacobian.rows());
  Eigen::MatrixXd block(rows, rows);
  for (int j = 0; j < rows; ++j) block.col(j) = jacobian.col(dependent_[j]);
  lu_.compute(block);
  const Eigen::VectorXd pivots = lu_.matrixLU().diagonal().cwiseAbs();
  return pivots.minCoeff() / pivots.maxCoeff();
}

void CoordinatePartitioning::project(double t, Vector& q_model, Vector& v_model) {
  const Mechanism& mechanism = sys_.multibody().mechanism();
  const Eigen::VectorXd q0 = sys_.mechanism_part(q_model), v0 = sys_.mechanism_part(v_model);
  if (q0.size() == 0 || mechanism.row_count() == 0) return;
  Eigen::VectorXd q = q0, v = v0;
  ConstraintState c = evaluate_constraints(mechanism, q, v, t);
  Eigen::MatrixXd jacobian(c.jacobian);
  if (dependent_.empty() || factorize(jacobian) < kRepartitionFraction * chosen_ratio_) partition(jacobian);
  const double tolerance = kPhiTolerance * (1.0 + q.lpNorm<Eigen::Infinity>());
  for (int iteration = 0; c.phi.lpNorm<Eigen::Infinity>() > tolerance; ++iteration) {
    if (iteration == kMaxIterations || !std::isfinite(c.phi.lpNorm<Eigen::Infinity>())) {
      std::ostringstream msg;
      msg << "coordinate partitioning: the dependent coordinates did not settle on the position constraints in "
          << kMaxIterations << " Newton iterations (largest |Phi| " << c.phi.lpNorm<Eigen::Infinity>() << ")";
      throw SimulationError(msg.str());
    }
    const Eigen::VectorXd dq = lu_.solve(-c.phi);
    for (size_t j = 0; j < dependent_.size(); ++j) q[dependent_[j]] += dq[static_cast<Eigen::Index>(j)];
    c = evaluate_constraints(mechanism, q, v, t);
    jacobian = c.jacobian;
    factorize(jacobian);
  }
  const Eigen::VectorXd dv = lu_.solve(c.nu - jacobian * v);
  for (size_t j = 0; j < dependent_.size(); ++j) v[dependent_[j]] += dv[static_cast<Eigen::Index>(j)];
  sys_.add_to_mechanism_part(q - q0, q_model);
  sys_.add_to_mechanism_part(v - v0, v_model);
}

void CoordinatePartitioning::save(StateRecord& record) const {
  Eigen::VectorXd dependent(static_cast<Eigen::Index>(dependent_.size()));
  for (size_t j = 0; j < dependent_.size(); ++j) dependent[static_cast<Eigen::Index>(j)] = dependent_[j];
  record.set("partitioning.dependent", dependent);
  record.set("partitioning.chosen_ratio", chosen_ratio_);
  record.set("partitioning.partitions", static_cast<double>(partitions_));
}

void CoordinatePartitioning::restore(const StateRecord& record) {
  const Eigen::VectorXd& dependent = record.vector("partitioning.dependent");
  const int coordinates = static_cast<int>(sys_.multibody().layout().dofs.size());
  dependent_.clear();
  for (Eigen::Index j = 0; j < dependent.size(); ++j) {
    const double x = dependent[j];
    if (!(x >= 0 && x < coordinates && std::floor(x) == x))
      throw CheckpointError("the checkpoint's 'partitioning.dependent' holds " + std::to_string(x) +
                            ", not a mechanism coordinate of this run");
    dependent_.push_back(static_cast<int>(x));
  }
  chosen_ratio_ = record.number("partitioning.chosen_ratio");
  partitions_ = static_cast<int>(record.count("partitioning.partitions"));
}

}  // namespace catenary
