// `catenary run` (a case, or a sweep's copies as one batch) and `catenary check`, and the run
// of one case on one backend that `compare` uses too.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "catenary/assembly/backend_factory.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/io/sweep_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "commands.hpp"

namespace catenary::cli {

namespace {

// --out, else the case's output.directory, else results/NAME.
OutputDirectory run_directory(const Case& c, const std::string& out) {
  if (!out.empty()) return {out, "--out"};
  if (!c.output.directory.empty()) return {c.output.directory, "/output/directory"};
  return {(std::filesystem::path("results") / c.name).string(), "/output/directory"};
}

std::unique_ptr<OutputWriter> open_writer(const Case& c, const OutputDirectory& dir) {
  try {
    return std::make_unique<OutputWriter>(c, dir.path);
  } catch (const std::exception& e) {  // an output directory that cannot be written is bad input
    throw InputError(c.source_file, dir.origin, e.what());
  }
}

void print_run_summary(const RunSummary& s, const std::string& dir, const char* files) {
  std::printf("%s analysis %s: %ld steps, %ld rejected, %ld Newton iterations, %.3f s wall\n",
              s.analysis.c_str(), s.status.c_str(), s.steps, s.rejected_steps, s.newton_iterations,
              s.wall_seconds);
  std::printf("results written to %s (%s)\n", std::filesystem::absolute(dir).string().c_str(), files);
  for (const std::string& w : s.warnings) std::fprintf(stderr, "catenary: warning: %s\n", w.c_str());
}

}  // namespace

void print_case_summary(const Case& c) {
  const Model& m = c.model;
  std::printf("case '%s': dimension %d, %zu bodies, %d elements, %d nodes, %d coordinates, %d constraint rows\n",
              c.name.c_str(), m.dimension, m.bodies.size(), m.elements.size(), m.node_count, m.dof_count(),
              m.constraint_count());
}

namespace {

// Runs the analysis of `settings` over `model` (the case's own, or a sweep's batch) on
// `backend`, handing frames to `sink`; writes the summary with `finish` and reports on stdout.
template <class Writer>
int execute(const Case& settings, const Model& model, Backend& backend, Writer& writer, const std::string& dir,
            const char* files) {
  std::printf("backend: %s\n", backend.name().c_str());
  std::fflush(stdout);  // before the analysis' progress lines on stderr
  System sys(model, backend);
  RunSummary summary;
  const auto start = std::chrono::steady_clock::now();
  auto sink = [&](const Frame& f) { writer.write_frame(f); };
  int code = kExitOk;
  try {
    if (settings.analysis.type == AnalysisSettings::Type::Static)
      run_static(sys, settings.analysis.statics, sink, summary);
    else
      run_dynamic(sys, settings.analysis.dynamics, settings.output.interval, sink, summary);
    summary.status = "ok";
  } catch (const SimulationError& e) {
    summary.status = "failed";
    summary.message = e.what();
    std::fprintf(stderr, "catenary: simulation failed: %s\n", e.what());
    code = kExitSimulationFailed;
  }
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writer.write_summary(summary);
  print_run_summary(summary, dir, files);
  return code;
}

}  // namespace

int run_sweep(const std::vector<SweepCase>& cases, const std::string& case_path, const OutputDirectory& dir,
              BackendChoice choice) {
  std::vector<const Model*> models;
  for (const SweepCase& s : cases) models.push_back(&s.c.model);
  std::vector<CopyRange> ranges;
  Model batch;
  try {
    batch = merge_models(models, ranges);
  } catch (const ModelError& e) {
    throw InputError(case_path, "/sweep", e.what());
  }
  const Case& first = cases.front().c;
  std::printf("sweep of %zu copies of '%s': %d coordinates, %d constraint rows in the batch\n", cases.size(),
              first.name.c_str(), batch.dof_count(), batch.constraint_count());
  const SelectedBackend selected = make_backend(choice, batch);
  if (!selected.notice.empty()) std::fprintf(stderr, "catenary: note: %s\n", selected.notice.c_str());
  std::unique_ptr<SweepWriter> writer;
  try {
    writer = std::make_unique<SweepWriter>(cases, ranges, batch, *selected.backend, dir.path);
  } catch (const std::exception& e) {
    throw InputError(case_path, dir.origin, e.what());
  }
  return execute(first, batch, *selected.backend, *writer, dir.path, "one directory per copy, sweep.json");
}

int run_analysis(const Case& c, Backend& backend, const OutputDirectory& dir) {
  const std::unique_ptr<OutputWriter> writer = open_writer(c, dir);
  return execute(c, c.model, backend, *writer, dir.path, "results.csv, results.pvd, summary.json");
}

int check_command(const std::string& case_path) {
  const std::vector<SweepCase> cases = load_cases(case_path);
  print_case_summary(cases.front().c);
  if (cases.size() > 1) std::printf("sweep of %zu copies\n", cases.size());
  std::printf("%s: valid\n", case_path.c_str());
  return kExitOk;
}

int run_command(const std::string& case_path, const std::string& out, const std::string& backend) {
  const BackendChoice choice = parse_backend_choice(backend);
  const std::vector<SweepCase> cases = load_cases(case_path);
  if (cases.size() > 1) return run_sweep(cases, case_path, run_directory(cases.front().c, out), choice);
  const Case& c = cases.front().c;
  print_case_summary(c);
  const SelectedBackend selected = make_backend(choice, c.model);
  if (!selected.notice.empty()) std::fprintf(stderr, "catenary: note: %s\n", selected.notice.c_str());
  return run_analysis(c, *selected.backend, run_directory(c, out));
}

}  // namespace catenary::cli
