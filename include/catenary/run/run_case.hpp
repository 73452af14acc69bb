#pragma once
// Running a case: the one library call behind `catenary run` (and compare, and a sweep's
// batches), for the tests and for programs that link catenary. The analysis is the case's
// (static, dynamic, assembly or kinematic); its frames go to a sink or to the case's writers.
#include <string>
#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/core/interruption.hpp"
#include "catenary/integrators/run_results.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

class OutputWriter;

// How an analysis ended: its summary (status "ok", "failed" or "interrupted", with the message),
// and where a failure happened the SimulationError's coordinate (-1: none) and the coordinates it
// left unsettled (SimulationError::unsettled_dofs).
struct AnalysisRun {
  RunSummary summary;
  bool failed() const { return summary.status == "failed"; }
  bool interrupted() const { return summary.status == "interrupted"; }
  int failed_dof = -1;
  std::vector<int> unsettled_dofs;
};

// Runs `analysis` over `model` (a case's own, or a sweep's batch) on `backend`, frames to `sink`
// every `output_interval` (dynamic and kinematic; 0: every step). A SimulationError ends the run
// and is recorded in the result, and so does a stop that `interruption` (null: none) asks for
// between two time or load steps; other errors pass through. wall_seconds is the analysis's.
AnalysisRun run_analysis(const AnalysisSettings& analysis, double output_interval, const Model& model,
                         Backend& backend, const FrameSink& sink, const Interruption* interruption = nullptr);

// Runs case c on `backend` into `writer` (its frames, then its summary): what a run writes is
// valid however it ends. A result file that cannot be written ends the run with OutputError, its
// summary saying so where the disk still takes it.
AnalysisRun run_case(const Case& c, Backend& backend, OutputWriter& writer,
                     const Interruption* interruption = nullptr);
// The same into the directory `dir`, locked for the run (io/directory_lock.hpp; created;
// std::runtime_error when it cannot be written or another run holds it).
AnalysisRun run_case(const Case& c, Backend& backend, const std::string& dir,
                     const Interruption* interruption = nullptr);

}  // namespace catenary
