#pragma once
// The subcommands of the `catenary` command. Each returns the process exit code; the errors they
// let through (InputError, BackendUnavailable, anything else) are mapped to codes in main.cpp.
#include <string>
#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/core/interruption.hpp"
#include "catenary/core/thread_budget.hpp"
#include "catenary/io/result_comparison.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/run/backend_factory.hpp"
#include "catenary/run/run_case.hpp"
#include "catenary/run/run_sweep.hpp"

namespace catenary::cli {

constexpr int kExitOk = 0;
constexpr int kExitResultsDiffer = 1;  // compare: a quantity outside tolerance, or mismatched files
constexpr int kExitBadInput = 2;       // also: a backend that was asked for and cannot run
constexpr int kExitSimulationFailed = 3;
constexpr int kExitOutputFailed = 4;  // a result file could not be written (OutputError)

// A run stopped by a signal (SIGINT, SIGTERM) exits as the shell reports a process that signal
// ended: 128 + its number (130, 143).
inline int exit_interrupted(const Interruption& interruption) { return 128 + interruption.signal(); }

void print_case_summary(const Case& c);

// --threads (0: none given) and the environment main read.
struct ThreadRequest {
  int requested = 0;
  ThreadEnvironment environment;
};
// Sets the threads for the loaded cases (a sweep: all its selected copies, which run as batches)
// by choose_threads and prints how many and why.
void set_run_threads(const ThreadRequest& request, const std::vector<SweepCase>& cases);

// An output directory and where its name came from ("--out", "/output/directory", ...), so the
// message for a directory that cannot be written points at what to change.
struct OutputDirectory {
  std::string path;
  std::string origin;
};
// A run's: --resume's where given, else --out, else the case's output.directory, else results/NAME.
OutputDirectory run_directory(const Case& c, const std::string& out, const std::string& resume);

// In a catch block: says on stderr what the exception in flight is ("catenary: " + who +
// "error: ...") and returns its exit code: InputError, CheckpointError (a checkpoint that does not
// hold what the run needs) and BackendUnavailable (asked for, cannot be had) kExitBadInput,
// OutputError kExitOutputFailed, anything else kExitSimulationFailed.
int report_exception(const std::string& who = "");

// "backend: NAME (linear solver: ...)" on stdout, before an analysis' progress lines on stderr.
void print_backend(const Backend& backend);
// After an analysis: a failure's message on stderr, then the summary line and where the results
// are (`dir`, `files`) on stdout, and the run's warnings.
void report_run(const AnalysisRun& run, const std::string& dir, const std::string& files);

// Runs the case's analysis on `backend` and writes the results into `dir`, locked for the run;
// with `resume`, from the checkpoint in `dir`, writing on its outputs. Returns kExitOk,
// kExitSimulationFailed after saying why on stderr, or exit_interrupted where `interruption` stopped
// it (the output written so far stays valid either way). Throws InputError when the directory
// cannot be written, another run holds it, or it holds no checkpoint of this case.
int run_and_report(const Case& c, Backend& backend, const OutputDirectory& dir, const Interruption& interruption,
                   bool resume = false);

// A sweep's copies (all, or those run --copies / --part selected) run by the library's run_sweep
// (run/run_sweep.hpp) into dir, with its batches and notes printed; kExitOk when every copy ran
// to its end, exit_interrupted where `interruption` stopped it, else kExitSimulationFailed (the
// failed copies' sweep numbers put in failed where given). With `resume`, from the sweep's
// checkpoint in dir. cuda_device: the GPU a CUDA backend runs on (-1: the current one).
int run_sweep_and_report(const std::vector<SweepCase>& cases, const std::string& case_path, const OutputDirectory& dir,
                         BackendChoice choice, const Interruption& interruption,
                         std::vector<size_t>* failed = nullptr, bool resume = false, int cuda_device = -1);

int check_command(const std::string& case_path, const ThreadRequest& threads);
// Joins the index files of a sweep's parts in `directory` into sweep.json and sweep.csv
// (gather_sweep_parts); kExitSimulationFailed, naming them, where copies failed, else
// kExitBadInput, naming them, where a stopped run left copies unfinished (their part must run
// again).
int gather_command(const std::string& directory);
// run and compare stop between two steps where `interruption` asks (the signal handlers of main.cpp).
// resume: the output directory of a run to continue from its checkpoint (empty: none).
int run_command(const std::string& case_path, const std::string& out, const std::string& resume,
                const std::string& backend, const CopySelection& selection, const ThreadRequest& threads,
                const Interruption& interruption);
// cuda: the CUDA side's backend (Cuda, or CudaOnHost for the tests).
int compare_command(const std::string& case_path, const std::string& out, const ComparisonTolerance& tolerance,
                    const CopySelection& selection, BackendChoice cuda, const ThreadRequest& threads,
                    const Interruption& interruption);

}  // namespace catenary::cli
