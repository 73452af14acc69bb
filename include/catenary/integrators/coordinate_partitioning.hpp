#pragma once
// Generalized coordinate partitioning (Wehage and Haug 1982; the LU partitioning of the theory
// chapter) for the explicit methods (explicit_rk.cpp, abam.cpp): after each step the mechanism's
// dependent coordinates q_D are solved from Phi(q, t) = 0 by Newton with the independent ones
// held, and the dependent velocities from Phi_q v = nu, so the step's result meets the position
// and velocity constraints to round-off instead of within Baumgarte's bound.
//
// The partition: full-pivoting LU of the mechanism's constraint Jacobian Phi_q (rows x
// coordinates, dense: a mechanism's few rows); its first `rows` pivot columns are the dependent
// coordinates, the rest independent. The square block Phi_qD is factorized (partial pivoting)
// at each projection; its pivot ratio min |u_ii| / max |u_ii| measures how well q_D is defined by
// the rest. The partition is chosen again when that ratio falls below a tenth of its value when
// the partition was chosen (a dependent coordinate on its way to a turning point, where it can no
// longer be solved for).
//
// The mechanism's rows (joints, drivers, attachments, Euler-parameter normalizations) are solved
// on the host, where the multibody block evaluates them for every backend (system.hpp): a few
// values of q and v cross each step. The elements' linear rows C q = b(t) are left to the
// method: a step combines states, which meet constant ones (fixed nodes) to round-off.
#include <vector>

#include <Eigen/LU>

#include "catenary/core/state_record.hpp"
#include "catenary/integrators/system.hpp"

namespace catenary {

class CoordinatePartitioning {
 public:
  explicit CoordinatePartitioning(System& sys);
  // q and v (backend vectors of the model) at t moved onto Phi = 0 and Phi_q v = nu. Throws
  // SimulationError where Newton does not converge or Phi_q loses rank.
  void project(double t, Vector& q, Vector& v);
  // How many partitions were chosen (the first included).
  int partitions() const { return partitions_; }
  // The partition in use, into a checkpoint's record and back.
  void save(StateRecord& record) const;
  void restore(const StateRecord& record);

 private:
  // A new partition from the Jacobian at the current point.
  void partition(const Eigen::MatrixXd& jacobian);
  // The dependent columns of the Jacobian, factorized, and their pivot ratio.
  double factorize(const Eigen::MatrixXd& jacobian);

  System& sys_;
  std::vector<int> dependent_;  // mechanism coordinates solved from the constraints
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  double chosen_ratio_ = 0.0;   // the pivot ratio when the partition was chosen
  int partitions_ = 0;
};

}  // namespace catenary
