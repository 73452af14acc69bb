#pragma once
// Running a sweep: its copies as batches (one model of independent copies, model/model_merge.hpp),
// each copy written to its own directory and indexed (io/sweep_writer.hpp). A batch whose Newton
// iteration fails at coordinates of some copies sets those apart: each runs again alone and the
// rest again without them, from the start, so every copy's output is its own single run's.
#include <string>
#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/core/interruption.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/run/backend_factory.hpp"
#include "catenary/run/run_case.hpp"

namespace catenary {

// What a sweep's run tells its caller as it goes (the command line prints it; by default nothing).
class SweepObserver {
 public:
  virtual ~SweepObserver() = default;
  // A batch is about to be built: which copies, in words, with the batch's size.
  virtual void batch_planned(const std::string& description) { (void)description; }
  // Its backend is made (notice: why auto fell back, or a solver choice that does not apply).
  virtual void backend_ready(const Backend& backend, const std::string& notice) {
    (void)backend, (void)notice;
  }
  // Its analysis ended; its summary went to the copies' writers. dir and files say where.
  virtual void batch_finished(const AnalysisRun& run, const std::string& dir, const std::string& files) {
    (void)run, (void)dir, (void)files;
  }
  // A failed batch's copies set apart, or how the sweep ended where copies failed.
  virtual void note(const std::string& message) { (void)message; }
};

// The copies at `positions` of cases merged into one batch model (each copy's place in it in
// ranges); copies that cannot share one model are bad input at /sweep of case_path.
Model merge_sweep_copies(const std::vector<SweepCase>& cases, const std::vector<size_t>& positions,
                         const std::string& case_path, std::vector<CopyRange>& ranges);

// How a sweep's run ended.
struct SweepRun {
  std::vector<size_t> failed;  // the sweep numbers of the copies that did not run to their end
  bool interrupted = false;    // stopped at the Interruption's request
};

// Runs the sweep's copies (all of load_cases' selection) on backends of `choice` into dir
// (copy_NNNN/ and the index files of SweepIndex, written with status "running" first), with dir
// locked (io/directory_lock.hpp: the whole sweep alone, a part of it beside the other parts). A
// stop that `interruption` (null: none) asks for ends the batch that runs between two steps and
// runs no more; the index marks its copies "interrupted" and those not run "not run". Throws
// InputError for a directory that cannot be written or that another run holds (named by
// dir_origin) or more open files than the process may have, or a checkpoint to resume that is not
// this run's, and OutputError for a result file that cannot be written; the index keeps the copies
// run before any such error.
//
// With the case's checkpoint settings the batch that runs checkpoints into DIR/STEM.checkpoint.bin
// (SweepIndex::checkpoint_file) with every copy's writer, the index's outcomes and the batches
// still to run; `resume` continues from that checkpoint: the batch it was written in from its
// state, then the batches that were still to run. cuda_device: the GPU the batches' CUDA backends
// run on (make_backend; -1: the current one).
SweepRun run_sweep(const std::vector<SweepCase>& cases, const std::string& case_path, const std::string& dir,
                   const std::string& dir_origin, BackendChoice choice, SweepObserver& observer,
                   const Interruption* interruption = nullptr, bool resume = false, int cuda_device = -1);

}  // namespace catenary
