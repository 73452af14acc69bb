// The catenary command: run, check.
// Exit codes: 0 success, 2 bad input, 3 simulation failed.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/model/case_loader.hpp"

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitSimulationFailed = 3;

void print_case_summary(const catenary::Case& c) {
  const catenary::Model& m = c.model;
  std::printf("case '%s': dimension %d, %zu bodies, %d elements, %d nodes, %d coordinates, %d constraint rows\n",
              c.name.c_str(), m.dimension, m.bodies.size(), m.elements.size(), m.node_count, m.dof_count(),
              m.constraint_count());
}

int run_case(const std::string& path, const std::string& out_override) {
  using namespace catenary;
  const Case c = load_case(path);
  print_case_summary(c);
  std::string dir = out_override;
  if (dir.empty()) dir = c.output.directory;
  if (dir.empty()) dir = (std::filesystem::path("results") / c.name).string();

  CpuBackend backend(c.model);
  System sys(c.model, backend);
  std::unique_ptr<OutputWriter> writer_holder;
  try {
    writer_holder = std::make_unique<OutputWriter>(c, dir);
  } catch (const std::exception& e) {  // an output directory that cannot be written is bad input
    throw InputError(path, out_override.empty() ? "/output/directory" : "--out", e.what());
  }
  OutputWriter& writer = *writer_holder;
  RunSummary summary;
  const auto start = std::chrono::steady_clock::now();
  auto sink = [&](const Frame& f) { writer.write_frame(f); };
  int code = 0;
  try {
    if (c.analysis.type == AnalysisSettings::Type::Static)
      run_static(sys, c.analysis.statics, sink, summary);
    else
      run_dynamic(sys, c.analysis.dynamics, c.output.interval, sink, summary);
    summary.status = "ok";
  } catch (const SimulationError& e) {
    summary.status = "failed";
    summary.message = e.what();
    std::fprintf(stderr, "catenary: simulation failed: %s\n", e.what());
    code = kExitSimulationFailed;
  }
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writer.write_summary(summary);
  std::printf("%s analysis %s: %ld steps, %ld rejected, %ld Newton iterations, %.3f s wall\n",
              summary.analysis.c_str(), summary.status.c_str(), summary.steps, summary.rejected_steps,
              summary.newton_iterations, summary.wall_seconds);
  std::printf("results written to %s (results.csv, results.pvd, summary.json)\n",
              std::filesystem::absolute(dir).string().c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"catenary: ANCF cables and beams, statics and implicit HHT dynamics"};
  app.require_subcommand(1);
  std::string case_path, out_dir;
  auto* run = app.add_subcommand("run", "run the analysis of a case and write its results");
  run->add_option("case", case_path, "case file (JSON)")->required();
  run->add_option("--out", out_dir, "output directory (default: the case's output.directory, else results/NAME)");
  auto* check = app.add_subcommand("check", "validate a case file without running it");
  check->add_option("case", case_path, "case file (JSON)")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  try {
    if (*check) {
      const catenary::Case c = catenary::load_case(case_path);
      print_case_summary(c);
      std::printf("%s: valid\n", case_path.c_str());
      return 0;
    }
    return run_case(case_path, out_dir);
  } catch (const catenary::InputError& e) {
    std::fprintf(stderr, "catenary: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "catenary: error: %s\n", e.what());
    return kExitSimulationFailed;
  }
}
