#pragma once
// Writes a run's results as it goes: a CSV time series, VTU + PVD frames for ParaView and a
// summary JSON. The summary says "running" from the start until the run's own replaces it. Each
// frame's rows reach their files in one write, and a frame file is listed in results.pvd once it
// is whole, so a run that fails, stops or is killed keeps valid output up to its last frame. A
// write that fails (a full disk) throws OutputError naming the file and the system's reason.
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "catenary/core/state_record.hpp"
#include "catenary/integrators/run_results.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/contact_report.hpp"
#include "catenary/io/run_extremes.hpp"
#include "catenary/model/line_tension.hpp"

namespace catenary {

class OutputFile;

class OutputWriter {
 public:
  // Creates the directory, clears what an earlier run wrote there (its summary.json's files and
  // frames, src/io/earlier_outputs.hpp) and writes summary.json with status "running"; the files
  // are results.csv, frames/frame_NNNNN.vtu, results.pvd, summary.json, for a model with rigid
  // bodies rigid_bodies.csv and joint_reactions.csv, and for one with contacts contacts.csv
  // (columns in docs/case-format.md).
  // With `resume` (a checkpoint's record, this writer's values under `prefix`), the directory's
  // files are instead those of the run the checkpoint was written in: each is cut back to what it
  // held at the checkpoint (frames written after it removed) and written on from there;
  // CheckpointError where they hold less.
  OutputWriter(const Case& c, const std::string& directory, const StateRecord* resume = nullptr,
               const std::string& prefix = "output.");
  // Files a writer of c keeps open from construction to destruction (results.csv, rigid_bodies.csv
  // and joint_reactions.csv for a model with rigid bodies, contacts.csv for one with contacts); a
  // frame opens and closes one or two more (its VTU file, results.pvd).
  static int files_held(const Case& c) {
    return 1 + (c.model.mechanism.empty() ? 0 : 2) + (has_contacts(c.model) ? 1 : 0);
  }
  ~OutputWriter();
  void write_frame(const Frame& f);
  // What the writer has written (each file's size, the frames), into a checkpoint's record under
  // `prefix`.
  void save(StateRecord& record, const std::string& prefix = "output.") const;
  void write_summary(const RunSummary& s);
  // The summary of a run that has done nothing yet, with this status and message: "running" at the
  // start, "failed" where a result file cannot be written.
  RunSummary starting_summary(const std::string& status, const std::string& message = "") const;
  const std::string& directory() const { return directory_; }
  // results.csv's header and its last row written (empty before the first frame), without the
  // line ends: a sweep's table of every copy's last frame (SweepWriter).
  const std::string& results_header() const { return results_header_; }
  const std::string& last_results_row() const { return last_results_row_; }
  // What the run reports over its frames so far (RunExtremes): a sweep's table carries it.
  const RunExtremes& extremes() const { return extremes_; }

 private:
  void write_csv_header();
  std::string csv_header() const;
  void write_mechanism_headers();
  // The directory's files as the checkpoint's record says they were.
  void resume_files(const StateRecord& record, const std::string& prefix);
  void write_mechanism_rows(const Frame& f);
  void write_contacts_header();
  void write_contact_rows(const Frame& f, const Eigen::VectorXd& q, const Eigen::VectorXd& v);
  // Adds frame file `file` at `time` to results.pvd (the first frame writes the file).
  void add_pvd_entry(double time, const std::string& file);
  const Case& case_;
  std::string directory_;
  std::unique_ptr<OutputFile> csv_;
  std::unique_ptr<OutputFile> bodies_csv_, reactions_csv_;  // for models with rigid bodies
  std::unique_ptr<OutputFile> contacts_csv_;                 // for models with contacts
  std::vector<int> mechanism_dofs_;           // model coordinate of each mechanism coordinate
  int mechanism_first_row_ = 0;
  size_t vtu_frames_ = 0;  // written so far
  std::string results_header_, last_results_row_;
  std::vector<NodeOnElement> tension_elements_;  // where each output.tensions node's tension is read
  RunExtremes extremes_;  // the lines' largest tensions, touchdown ranges and output.statistics so far
};

}  // namespace catenary
