// `catenary run` (a case, or a sweep's copies as one batch) and `catenary check`, and the run
// of one case on one backend that `compare` uses too.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include <Eigen/Geometry>

#include "catenary/assembly/backend_factory.hpp"
#include "catenary/assembly/model_operators.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/io/sweep_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/multibody/kinematic_analysis.hpp"
#include "catenary/multibody/multibody_block.hpp"
#include "catenary/rigid/euler_parameters.hpp"
#include "commands.hpp"
#ifdef CATENARY_WITH_CUDA
#include "catenary/kernels/cuda_backend.hpp"
#endif

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
  std::printf("%s analysis %s: %ld steps, %ld rejected, %ld Newton iterations, %.3f s wall", s.analysis.c_str(),
              s.status.c_str(), s.steps, s.rejected_steps, s.newton_iterations, s.wall_seconds);
  if (s.stepping_seconds > 0.0)
    std::printf(" (%.3f ms a step after the first)", 1e3 * s.stepping_seconds / (s.steps - 1));
  if (s.analysis == "dynamic")
    std::printf("; initial state %.1f ms, output %.1f ms (writing %.1f)", 1e3 * s.initial_state_seconds,
                1e3 * s.output_seconds, 1e3 * s.output_writing_seconds);
  std::printf("\n");
  std::printf("results written to %s (%s)\n", std::filesystem::absolute(dir).string().c_str(), files);
  for (const std::string& w : s.warnings) std::fprintf(stderr, "catenary: warning: %s\n", w.c_str());
}

}  // namespace

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
}

namespace {

// Angle of the rotation from Euler parameters a to b (of conj(a) b), robust near zero.
double rotation_between(const Eigen::VectorXd& q, const Eigen::VectorXd& q0, int at) {
  const Eigen::Vector4d a = q0.segment<4>(at).normalized(), b = q.segment<4>(at).normalized();
  const Eigen::Vector3d av = a.tail<3>(), bv = b.tail<3>();
  const double scalar = a[0] * b[0] + av.dot(bv);
  const Eigen::Vector3d vector = a[0] * bv - b[0] * av - av.cross(bv);
  return 2.0 * std::atan2(vector.norm(), std::fabs(scalar));
}

// What the assembly moved: per rigid body its centre of mass and orientation, per cable its
// largest node displacement.
std::vector<MovedPart> moved_parts(const Model& m, const Eigen::VectorXd& q0, const Eigen::VectorXd& q) {
  std::vector<MovedPart> out;
  for (size_t b = 0; b < m.mechanism.bodies.size(); ++b) {
    const int at = m.rigid_offset() + 7 * static_cast<int>(b);
    MovedPart p;
    p.kind = "rigid_body";
    p.name = m.mechanism.bodies[b].name;
    p.translation = (q.segment<3>(at) - q0.segment<3>(at)).norm();
    p.rotation = rotation_between(q, q0, at + 3);
    out.push_back(p);
  }
  const int D = m.dimension, n = m.coordinates_per_node();
  for (const Body& body : m.bodies) {
    MovedPart p;
    p.kind = "cable";
    p.name = body.name;
    for (int k = body.first_node; k < body.first_node + body.node_count; ++k)
      p.translation = std::max(p.translation, (q.segment(k * n, D) - q0.segment(k * n, D)).norm());
    out.push_back(p);
  }
  return out;
}

void run_assembly(System& sys, const FrameSink& sink, RunSummary& summary) {
  const Model& m = sys.model();
  const ConsistentState st = consistent_initial_state(sys, 0.0);
  emit_frame(sys, 0.0, 0.0, 0, st.q, st.v, st.lambda, sink);
  summary.moved = moved_parts(m, initial_coordinates(m), st.q);
  summary.constraint_violation = st.constraint_violation;
  for (const MovedPart& p : summary.moved) {
    if (p.kind == "rigid_body")
      std::fprintf(stderr, "assembly: rigid body '%s': centre of mass moved %.6g m, turned %.6g rad\n", p.name.c_str(),
                   p.translation, p.rotation);
    else
      std::fprintf(stderr, "assembly: cable '%s': largest node displacement %.6g m\n", p.name.c_str(), p.translation);
  }
  std::fprintf(stderr, "assembly: constraint violation left %.3g\n", st.constraint_violation);
}

// Kinematic analysis of a zero-DOF rigid mechanism (the loader checked that the model is one):
// frames every step (thinned to the output interval), with accelerations and the multipliers of
// inverse dynamics.
void run_kinematic(const Model& m, const KinematicSettings& s, double interval, const FrameSink& sink,
                   RunSummary& summary) {
  Mechanism mech = m.mechanism;
  mech.gravity = rigid::vec3(m.gravity[0], m.gravity[1], m.gravity[2]);
  std::vector<KinematicFrame> frames;
  try {
    frames = run_kinematics(mech, s.end_time, s.step);
  } catch (const ModelError& e) {
    throw SimulationError(e.what());
  }
  const MultibodyLayout layout = multibody_layout(m);
  const int n = static_cast<int>(layout.dofs.size());
  Eigen::VectorXd q = initial_coordinates(m), v = Eigen::VectorXd::Zero(m.dof_count()), a = v;
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(m.constraint_count());
  double next = 0.0;
  for (const KinematicFrame& kf : frames) {
    summary.end_time = kf.t;
    summary.newton_iterations += kf.iterations;
    const bool last = &kf == &frames.back();
    if (interval > 0.0 && kf.t < next - 1e-9 * s.step && !last) continue;
    while (interval > 0.0 && next <= kf.t + 1e-9 * s.step) next += interval;
    for (int k = 0; k < n; ++k) {
      q[layout.dofs[k]] = kf.q[k];
      v[layout.dofs[k]] = kf.v[k];
      a[layout.dofs[k]] = kf.a[k];
    }
    lambda.segment(layout.first_row, layout.rows) = kf.lambda;
    Eigen::MatrixXd M;
    mass_matrix(mech, kf.q, M);
    Eigen::VectorXd Q = Eigen::VectorXd::Zero(n);
    Frame fr;
    fr.time = kf.t;
    fr.step = &kf == &frames.front() ? 0.0 : s.step;
    fr.newton_iterations = kf.iterations;
    fr.q = &q;
    fr.v = &v;
    fr.a = &a;
    fr.lambda = &lambda;
    fr.kinetic_energy = 0.5 * kf.v.dot(M * kf.v);
    for (size_t b = 0; b < mech.bodies.size(); ++b)
      for (int k = 0; k < 3; ++k) fr.gravitational_energy -= mech.bodies[b].mass * m.gravity[k] * kf.q[7 * b + k];
    fr.elastic_energy = add_force_element_forces(mech.forces, kf.q.data(), kf.v.data(), kf.t, Q.data());
    sink(fr);
  }
  summary.steps = static_cast<long>(frames.size()) - 1;
}

}  // namespace

