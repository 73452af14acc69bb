#pragma once
// The analyses of a rigid mechanism that need no integrator: kinematic analysis of fully driven
// (zero-DOF) systems with inverse dynamics (the multipliers, hence the driver forces and joint
// reactions, that the prescribed motion needs), and the checks and failure messages about its
// constraint Jacobian that the other analyses share (redundant rows, singular configurations).
// (Assembling inconsistent positions and velocities is the consistent initial state's:
// consistent_initial_state, integrators/analyses.hpp.)
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "catenary/multibody/mechanism.hpp"

namespace catenary {

// A cable's linear constraint row on the coordinates of attached nodes, in the mechanism's
// columns, for the redundancy check: name ("constraint 'pin' row x") and owner ("constraint 'pin'").
struct FixedRow {
  std::string name, owner;
  std::vector<std::pair<int, double>> terms;  // (mechanism coordinate, coefficient)
};

// Redundant constraints, found before a run: the first row (the cable rows given, then joints,
// drivers, attachments, normalization) that is a combination of earlier rows at configuration q
// throws ModelError naming the constraints, joints and drivers involved. (A planar mechanism
// built only from revolute joints has such rows: its joints repeat each other's out-of-plane
// conditions; a cable node both pinned and attached to a hinged body over-constrains the body.)
void check_redundant_constraints(const Mechanism& m, const Eigen::VectorXd& q, double t,
                                 const std::vector<FixedRow>& cable_rows = {});

// For a failure message: the smallest singular value of the constraint Jacobian at q and the
// joints and drivers whose rows come closest to dependence (those with weight in its left
// singular vector), called singular, nearly singular (below 1e-3 of the largest) or closest to
// singular; relative_smallest (optional) gets the smallest singular value over the largest.
std::string describe_singularity(const Mechanism& m, const Eigen::VectorXd& q, double t,
                                 double* relative_smallest = nullptr);

struct KinematicFrame {
  double t = 0.0;
  Eigen::VectorXd q, v, a;  // from the constraints alone
  Eigen::VectorXd lambda;   // inverse dynamics: M a + Phi_q^T lambda = Q
  int iterations = 0;       // Newton updates of the position solve (0: the predictor met the constraints)
};

// Kinematic analysis of a zero-DOF mechanism (as many independent constraint rows, drivers
// included, as coordinates) from its initial positions, every `step` up to `end_time`. Throws
// ModelError if the system is not zero-DOF and SimulationError at a singular configuration.
// gravity: the model's, for the inverse dynamics.
std::vector<KinematicFrame> run_kinematics(const Mechanism& m, const Vec<3>& gravity, double end_time, double step);

}  // namespace catenary
