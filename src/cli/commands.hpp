#pragma once
// The subcommands of the `catenary` command. Each returns the process exit code; the errors they
// let through (InputError, BackendUnavailable, anything else) are mapped to codes in main.cpp.
#include <string>

#include <vector>

#include "catenary/assembly/backend.hpp"
#include "catenary/assembly/backend_factory.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/io/result_comparison.hpp"
#include "catenary/model/case.hpp"

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

// Runs the case's analysis on `backend` and writes the results into `dir`. Returns kExitOk, or
// kExitSimulationFailed after saying why on stderr (the output written so far stays valid).
// Throws InputError when the directory cannot be written.
int run_analysis(const Case& c, Backend& backend, const OutputDirectory& dir);

// A sweep's copies (all, or those run --copies / --part selected) merged into one batch model,
// run once on the chosen backend, written per copy under dir (copy_NNNN/ and the index,
// SweepWriter::index_file_name).
int run_sweep(const std::vector<SweepCase>& cases, const std::string& case_path, const OutputDirectory& dir,
              BackendChoice choice);

int check_command(const std::string& case_path);
int run_command(const std::string& case_path, const std::string& out, const std::string& backend,
                const CopySelection& selection);
int compare_command(const std::string& case_path, const std::string& out, const ComparisonTolerance& tolerance,
                    const CopySelection& selection);

}  // namespace catenary::cli
