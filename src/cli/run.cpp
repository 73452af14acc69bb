// `catenary run` (a case, or a sweep's copies as one batch) and `catenary check`, and the run
// of one case on one backend that `compare` uses too.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/io/directory_lock.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/io/sweep_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/run/backend_factory.hpp"
#include "catenary/run/run_case.hpp"
#include "commands.hpp"

#include "catenary/model/contact_report.hpp"
#ifdef CATENARY_WITH_CUDA
#include "catenary/kernels/cuda_backend.hpp"
#endif

namespace catenary::cli {

namespace {

// The run's output directory, locked for it, its writer, and for a resumed run the checkpoint.
struct OpenOutput {
  std::unique_ptr<DirectoryLock> lock;
  std::unique_ptr<StateRecord> checkpoint;
  std::unique_ptr<OutputWriter> writer;
};

OpenOutput open_output(const Case& c, const OutputDirectory& dir, bool resume) {
  try {
    OpenOutput out;
    if (resume) require_run_directory(dir.path);
    out.lock = std::make_unique<DirectoryLock>(dir.path);
    if (resume) out.checkpoint = std::make_unique<StateRecord>(read_case_checkpoint(c, dir.path));
    out.writer = std::make_unique<OutputWriter>(c, dir.path, out.checkpoint.get());
    return out;
  } catch (const OutputError&) {
    throw;
  } catch (const std::exception& e) {  // a directory that cannot be written, is in use or holds no checkpoint of
                                       // this case is bad input
    throw InputError(c.source_file, dir.origin, e.what());
  }
}

void print_run_summary(const RunSummary& s, const std::string& dir, const char* files) {
  for (const MovedPart& p : s.moved) {
    if (p.kind == "rigid_body")
      std::fprintf(stderr, "assembly: rigid body '%s': centre of mass moved %.6g m, turned %.6g rad\n", p.name.c_str(),
                   p.translation, p.rotation);
    else
      std::fprintf(stderr, "assembly: cable '%s': largest node displacement %.6g m\n", p.name.c_str(), p.translation);
  }
  if (s.analysis == "assembly" && s.status == "ok")
    std::fprintf(stderr, "assembly: constraint violation left %.3g\n", s.constraint_violation);
  std::printf("%s analysis %s: %ld steps, %ld rejected, %ld Newton iterations, %.3f s wall", s.analysis.c_str(),
              s.status.c_str(), s.steps, s.rejected_steps, s.newton_iterations, s.wall_seconds);
  if (s.stepping_seconds > 0.0)
    std::printf(" (%.3f ms a step after the first)", 1e3 * s.stepping_seconds / (s.steps - s.steps_before_resume - 1));
  if (s.analysis == "dynamic")
    std::printf("; initial state %.1f ms, output %.1f ms (writing %.1f)", 1e3 * s.initial_state_seconds,
                1e3 * s.output_seconds, 1e3 * s.output_writing_seconds);
  std::printf("\n");
  for (size_t k = 0; k < s.eigenvalues.size(); ++k) {
    const ModeFrequencies f = mode_frequencies(s.eigenvalues[k]);
    std::printf("mode %zu: %.6g Hz, damping ratio %.4g\n", k + 1, f.natural_hz, f.damping_ratio);
  }
  std::printf("results written to %s (%s)\n", std::filesystem::absolute(dir).string().c_str(), files);
  for (const std::string& w : s.warnings) std::fprintf(stderr, "catenary: warning: %s\n", w.c_str());
}

}  // namespace

OutputDirectory run_directory(const Case& c, const std::string& out, const std::string& resume) {
  if (!resume.empty()) return {resume, "--resume"};
  if (!out.empty()) return {out, "--out"};
  if (!c.output.directory.empty()) return {c.output.directory, "/output/directory"};
  return {(std::filesystem::path("results") / c.name).string(), "/output/directory"};
}

void print_case_summary(const Case& c) {
  const Model& m = c.model;
  std::printf("case '%s': dimension %d, %zu bodies, %d elements, %d nodes, %d coordinates, %d constraint rows\n",
              c.name.c_str(), m.dimension, m.bodies.size(), m.elements.size(), m.node_count, m.dof_count(),
              m.constraint_count());
  const Mechanism& mech = m.mechanism;
  if (!mech.empty())
    std::printf("mechanism: %zu rigid bodies, %zu joints, %zu drivers, %zu attachments, %zu springs, %zu rotational "
                "springs, %zu body loads\n",
                mech.bodies.size(), mech.joints.size(), mech.drivers.size(), mech.attachments.size(),
                mech.forces.tsda.size(), mech.forces.rsda.size(), mech.forces.loads.size());
  for (const BodyMotion& motion : mech.motions)
    if (motion.coupled)
      std::fprintf(stderr,
                   "catenary: note: rigid body '%s' is coupled: a program moves it through the coupling API; run "
                   "here, it holds its initial pose\n",
                   motion.name.c_str());
}

void set_run_threads(const ThreadRequest& request, const std::vector<SweepCase>& cases) {
  long unknowns = 0;
  for (const SweepCase& copy : cases) unknowns += copy.c.model.dof_count() + copy.c.model.constraint_count();
  // A 50 ms look at the idle CPUs: 5 ticks of /proc/stat per CPU, only for a model big enough to
  // run on threads, whose run takes longer by far.
  const ThreadChoice choice =
      choose_threads(request.requested, request.environment, unknowns, [] { return idle_cpus(50); });
  use_threads(choice.threads);
  std::printf("threads: %d (%s)\n", choice.threads, choice.reason.c_str());
}

void print_backend(const Backend& backend) {
  std::printf("backend: %s (linear solver: %s)\n", backend.name().c_str(), backend.linear_solver().c_str());
  std::fflush(stdout);  // before the analysis' progress lines on stderr
}

// The result files a run left in dir, as the summary line lists them: a run that failed before
// its modes or sensitivities has none of those.
std::string written_files(const std::string& dir) {
  std::string listed;
  for (const char* name : {"results.csv", "rigid_bodies.csv", "joint_reactions.csv", "contacts.csv", "modes.csv",
                           "mode_shapes.csv", "modes/", "sensitivities.json", "sensitivities.csv", "results.pvd",
                           "summary.json"})
    if (std::filesystem::exists(std::filesystem::path(dir) / name)) listed += (listed.empty() ? "" : ", ") + std::string(name);
  return listed;
}

void report_run(const AnalysisRun& run, const std::string& dir, const std::string& files) {
  if (run.failed()) std::fprintf(stderr, "catenary: simulation failed: %s\n", run.summary.message.c_str());
  if (run.interrupted()) std::fprintf(stderr, "catenary: %s\n", run.summary.message.c_str());
  print_run_summary(run.summary, dir, files.c_str());
  for (const ObjectiveSensitivity& o : run.sensitivities.objectives) {
    std::printf("sensitivity of %s = %.10g (%s):", o.name.c_str(), o.value, run.sensitivities.method.c_str());
    for (size_t k = 0; k < o.derivatives.size(); ++k)
      std::printf(" d/d%s %.10g", run.sensitivities.variables[k].c_str(), o.derivatives[k]);
    std::printf("\n");
  }
}

int run_and_report(const Case& c, Backend& backend, const OutputDirectory& dir, const Interruption& interruption,
                   bool resume) {
  const OpenOutput out = open_output(c, dir, resume);
  print_backend(backend);
  if (resume)
    std::printf("resuming from the checkpoint at t = %.9g s in %s\n", out.checkpoint->number("state.t"),
                dir.path.c_str());
  const AnalysisRun run = run_case(c, backend, *out.writer, &interruption, out.checkpoint.get());
  report_run(run, dir.path, written_files(dir.path));
  if (run.interrupted()) return exit_interrupted(interruption);
  return run.failed() ? kExitSimulationFailed : kExitOk;
}

int check_command(const std::string& case_path, const ThreadRequest& threads) {
  const std::vector<SweepCase> cases = load_cases(case_path);
  print_case_summary(cases.front().c);
  set_run_threads(threads, cases);
  if (cases.size() > 1) {
    std::printf("sweep of %zu copies\n", cases.size());
    // Each parameter: how many values it takes, and the first and last copy's.
    for (const auto& item : cases.front().values.items()) {
      std::set<std::string> distinct;
      for (const SweepCase& copy : cases) distinct.insert(copy.values.at(item.key()).dump());
      std::printf("  %s: %zu values, copy 0 %s, copy %zu %s\n", item.key().c_str(), distinct.size(),
                  item.value().dump().c_str(), cases.size() - 1, cases.back().values.at(item.key()).dump().c_str());
    }
  }
#ifdef CATENARY_WITH_CUDA
  // What a run on the CUDA backend checks before it allocates: the estimate of the model (a sweep's
  // batch of all its copies) against the device's free memory.
  std::vector<size_t> all(cases.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = k;
  std::vector<CopyRange> ranges;
  const Model batch = cases.size() > 1 ? merge_sweep_copies(cases, all, case_path, ranges) : Model();
  const Model& run_model = cases.size() > 1 ? batch : cases.front().c.model;
  const AnalysisSettings& analysis = cases.front().c.analysis;
  const size_t bytes =
      cuda::estimated_device_bytes(run_model, backend_vector_count(analysis), backend_options(analysis));
  std::printf("CUDA backend: about %zu MiB of device memory%s (before a sparse QR factor); a device with less free "
              "is refused before the run\n",
              bytes >> 20, cases.size() > 1 ? " for the batch of all copies" : "");
#endif
  std::printf("%s: valid\n", case_path.c_str());
  return kExitOk;
}

int run_command(const std::string& case_path, const std::string& out, const std::string& resume,
                const std::string& backend, const CopySelection& selection, const ThreadRequest& threads,
                const Interruption& interruption) {
  const BackendChoice choice = parse_backend_choice(backend);
  const std::vector<SweepCase> cases = load_cases(case_path, selection);
  set_run_threads(threads, cases);
  const OutputDirectory dir = run_directory(cases.front().c, out, resume);
  if (cases.front().sweep_size > 1)
    return run_sweep_and_report(cases, case_path, dir, choice, interruption, nullptr, !resume.empty());
  const Case& c = cases.front().c;
  print_case_summary(c);
  const SelectedBackend selected =
      make_backend(choice, c.model, c.analysis);
  if (!selected.notice.empty()) std::fprintf(stderr, "catenary: note: %s\n", selected.notice.c_str());
  return run_and_report(c, *selected.backend, dir, interruption, !resume.empty());
}

}  // namespace catenary::cli
