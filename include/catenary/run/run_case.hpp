#pragma once
// Running a case: the one library call behind `catenary run` (and compare, and a sweep's
// batches), for the tests and for programs that link catenary. The analysis is the case's
// (static, dynamic, assembly, kinematic or eigen); its frames go to a sink or to the case's writers.
#include <string>
#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/core/interruption.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/integrators/eigen_analysis.hpp"
#include "catenary/integrators/run_results.hpp"
#include "catenary/integrators/static_sensitivity.hpp"
#include "catenary/io/checkpoint_file.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

class OutputWriter;

// How an analysis ended: its summary (status "ok", "failed" or "interrupted", with the message),
// and where a failure happened the SimulationError's coordinate (-1: none) and the coordinates it
// left unsettled (SimulationError::unsettled_dofs). An eigen analysis's modes are in `modes`, a
// case's sensitivities in `sensitivities`.
struct AnalysisRun {
  RunSummary summary;
  bool failed() const { return summary.status == "failed"; }
  bool interrupted() const { return summary.status == "interrupted"; }
  int failed_dof = -1;
  std::vector<int> unsettled_dofs;
  LinearModes modes;
  // A case's design sensitivities (Case::sensitivity), computed by run_case: a static case's after
  // the equilibrium, a dynamic case's with its steps; empty without.
  DesignSensitivities sensitivities;
};

// Runs `analysis` over `model` (a case's own, or a sweep's batch) on `backend`, frames to `sink`
// every `output_interval` (dynamic and kinematic; 0: every step). A SimulationError ends the run
// and is recorded in the result, and so does a stop that `interruption` (null: none) asks for
// between two time or load steps; other errors pass through. wall_seconds is the analysis's.
// A dynamic analysis checkpoints and resumes as `checkpoints` says (integrators/analyses.hpp).
AnalysisRun run_analysis(const AnalysisSettings& analysis, double output_interval, const Model& model,
                         Backend& backend, const FrameSink& sink, const Interruption* interruption = nullptr,
                         const Checkpoints& checkpoints = {});

// Runs case c on `backend` into `writer` (its frames, an eigen analysis's modes (io/mode_files.hpp),
// then its summary): what a run writes is valid however it ends. A result file that cannot be written ends the run with OutputError, its
// summary saying so where the disk still takes it. Where the case asks for checkpoints, they go to
// checkpoint.bin in the writer's directory (io/checkpoint_file.hpp) with the writer's state; with
// `resume` (that file's record, and a writer made with it) the run continues from it.
// `also` (null: none) sees each frame after the writer has written it.
AnalysisRun run_case(const Case& c, Backend& backend, OutputWriter& writer,
                     const Interruption* interruption = nullptr, const StateRecord* resume = nullptr,
                     const FrameSink* also = nullptr);
// The same into the directory `dir`, locked for the run (io/directory_lock.hpp; created;
// std::runtime_error when it cannot be written or another run holds it).
AnalysisRun run_case(const Case& c, Backend& backend, const std::string& dir,
                     const Interruption* interruption = nullptr);
// Resumes case c from the checkpoint in `dir`, writing on the outputs there (locked as above);
// CheckpointError where that checkpoint is missing or not one of this case.
AnalysisRun resume_case(const Case& c, Backend& backend, const std::string& dir,
                        const Interruption* interruption = nullptr);

// The checkpoints run_case takes of case c on `backend` into `writer` (and resumes from `resume`):
// the case's intervals, each written with the writer's state to checkpoint.bin in its directory.
Checkpoints case_checkpoints(const Case& c, const Backend& backend, const OutputWriter& writer,
                             const StateRecord* resume = nullptr);

// CheckpointError where `dir`, the directory of a run to resume, does not exist (checked before
// its lock, which would create it).
void require_run_directory(const std::string& dir);

// What case c's checkpoint must match, and the record of the one in `dir` (CheckpointError).
CheckpointIdentity checkpoint_identity(const Case& c);
StateRecord read_case_checkpoint(const Case& c, const std::string& dir);

}  // namespace catenary
