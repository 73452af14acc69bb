#include "catenary/run/run_case.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <system_error>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/integrators/dynamic_sensitivity.hpp"
#include "catenary/io/directory_lock.hpp"
#include "catenary/io/mode_files.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/io/sensitivity_files.hpp"
#include "catenary/run/backend_factory.hpp"

namespace catenary {

namespace {

// Runs `analysis` on the System of model over backend, recording a SimulationError or a stop in
// the result's summary, and the wall time.
AnalysisRun recorded(const Model& model, Backend& backend, const std::function<void(System&, AnalysisRun&)>& analysis) {
  System sys(model, backend);
  AnalysisRun run;
  RunSummary& summary = run.summary;
  const auto start = std::chrono::steady_clock::now();
  try {
    analysis(sys, run);
    summary.status = "ok";
  } catch (const SimulationError& e) {
    summary.status = "failed";
    summary.message = e.what();
    run.failed_dof = e.dof();
    run.unsettled_dofs = e.unsettled_dofs();
  } catch (const Interrupted& e) {
    summary.status = "interrupted";
    summary.message = e.what();
  }
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace

AnalysisRun run_analysis(const AnalysisSettings& analysis, double output_interval, const Model& model,
                         Backend& backend, const FrameSink& sink, const Interruption* interruption,
                         const Checkpoints& checkpoints) {
  return recorded(model, backend, [&](System& sys, AnalysisRun& run) {
    RunSummary& summary = run.summary;
    switch (analysis.type) {
      case AnalysisSettings::Type::Static: run_static(sys, analysis.statics, sink, summary, interruption); break;
      case AnalysisSettings::Type::Dynamic:
        run_dynamic(sys, analysis.dynamics, output_interval, sink, summary, interruption, checkpoints);
        break;
      case AnalysisSettings::Type::Assembly: run_assembly(sys, sink, summary); break;
      case AnalysisSettings::Type::Kinematic:
        run_kinematic(model, analysis.kinematics, output_interval, sink, summary);
        break;
      case AnalysisSettings::Type::Eigen: run_eigen(sys, analysis.eigen, sink, summary, run.modes, interruption); break;
    }
  });
}

void require_run_directory(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw CheckpointError(dir + ": no such directory: --resume names the output directory of the run to continue");
}

CheckpointIdentity checkpoint_identity(const Case& c) {
  return {c.fingerprint, c.model.dof_count(), c.model.constraint_count()};
}

StateRecord read_case_checkpoint(const Case& c, const std::string& dir) {
  return read_checkpoint(checkpoint_path(dir), checkpoint_identity(c));
}

Checkpoints case_checkpoints(const Case& c, const Backend& backend, const OutputWriter& writer,
                             const StateRecord* resume) {
  Checkpoints checkpoints;
  checkpoints.interval = c.output.checkpoint_interval;
  checkpoints.wall_interval = c.output.checkpoint_wall_interval;
  checkpoints.resume = resume;
  checkpoints.write = [&c, &backend, &writer, path = checkpoint_path(writer.directory())](StateRecord& record) {
    writer.save(record);
    record.set("run.backend", backend.name());
    write_checkpoint(path, checkpoint_identity(c), record);
  };
  return checkpoints;
}

namespace {

// The models with a design variable changed are evaluated on CPU backends of their own.
std::unique_ptr<Backend> cpu_backend(const Model& m) { return make_backend(BackendChoice::Cpu, m).backend; }

// The design sensitivities of a static case at its equilibrium (q, lambda), written beside its
// results; a failure to find them fails the run with its message.
void add_sensitivities(const Case& c, Backend& backend, const std::string& directory, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& lambda, AnalysisRun& run) {
  try {
    run.sensitivities = static_sensitivities(c, backend, q, lambda, cpu_backend);
  } catch (const SimulationError& e) {
    run.summary.status = "failed";
    run.summary.message = e.what();
    return;
  } catch (const InputError& e) {
    run.summary.status = "failed";
    run.summary.message = std::string("sensitivities: ") + e.what();
    return;
  }
  write_sensitivity_files(directory, run.sensitivities);
}

// A dynamic case with design sensitivities: its run with the steps differentiated
// (integrators/dynamic_sensitivity.hpp), without checkpoints, the sensitivities at the end time
// written beside its results; a changed value that makes no valid model fails the run with its
// message.
AnalysisRun run_differentiated(const Case& c, Backend& backend, const FrameSink& sink, const Interruption* interruption,
                               const std::string& directory) {
  AnalysisRun run = recorded(c.model, backend, [&](System& sys, AnalysisRun& r) {
    try {
      r.sensitivities = run_dynamic_sensitivities(c, sys, sink, r.summary, interruption, cpu_backend);
    } catch (const InputError& e) {
      throw SimulationError(std::string("sensitivities: ") + e.what());
    }
  });
  if (run.summary.status == "ok") write_sensitivity_files(directory, run.sensitivities);
  return run;
}

}  // namespace

AnalysisRun run_case(const Case& c, Backend& backend, OutputWriter& writer, const Interruption* interruption,
                     const StateRecord* resume, const FrameSink* also) {
  AnalysisRun run;
  const Checkpoints checkpoints = case_checkpoints(c, backend, writer, resume);
  Eigen::VectorXd q, lambda;  // the last frame's state: the equilibrium of a static analysis
  const bool dynamic = c.analysis.type == AnalysisSettings::Type::Dynamic;
  try {
    const FrameSink sink = [&](const Frame& f) {
      writer.write_frame(f);
      if (also) (*also)(f);
      if (c.sensitivity.active() && !dynamic) {
        q = *f.q;
        lambda = *f.lambda;
      }
    };
    if (c.sensitivity.active() && dynamic)
      run = run_differentiated(c, backend, sink, interruption, writer.directory());
    else
      run = run_analysis(c.analysis, c.output.interval, c.model, backend, sink, interruption, checkpoints);
    if (!run.modes.modes.empty()) write_mode_files(c, writer.directory(), run.modes);
    if (c.sensitivity.active() && !dynamic && run.summary.status == "ok")
      add_sensitivities(c, backend, writer.directory(), q, lambda, run);
  } catch (const OutputError& e) {
    // A result file that cannot be written ends the run: its summary, where the disk still takes
    // it, says so rather than "running".
    try {
      writer.write_summary(writer.starting_summary("failed", e.what()));
    } catch (const OutputError&) {  // the error that ends the run is the first one
    }
    throw;
  }
  writer.write_summary(run.summary);
  return run;
}

AnalysisRun run_case(const Case& c, Backend& backend, const std::string& dir, const Interruption* interruption) {
  const DirectoryLock lock(dir);
  OutputWriter writer(c, dir);
  return run_case(c, backend, writer, interruption);
}

AnalysisRun resume_case(const Case& c, Backend& backend, const std::string& dir, const Interruption* interruption) {
  require_run_directory(dir);
  const DirectoryLock lock(dir);
  const StateRecord record = read_case_checkpoint(c, dir);
  OutputWriter writer(c, dir, &record);
  return run_case(c, backend, writer, interruption, &record);
}

}  // namespace catenary
