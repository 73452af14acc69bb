// `catenary run` of a sweep (the library's run_sweep, its batches and notes printed) and
// `catenary gather`.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "catenary/io/sweep_parts.hpp"
#include "catenary/model/sweep.hpp"
#include "commands.hpp"

namespace catenary::cli {

namespace {

class PrintingObserver : public SweepObserver {
 public:
  void batch_planned(const std::string& description) override { std::printf("%s\n", description.c_str()); }
  void backend_ready(const Backend& backend, const std::string& notice) override {
    if (!notice.empty()) std::fprintf(stderr, "catenary: note: %s\n", notice.c_str());
    print_backend(backend);
  }
  void batch_finished(const AnalysisRun& run, const std::string& dir, const std::string& files) override {
    report_run(run, dir, files);
  }
  void note(const std::string& message) override { std::fprintf(stderr, "catenary: %s\n", message.c_str()); }
};

}  // namespace

int run_sweep_and_report(const std::vector<SweepCase>& cases, const std::string& case_path, const OutputDirectory& dir,
                         BackendChoice choice, const Interruption& interruption, std::vector<size_t>* failed,
                         bool resume, int cuda_device) {
  PrintingObserver observer;
  const SweepRun run =
      run_sweep(cases, case_path, dir.path, dir.origin, choice, observer, &interruption, resume, cuda_device);
  if (failed) *failed = run.failed;
  if (run.interrupted) return exit_interrupted(interruption);
  return run.failed.empty() ? kExitOk : kExitSimulationFailed;
}

int gather_command(const std::string& directory) {
  const GatheredSweep g = gather_sweep_parts(directory);
  std::printf("gathered the %zu copies of %zu part%s into %s (sweep.json, sweep.csv)\n", g.copies, g.parts.size(),
              g.parts.size() == 1 ? "" : "s", std::filesystem::absolute(directory).string().c_str());
  if (!g.unfinished.empty())
    std::fprintf(stderr, "catenary: %s of %zu did not finish (a run was stopped): resume their part (run --part K/N "
                 "--resume DIR, where the case checkpoints) or run it again\n",
                 copy_list(g.unfinished).c_str(), g.copies);
  if (!g.failed.empty())
    std::fprintf(stderr, "catenary: %s of %zu failed (sweep.json)\n", copy_list(g.failed).c_str(), g.copies);
  return !g.failed.empty() ? kExitSimulationFailed : !g.unfinished.empty() ? kExitBadInput : kExitOk;
}

}  // namespace catenary::cli
