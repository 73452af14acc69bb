// `catenary compare`: the case on the CPU and on the CUDA backend, then their result files
// (results.csv, for rigid bodies rigid_bodies.csv and joint_reactions.csv, for contacts
// contacts.csv) column by column
// (the comparison itself is catenary/io/result_comparison.hpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <tuple>

#include "catenary/integrators/analyses.hpp"
#include "catenary/io/sweep_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/run/backend_factory.hpp"
#include "commands.hpp"

namespace catenary::cli {

namespace {

namespace fs = std::filesystem;


// The largest |cuda - cpu| a quantity may have: the tolerance rule in absolute terms.
double allowed_difference(const ColumnComparison& c, const ComparisonTolerance& tol) {
  return std::max(tol.atol, tol.rtol * c.reference_scale);
}

void print_table(const ComparisonReport& report, const ComparisonTolerance& tol) {
  int width = static_cast<int>(std::string("quantity").size());
  for (const ColumnComparison& c : report.columns) width = std::max(width, static_cast<int>(c.name.size()));
  std::printf("%-*s  %12s  %12s  %12s  %s\n", width, "quantity", "max abs diff", "max rel diff", "tolerance",
              "result");
  for (const ColumnComparison& c : report.columns) {
    if (c.informational) {
      std::printf("%-*s  %12.3e  %12.3e  %12s  %s\n", width, c.name.c_str(), c.max_abs_diff, c.max_rel_diff,
                  "-", "info");
    } else {
      std::printf("%-*s  %12.3e  %12.3e  %12.3e  %s\n", width, c.name.c_str(), c.max_abs_diff, c.max_rel_diff,
                  allowed_difference(c, tol), c.pass ? "PASS" : "FAIL");
    }
  }
}

void print_verdict(const ComparisonReport& report) {
  const long judged = std::count_if(report.columns.begin(), report.columns.end(),
                                    [](const ColumnComparison& c) { return !c.informational; });
  const long failed = std::count_if(report.columns.begin(), report.columns.end(),
                                    [](const ColumnComparison& c) { return !c.pass; });
  for (const std::string& p : report.problems) std::printf("problem: %s\n", p.c_str());
  if (report.pass()) {
    std::printf("verdict: PASS: all %ld quantities within tolerance over %ld rows\n", judged, report.rows);
    return;
  }
  std::printf("verdict: FAIL: %ld of %ld quantities outside tolerance, %zu problem(s)\n", failed, judged,
              report.problems.size());
}

void print_report(const ComparisonReport& report, const ComparisonTolerance& tol) {
  std::printf("\ncuda against cpu, %ld rows (rtol = %g, atol = %g): a quantity passes when\n"
              "max|cuda - cpu| <= atol or max|cuda - cpu| / max|cpu| <= rtol; tolerance: the largest\n"
              "difference allowed, max(atol, rtol * max|cpu|); step and newton_iterations: info only\n",
              report.rows, tol.rtol, tol.atol);
  if (!report.columns.empty()) print_table(report, tol);
  print_verdict(report);
}

// Every result file the CPU run wrote, against the CUDA run's; true when all pass.
bool compare_outputs(const fs::path& cpu_dir, const fs::path& cuda_dir, const ComparisonTolerance& tolerance) {
  bool pass = true;
  for (const char* file : {"results.csv", "rigid_bodies.csv", "joint_reactions.csv", "contacts.csv", "modes.csv"}) {
    if (std::string(file) != "results.csv" && !fs::exists(cpu_dir / file)) continue;
    std::printf("\n%s:", file);
    const ComparisonReport report =
        compare_result_files((cpu_dir / file).string(), (cuda_dir / file).string(), tolerance);
    print_report(report, tolerance);
    pass = pass && report.pass();
  }
  return pass;
}

// A sweep: both batches run, then each copy's results compared. A copy that fails on a backend
// leaves the others to run there (run_sweep_and_report) and to be compared. A copy that fails on one backend
// only is a difference between them (kExitResultsDiffer); one that fails on both is not compared
// and makes the exit code kExitSimulationFailed unless a difference was found.
int compare_sweep(const std::vector<SweepCase>& cases, const std::string& case_path, const fs::path& root,
                  const std::string& origin, const ComparisonTolerance& tolerance, BackendChoice cuda,
                  const Interruption& interruption) {
  // Without a usable GPU, stop before the CPU run.
  make_backend(cuda, cases.front().c.model, cases.front().c.analysis);
  std::vector<size_t> failed_on_cpu, failed_on_cuda;
  for (const auto& [backend, choice, failed] : {std::tuple{"cpu", BackendChoice::Cpu, &failed_on_cpu},
                                                std::tuple{"cuda", cuda, &failed_on_cuda}})
    if (const int code =
            run_sweep_and_report(cases, case_path, {(root / backend).string(), origin}, choice, interruption, failed);
        code != kExitOk && code != kExitSimulationFailed)
      return code;
  const auto holds = [](const std::vector<size_t>& numbers, size_t n) {
    return std::find(numbers.begin(), numbers.end(), n) != numbers.end();
  };
  bool differ = false, failed_on_both = false;
  for (const SweepCase& c : cases) {
    const std::string copy = SweepWriter::copy_directory_name(c.index);
    const bool cpu_failed = holds(failed_on_cpu, c.index), cuda_failed = holds(failed_on_cuda, c.index);
    std::printf("\n%s (%s):", copy.c_str(), c.label.c_str());
    if (cpu_failed || cuda_failed) {
      std::printf(" failed on %s (each run's summary.json says why): not compared\n",
                  cpu_failed && cuda_failed ? "both backends" : cpu_failed ? "the CPU only" : "CUDA only");
      (cpu_failed && cuda_failed ? failed_on_both : differ) = true;
      continue;
    }
    std::printf("\n");
    if (!compare_outputs(root / "cpu" / copy, root / "cuda" / copy, tolerance)) differ = true;
  }
  return differ ? kExitResultsDiffer : failed_on_both ? kExitSimulationFailed : kExitOk;
}

}  // namespace

int compare_command(const std::string& case_path, const std::string& out, const ComparisonTolerance& tolerance,
                    const CopySelection& selection, BackendChoice cuda_choice, const ThreadRequest& threads,
                    const Interruption& interruption) {
  const std::vector<SweepCase> cases = load_cases(case_path, selection);
  const Case& c = cases.front().c;
  print_case_summary(c);
  set_run_threads(threads, cases);
  const fs::path root = out.empty() ? fs::path("results") / (c.name + "-compare") : fs::path(out);
  const std::string origin = out.empty() ? "(default compare directory)" : "--out";
  if (cases.front().sweep_size > 1)
    return compare_sweep(cases, case_path, root, origin, tolerance, cuda_choice, interruption);
  // Both backends before either run: without a usable GPU, stop before spending the CPU run.
  const SelectedBackend cpu = make_backend(BackendChoice::Cpu, c.model, c.analysis);
  const SelectedBackend cuda = make_backend(cuda_choice, c.model, c.analysis);
  const fs::path cpu_dir = root / "cpu", cuda_dir = root / "cuda";
  if (const int code = run_and_report(c, *cpu.backend, {cpu_dir.string(), origin}, interruption); code != kExitOk)
    return code;
  if (const int code = run_and_report(c, *cuda.backend, {cuda_dir.string(), origin}, interruption); code != kExitOk)
    return code;
  return compare_outputs(cpu_dir, cuda_dir, tolerance) ? kExitOk : kExitResultsDiffer;
}

}  // namespace catenary::cli
