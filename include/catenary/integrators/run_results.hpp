#pragma once
// What an analysis hands out: its output frames (to a FrameSink) and the summary of its run. The
// writers (io/) and the library's callers read them.
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace catenary {

// One output instant. lambda holds the physical multipliers (one per constraint row); the
// constraint force on the system is -Phi_q^T lambda, so the reaction reported for a row is -lambda.
struct Frame {
  double time = 0.0;
  double step = 0.0;           // step size that reached this time (0 for the initial frame)
  int newton_iterations = 0;   // of the step that reached this time
  const Eigen::VectorXd* q = nullptr;
  const Eigen::VectorXd* v = nullptr;
  const Eigen::VectorXd* lambda = nullptr;
  double kinetic_energy = 0.0, gravitational_energy = 0.0, elastic_energy = 0.0;
  // M(q) v of the kinetic energy (emit_frame), for the per-copy energies of a sweep.
  const Eigen::VectorXd* mass_times_v = nullptr;
  // Accelerations (kinematic analysis only; then rigid_bodies.csv has acceleration columns).
  const Eigen::VectorXd* a = nullptr;
  // Dynamic, rigid contacts: per contact (RigidContacts' order), the normal impulses of the impact
  // model's velocity jumps since the previous frame (N s); null: none.
  const Eigen::VectorXd* contact_impulses = nullptr;
};

// How far the assembly analysis moved a part (a rigid body or a cable) to satisfy the constraints.
struct MovedPart {
  std::string kind;  // "rigid_body" or "cable"
  std::string name;
  double translation = 0.0;  // rigid body: |change of the centre of mass|; cable: largest node displacement (m)
  double rotation = 0.0;     // rigid body: angle of the change of orientation (rad); cable: 0
};

// What the run did, for the summary JSON and the command line.
struct RunSummary {
  std::string analysis;  // "static", "dynamic", "assembly", "kinematic" or "eigen"
  // "ok", "failed" or "interrupted" (stopped between two steps at a caller's request); summary.json
  // says "running" from the run's start until its end replaces it.
  std::string status;
  std::string message;   // diagnosis when failed, where it stopped when interrupted
  long steps = 0, rejected_steps = 0, newton_iterations = 0;
  double end_time = 0.0;  // the last time reached (statics: the load factor)
  double wall_seconds = 0.0;
  double last_residual = 0.0;  // largest force residual of the last Newton iterate (N)
  // Largest local error estimate of an accepted step (1 = the error tolerance) and its time; and
  // of a step the adaptive control rejected (0: none).
  double largest_error_estimate = 0.0, largest_error_time = 0.0;
  double largest_rejected_error_estimate = 0.0;
  // Dynamic: the wall seconds from the first accepted step's end to the last one's, frames written
  // between included: the cost of stepping without the run's set-up, initial state and first step
  // (0 for fewer than two steps).
  double stepping_seconds = 0.0;
  // Dynamic: the wall seconds of the consistent initial state and the method's start (before the
  // first frame), and of all frames (the state's download, energies and writing), of which the
  // writing (the frame sink) is output_writing_seconds.
  double initial_state_seconds = 0.0, output_seconds = 0.0, output_writing_seconds = 0.0;
  // A resumed run: the time of the checkpoint it continued from (-1: a run from its start). Its
  // counters include the steps before the checkpoint; its wall times are its own.
  double resumed_at = -1.0;
  long steps_before_resume = 0;
  std::vector<std::string> warnings;
  // Assembly analysis: what moved, and the constraint violation left.
  std::vector<MovedPart> moved;
  double constraint_violation = 0.0;
  // Dynamic, rigid contacts: the located switches of a contact point between apart and touching,
  // the impacts (velocity jumps of the classical impact model), and the steps tried again shorter
  // to locate a switch (src/integrators/contact_events.hpp).
  long contact_events = 0, impacts = 0, event_retries = 0;
  // Eigen analysis: the modes' eigenvalues (1/s), nearest the shift first
  // (integrators/eigen_analysis.hpp).
  std::vector<std::complex<double>> eigenvalues;
};

using FrameSink = std::function<void(const Frame&)>;

}  // namespace catenary
