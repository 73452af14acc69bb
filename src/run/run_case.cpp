#include "catenary/run/run_case.hpp"

#include <chrono>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/io/directory_lock.hpp"
#include "catenary/io/output_writer.hpp"

namespace catenary {

AnalysisRun run_analysis(const AnalysisSettings& analysis, double output_interval, const Model& model,
                         Backend& backend, const FrameSink& sink, const Interruption* interruption) {
  System sys(model, backend);
  AnalysisRun run;
  RunSummary& summary = run.summary;
  const auto start = std::chrono::steady_clock::now();
  try {
    switch (analysis.type) {
      case AnalysisSettings::Type::Static: run_static(sys, analysis.statics, sink, summary, interruption); break;
      case AnalysisSettings::Type::Dynamic:
        run_dynamic(sys, analysis.dynamics, output_interval, sink, summary, interruption);
        break;
      case AnalysisSettings::Type::Assembly: run_assembly(sys, sink, summary); break;
      case AnalysisSettings::Type::Kinematic:
        run_kinematic(model, analysis.kinematics, output_interval, sink, summary);
        break;
    }
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

AnalysisRun run_case(const Case& c, Backend& backend, OutputWriter& writer, const Interruption* interruption) {
  AnalysisRun run;
  try {
    run = run_analysis(c.analysis, c.output.interval, c.model, backend,
                       [&](const Frame& f) { writer.write_frame(f); }, interruption);
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

}  // namespace catenary
