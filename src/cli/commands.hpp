#pragma once
// The subcommands of the `catenary` command. Each returns the process exit code; the errors they
// let through (InputError, BackendUnavailable, anything else) are mapped to codes in main.cpp.
#include <string>
#include <vector>

#include "catenary/assembly/backend.hpp"
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

void print_case_summary(const Case& c);

// An output directory and where its name came from ("--out", "/output/directory", ...), so the
// message for a directory that cannot be written points at what to change.
struct OutputDirectory {
  std::string path;
  std::string origin;
};

// "backend: NAME (linear solver: ...)" on stdout, before an analysis' progress lines on stderr.
void print_backend(const Backend& backend);
// After an analysis: a failure's message on stderr, then the summary line and where the results
// are (`dir`, `files`) on stdout, and the run's warnings.
void report_run(const AnalysisRun& run, const std::string& dir, const std::string& files);

// Runs the case's analysis on `backend` and writes the results into `dir`. Returns kExitOk, or
// kExitSimulationFailed after saying why on stderr (the output written so far stays valid).
// Throws InputError when the directory cannot be written.
int run_and_report(const Case& c, Backend& backend, const OutputDirectory& dir);

// A sweep's copies (all, or those run --copies / --part selected) run by the library's run_sweep
// (run/run_sweep.hpp) into dir, with its batches and notes printed; kExitOk when every copy ran
// to its end, else kExitSimulationFailed (the failed copies' sweep numbers put in failed where
// given).
int run_sweep_and_report(const std::vector<SweepCase>& cases, const std::string& case_path, const OutputDirectory& dir,
                         BackendChoice choice, std::vector<size_t>* failed = nullptr);

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
