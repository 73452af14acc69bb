// The kinematic analysis of a zero-DOF rigid mechanism (multibody/kinematic_analysis.hpp) as
// output frames of the model's coordinates.
#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/model/multibody_layout.hpp"
#include "catenary/multibody/force_elements.hpp"
#include "catenary/multibody/kinematic_analysis.hpp"

namespace catenary {

void run_kinematic(const Model& m, const KinematicSettings& s, double interval, const FrameSink& sink,
                   RunSummary& summary) {
  summary.analysis = "kinematic";
  const Mechanism& mech = m.mechanism;
  std::vector<KinematicFrame> frames;
  try {
    frames = run_kinematics(mech, m.gravity, s.end_time, s.step);
  } catch (const ModelError& e) {
    throw SimulationError(e.what());
  }
  const MultibodyLayout layout = multibody_layout(m);
  const int n = static_cast<int>(layout.dofs.size());
  Eigen::VectorXd q = initial_coordinates(m), v = Eigen::VectorXd::Zero(m.dof_count()), a = v;
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(m.constraint_count());
  double next = 0.0;
  for (const KinematicFrame& kf : frames) {
    summary.end_time = kf.t;
    summary.newton_iterations += kf.iterations;
    const bool last = &kf == &frames.back();
    if (interval > 0.0 && kf.t < next - 1e-9 * s.step && !last) continue;
    while (interval > 0.0 && next <= kf.t + 1e-9 * s.step) next += interval;
    for (int k = 0; k < n; ++k) {
      q[layout.dofs[k]] = kf.q[k];
      v[layout.dofs[k]] = kf.v[k];
      a[layout.dofs[k]] = kf.a[k];
    }
    lambda.segment(layout.first_row, layout.rows) = kf.lambda;
    Eigen::MatrixXd M;
    mass_matrix(mech, kf.q, M);
    Eigen::VectorXd Q = Eigen::VectorXd::Zero(n);
    Frame fr;
    fr.time = kf.t;
    fr.step = &kf == &frames.front() ? 0.0 : s.step;
    fr.newton_iterations = kf.iterations;
    fr.q = &q;
    fr.v = &v;
    fr.a = &a;
    fr.lambda = &lambda;
    fr.kinetic_energy = 0.5 * kf.v.dot(M * kf.v);
    for (size_t b = 0; b < mech.bodies.size(); ++b)
      for (int k = 0; k < 3; ++k) fr.gravitational_energy -= mech.bodies[b].mass * m.gravity[k] * kf.q[7 * b + k];
    fr.elastic_energy = add_applied_forces(mech, kf.q.data(), kf.v.data(), kf.t, Q.data());
    sink(fr);
  }
  summary.steps = static_cast<long>(frames.size()) - 1;
}

}  // namespace catenary