RunOutcome execute(const Case& settings, const Model& model, Backend& backend, const FrameSink& write_frame,
                   const SummaryWriter& write_summary, const std::string& dir, const std::string& files) {
  std::printf("backend: %s (linear solver: %s)\n", backend.name().c_str(), backend.linear_solver().c_str());
  std::fflush(stdout);  // before the analysis' progress lines on stderr
  System sys(model, backend);
  RunSummary summary;
  const auto start = std::chrono::steady_clock::now();
  RunOutcome outcome;
  try {
    switch (settings.analysis.type) {
      case AnalysisSettings::Type::Static:
        run_static(sys, settings.analysis.statics, write_frame, summary);
        break;
      case AnalysisSettings::Type::Dynamic:
        run_dynamic(sys, settings.analysis.dynamics, settings.output.interval, write_frame, summary);
        break;
      case AnalysisSettings::Type::Assembly:
        summary.analysis = "assembly";
        run_assembly(sys, write_frame, summary);
        break;
      case AnalysisSettings::Type::Kinematic:
        summary.analysis = "kinematic";
        run_kinematic(model, settings.analysis.kinematics, settings.output.interval, write_frame, summary);
        break;
    }
    summary.status = "ok";
  } catch (const SimulationError& e) {
    summary.status = "failed";
    summary.message = e.what();
    std::fprintf(stderr, "catenary: simulation failed: %s\n", e.what());
    outcome.code = kExitSimulationFailed;
    outcome.failed_dof = e.dof();
    outcome.unsettled_dofs = e.unsettled_dofs();
  }
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_summary(summary);
  print_run_summary(summary, dir, files.c_str());
  return outcome;
}

int run_analysis(const Case& c, Backend& backend, const OutputDirectory& dir) {
  const std::unique_ptr<OutputWriter> writer = open_writer(c, dir);
  const char* files = c.model.mechanism.empty()
                          ? "results.csv, results.pvd, summary.json"
                          : "results.csv, rigid_bodies.csv, joint_reactions.csv, results.pvd, summary.json";
  return execute(
             c, c.model, backend, [&](const Frame& f) { writer->write_frame(f); },
             [&](const RunSummary& s) { writer->write_summary(s); }, dir.path, files)
      .code;
}

int check_command(const std::string& case_path) {
  const std::vector<SweepCase> cases = load_cases(case_path);
  print_case_summary(cases.front().c);
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
  const size_t bytes = cuda::estimated_device_bytes(run_model, backend_vector_count(cases.front().c.analysis));
  std::printf("CUDA backend: about %zu MiB of device memory%s (before a sparse QR factor); a device with less free "
              "is refused before the run\n",
              bytes >> 20, cases.size() > 1 ? " for the batch of all copies" : "");
#endif
  std::printf("%s: valid\n", case_path.c_str());
  return kExitOk;
}

int run_command(const std::string& case_path, const std::string& out, const std::string& backend,
                const CopySelection& selection) {
  const BackendChoice choice = parse_backend_choice(backend);
  const std::vector<SweepCase> cases = load_cases(case_path, selection);
  if (cases.front().sweep_size > 1) return run_sweep(cases, case_path, run_directory(cases.front().c, out), choice);
  const Case& c = cases.front().c;
  print_case_summary(c);
  const SelectedBackend selected =
      make_backend(choice, c.model, c.analysis);
  if (!selected.notice.empty()) std::fprintf(stderr, "catenary: note: %s\n", selected.notice.c_str());
  return run_analysis(c, *selected.backend, run_directory(c, out));
}

}  // namespace catenary::cli
