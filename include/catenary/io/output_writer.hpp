#pragma once
// Writes a run's results as it goes: a CSV time series, VTU + PVD frames for ParaView and a
// summary JSON. Every frame is flushed when written, so a run that fails keeps valid output.
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "catenary/model/case.hpp"

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
  std::string analysis;  // "static" or "dynamic"
  std::string status;    // "ok" or "failed"
  std::string message;   // diagnosis when failed
  long steps = 0, rejected_steps = 0, newton_iterations = 0;
  double end_time = 0.0, wall_seconds = 0.0;
  double last_residual = 0.0;  // largest force residual of the last Newton iterate (N)
  // Largest local error estimate of an accepted step (1 = the error tolerance) and its time.
  double largest_error_estimate = 0.0, largest_error_time = 0.0;
  // Dynamic: the wall seconds from the first accepted step's end to the last one's, frames written
  // between included: the cost of stepping without the run's set-up, initial state and first step
  // (0 for fewer than two steps).
  double stepping_seconds = 0.0;
  // Dynamic: the wall seconds of the consistent initial state and the method's start (before the
  // first frame), and of all frames (the state's download, energies and writing), of which the
  // writing (the frame sink) is output_writing_seconds.
  double initial_state_seconds = 0.0, output_seconds = 0.0, output_writing_seconds = 0.0;
  std::vector<std::string> warnings;
  // Assembly analysis: what moved, and the constraint violation left.
  std::vector<MovedPart> moved;
  double constraint_violation = 0.0;
};

class OutputWriter {
 public:
  // Creates the directory; the files are results.csv, frames/frame_NNNNN.vtu, results.pvd,
  // summary.json, and for a model with rigid bodies rigid_bodies.csv and joint_reactions.csv
  // (columns in docs/case-format.md).
  OutputWriter(const Case& c, const std::string& directory);
  // Files a writer of c keeps open from construction to destruction (results.csv, and
  // rigid_bodies.csv and joint_reactions.csv for a model with rigid bodies); a frame opens and
  // closes one or two more (its VTU file, results.pvd).
  static int files_held(const Case& c) { return c.model.mechanism.empty() ? 1 : 3; }
  ~OutputWriter();
  void write_frame(const Frame& f);
  void write_summary(const RunSummary& s);
  const std::string& directory() const { return directory_; }
  // results.csv's header and its last row written (empty before the first frame), without the
  // line ends: a sweep's table of every copy's last frame (SweepWriter).
  const std::string& results_header() const { return results_header_; }
  const std::string& last_results_row() const { return last_results_row_; }

 private:
  void write_csv_header();
  void write_mechanism_headers();
  void write_mechanism_rows(const Frame& f);
  // Adds frame file `file` at `time` to results.pvd (the first frame writes the file).
  void add_pvd_entry(double time, const std::string& file);
  const Case& case_;
  std::string directory_;
  std::ofstream csv_;
  std::ofstream bodies_csv_, reactions_csv_;  // open for models with rigid bodies
  std::vector<int> mechanism_dofs_;           // model coordinate of each mechanism coordinate
  int mechanism_first_row_ = 0;
  size_t vtu_frames_ = 0;  // written so far
  std::string results_header_, last_results_row_;
};

}  // namespace catenary
