#pragma once
// The subcommands of the `catenary` command. Each returns the process exit code; the errors they
// let through (InputError, BackendUnavailable, anything else) are mapped to codes in main.cpp.
#include <functional>
#include <string>

#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/io/result_comparison.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/run/backend_factory.hpp"

namespace catenary::cli {

constexpr int kExitOk = 0;
constexpr int kExitResultsDiffer = 1;  // compare: a quantity outside tolerance, or mismatched files
constexpr int kExitBadInput = 2;       // also: a backend that was asked for and cannot run
constexpr int kExitSimulationFailed = 3;

void print_case_summary(const Case& c);

// An output directory and where its name came from ("--out", "/output/directory", ...), so the
// message for a directory that cannot be written points at what to change.
struct OutputDirectory {
  std::string path;
  std::string origin;
};

// How a run ended: its exit code, and where it failed the SimulationError's coordinate (-1: none)
// and the coordinates it left unsettled (SimulationError::unsettled_dofs).
struct RunOutcome {
  int code = kExitOk;
  int failed_dof = -1;
  std::vector<int> unsettled_dofs;
};
using SummaryWriter = std::function<void(const RunSummary&)>;

// Runs the analysis of `settings` over `model` (a case's own, or a sweep's batch) on `backend`,
// handing frames and then the summary to the writers, and reports on stdout (the results in
// `dir`, `files`). A SimulationError is reported, written in the summary and returned.
RunOutcome execute(const Case& settings, const Model& model, Backend& backend, const FrameSink& write_frame,
                   const SummaryWriter& write_summary, const std::string& dir, const std::string& files);

// Runs the case's analysis on `backend` and writes the results into `dir`. Returns kExitOk, or
// kExitSimulationFailed after saying why on stderr (the output written so far stays valid).
// Throws InputError when the directory cannot be written.
int run_and_report(const Case& c, Backend& backend, const OutputDirectory& dir);

// A sweep's copies (all, or those run --copies / --part selected) merged into one batch model,
// run on the chosen backend, written per copy under dir (copy_NNNN/, and the index and table of
// SweepIndex). The copies a failed Newton iteration of the batch left unsettled are run again alone
// each, and the others again as a batch without them, so that each copy's output is its own
// single run's; kExitOk when
// every copy ran to its end, else kExitSimulationFailed (the failed copies are named, and their
// sweep numbers put in failed where given).
int run_sweep(const std::vector<SweepCase>& cases, const std::string& case_path, const OutputDirectory& dir,
              BackendChoice choice, std::vector<size_t>* failed = nullptr);

// The copies at `positions` of cases merged into one batch model (each copy's place in it in
// ranges); copies that cannot share one model are bad input at /sweep.
Model merge_sweep_copies(const std::vector<SweepCase>& cases, const std::vector<size_t>& positions,
                         const std::string& case_path, std::vector<CopyRange>& ranges);

int check_command(const std::string& case_path);
// Joins the index files of a sweep's parts in `directory` into sweep.json and sweep.csv
// (gather_sweep_parts); kExitSimulationFailed, naming them, where copies failed.
int gather_command(const std::string& directory);
int run_command(const std::string& case_path, const std::string& out, const std::string& backend,
                const CopySelection& selection);
// cuda: the CUDA side's backend (Cuda, or CudaOnHost for the tests).
int compare_command(const std::string& case_path, const std::string& out, const ComparisonTolerance& tolerance,
                    const CopySelection& selection, BackendChoice cuda);

}  // namespace catenary::cli
