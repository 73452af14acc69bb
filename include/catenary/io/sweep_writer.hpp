#pragma once
// Output of a sweep. Each copy gets the ordinary output (DIR/copy_NNNN/, the files of
// OutputWriter, with that copy's own energies, NNNN its number in the whole sweep); SweepWriter
// splits a batch's frames into them. SweepIndex keeps what each copy came to, over the batches
// that ran it (a copy that fails is run again alone, the others again without it), and writes
// DIR/sweep.json (each copy's directory, label, values and status) and DIR/sweep.csv (a row a
// copy: its number, its parameters, a column a vector component, its status and its last frame of
// results.csv). A run of some of the copies (run --copies or --part) names the two
// sweep_copies_FFFF-LLLL.json and .csv, so that the parts of a sweep split over jobs can share DIR.
#include <memory>
#include <string>
#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/assembly/multibody_block.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"

namespace catenary {

class SweepIndex {
 public:
  // cases (the copies this run takes) must outlive the index.
  SweepIndex(const std::vector<SweepCase>& cases, std::string directory);
  // Before the run: clears the copies that an earlier run's index of this name lists and this run
  // does not take (src/io/earlier_outputs.hpp), and writes the index with status "running".
  void start() const;
  // Copy `position` (in cases) ended as s says, with w's results.csv.
  void record(size_t position, const RunSummary& s, const OutputWriter& w);
  // sweep.json (its "status": the sweep's, "running", "ok", "failed" or "interrupted") and
  // sweep.csv (or the part's), written whole.
  void write(const std::string& status) const;
  // The numbers in the sweep of the copies that did not end "ok" (failed, interrupted, not run).
  std::vector<size_t> failed_copies() const;
  // What each copy came to so far, into a checkpoint's record and back (a resumed sweep).
  void save(StateRecord& record) const;
  void restore(const StateRecord& record);
  // The checkpoint of a run of these copies in directory: DIR/STEM.checkpoint.bin.
  static std::string checkpoint_file(const std::vector<SweepCase>& cases, const std::string& directory);
  // "sweep", or for a run of some copies "sweep_copies_FFFF-LLLL": the index's and the table's
  // name without .json / .csv.
  static std::string stem(const std::vector<SweepCase>& cases);

 private:
  std::string table() const;  // sweep.csv's text
  struct Outcome {
    std::string status = "not run", message, results_header, last_results_row, extras_header, extras_row;
  };
  const std::vector<SweepCase>& cases_;
  std::string directory_;
  std::vector<Outcome> outcomes_;
};

class SweepWriter {
 public:
  // The batch of copies positions[i] of cases (merged in that order: ranges[i]); cases, ranges
  // and index must outlive the writer; backend is the batch's.
  // With `resume`, each copy's writer resumes from the checkpoint's record (OutputWriter).
  SweepWriter(const std::vector<SweepCase>& cases, std::vector<size_t> positions, const std::vector<CopyRange>& ranges,
              const Model& batch, Backend& backend, const std::string& directory, SweepIndex& index,
              const StateRecord* resume = nullptr);
  void write_frame(const Frame& batch_frame);
  // Every copy's writer's state, into a checkpoint's record.
  void save(StateRecord& record) const;
  // Every copy's summary.json, and what each came to in the index.
  void write_summary(const RunSummary& s);
  static std::string copy_directory_name(size_t k);

 private:
  // The names of copy k's writer's values in a checkpoint's record.
  static std::string record_prefix(size_t k);
  const std::vector<SweepCase>& cases_;
  std::vector<size_t> positions_;
  const std::vector<CopyRange>& ranges_;
  Backend& backend_;
  SweepIndex& index_;
  std::vector<std::unique_ptr<OutputWriter>> writers_;
  std::vector<std::unique_ptr<MultibodyBlock>> mechanisms_;  // per copy; null without rigid bodies
  Eigen::VectorXd gravity_;
  // Each frame's element energies, kept from frame to frame: a fresh array's pages cost a fault
  // each (8 MB at 1,000,000 elements; a fresh 48 MB array took 35 ms to fill on an H200's host).
  std::vector<double> element_energy_;
};

}  // namespace catenary
