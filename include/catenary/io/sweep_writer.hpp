#pragma once
// Output of a sweep: the batch's frames split into one ordinary output per copy
// (DIR/copy_NNNN/, the files of OutputWriter, with that copy's own energies, NNNN its number in
// the whole sweep), DIR/sweep.json, the index of the copies and their parameter values, and
// DIR/sweep.csv, a row a copy: its number, its parameters (a column a vector component) and its
// last frame of results.csv. A run of some of the copies (run --copies or --part) names the two
// sweep_copies_FFFF-LLLL.json and .csv, so that the parts of a sweep split over jobs can share DIR.
#include <memory>
#include <string>
#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/multibody/multibody_block.hpp"

namespace catenary {

class SweepWriter {
 public:
  // cases, ranges and batch must outlive the writer; backend is the batch's.
  SweepWriter(const std::vector<SweepCase>& cases, const std::vector<CopyRange>& ranges, const Model& batch,
              Backend& backend, const std::string& directory);
  void write_frame(const Frame& batch_frame);
  void write_summary(const RunSummary& s);
  static std::string copy_directory_name(size_t k);
  // "sweep", or for a run of some copies "sweep_copies_FFFF-LLLL": the index's and the table's
  // name without .json / .csv.
  static std::string index_stem(const std::vector<SweepCase>& cases);

 private:
  const std::vector<SweepCase>& cases_;
  const std::vector<CopyRange>& ranges_;
  const Model& batch_;
  Backend& backend_;
  std::string directory_;
  std::vector<std::unique_ptr<OutputWriter>> writers_;
  std::vector<std::unique_ptr<MultibodyBlock>> mechanisms_;  // per copy; null without rigid bodies
  Eigen::VectorXd gravity_;
};

}  // namespace catenary
