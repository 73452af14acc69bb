// Solver benchmark: the falling cable pendulum (the model of tests/test_dynamics.cpp) for a range
// of element counts, fixed HHT step, timing run_dynamic and the backend's stages.
//
//   catenary_benchmark [--backend cpu|cuda|cuda-host]
//                      [--solver auto|block_tridiagonal|chain_elimination|sparse_qr|krylov] [--steps S]
//                      [--large-steps S2] [--large-from N] [--step H] [--newton full|modified]
//                      [--crane] [--seabed F] [--water] [--no-stage-times] [--csv FILE] [n ...]
//
// On the CUDA backend, cuSOLVER's batched QR factorizes and solves in one call: its time is
// reported as factorization. Block cyclic reduction (the default for these chains) reports both.
// cuda-host runs the CUDA backend's code on the host (Thrust's host system, UMFPACK for the QR):
// not a speed figure for the GPU, but the same algorithms, e.g. GMRES's iteration counts.
//
// Besides times it prints: Krylov iterations per Newton iteration (GMRES only); the element
// stage's achieved bandwidth, element_pass_bytes over the element time, and on the device its
// fraction of the peak (memory clock x bus width); the peak memory: on the device the backend's
// largest use sampled at stage ends (Backend::timings), on the host the process's peak resident
// set so far (getrusage; sizes run in the order given, so ascending sizes give each its own).
//
// With --no-stage-times the CUDA backend does not wait for the device at each stage's end
// (Backend::set_stage_timing): the stage columns read 0 and wall/step is the step without those
// waits, the figure to quote for small models and batches.
//
// With --crane, the cable's first node hangs from the tip of a hinged rigid boom instead of the
// ground pin (crane_falling_cable): the block solvers then carry a border of 16 unknowns
// (kernels/bordered_solver.cu, solve/chain_solver.hpp).
//
// With --sweep E, each n is instead a number of copies of an E-element cable run as one batch
// (merge_models, as a case file's "sweep" runs): the sweep benchmark; steps per second of the
// whole batch are 1000 / (wall ms per step). With --crane too, copies of the crane: each boom is a
// block of its cable's chain (assembly/block_chain_ordering.hpp), no border.
//
// With --seabed F, the far fraction F of each line's elements lies on a frictional seabed
// (lay_on_seabed; F = 0.5: a line half on the seabed; F = 0: the seabed present, nothing touching):
// the cost of contact against the same line without it, per Newton iteration (ms_per_newton,
// element_ms_per_step / newton_per_step): the two take other numbers of iterations a step.
//
// With --water, every line falls through water (submerge): a current across it, a regular wave,
// buoyancy, drag and added mass at each quadrature point (elements/fluid_load.hpp), against the
// same line in air.
//
// The model: 3D cable of n elements of 0.1 m, pinned at its first node (add_spherical_to_ground),
// straight and horizontal along x at t = 0, gravity -9.81 z, diameter 0.02 m, E = 2e9 Pa,
// density 7800 kg/m^3, no damping. HHT alpha = -0.2, fixed step h = 1e-3 s (--step), Newton tolerance
// 1e-10, at most 20 iterations per step. Each n runs S steps (default 50); with --large-steps,
// n >= --large-from (default 4096) runs S2 steps instead.
//
// The output sink does nothing; the output interval equals the end time, so only the first and
// the last frame are emitted. Wall time is std::chrono::steady_clock around run_dynamic alone;
// model building and backend construction (pattern, symbolic structures) are reported as setup,
// split on a comment line after each row into model, backend (by its phases) and System.
// run_dynamic includes the consistent initial state (one assembly, one factorization, solves),
// which is amortised over the steps in every per-step figure. A one-step run on the same system
// comes first, so that the measured run finds the backend warm (lazily loaded kernels, captured
// graphs, the caching allocator's memory). The `step` column is the measured run's
// RunSummary::stepping_seconds over its steps after the first: the stepping alone, without the
// run's fixed cost and the first step. (A difference of walls, (S-step run - one-step run) /
// (S - 1), would subtract the one-step run's cold start from the steps: a third of the true figure
// for 4,000 copies of a 100-element cable on the CPU at S = 3.) The `cold_ms` column is that
// one-step run's wall beyond the measured run's fixed cost and first step: its cold start.
// `init_ms` and `out_ms` split the measured run's fixed cost: the consistent initial state with
// the method's start, and the two frames (state downloads and energies;
// RunSummary::initial_state_seconds, output_seconds).
#include <omp.h>
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/model/waves.hpp"
#include "catenary/model/reference_models.hpp"
#include "catenary/run/backend_factory.hpp"
#ifdef CATENARY_WITH_CUDA
#include "catenary/kernels/cuda_backend.hpp"
#endif

using namespace catenary;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Row {
  int n = 0, dofs = 0, constraints = 0;
  long steps = 0, iterations = 0, factorizations = 0;
  double setup_ms = 0, wall_ms = 0;  // totals
  // Where setup went, in ms: "model M; backend B (its phases, StageTimings::setup); system S".
  std::string setup_split;
  double stepping_ms = 0;            // RunSummary::stepping_seconds of the measured run
  double start_ms = 0;               // wall of the one-step run before it
  // The measured run's consistent initial state and its frames (RunSummary).
  double initial_state_ms = 0, output_ms = 0;
  double element_ms = 0, assembly_ms = 0, factorization_ms = 0, solve_ms = 0;  // totals
  double element_bytes = 0;
  long linear_iterations = 0;
  double peak_mib = 0, estimate_mib = 0;  // estimate: cuda::estimated_device_bytes (CUDA builds)
  std::string status;
  std::string solver;  // the backend's linear solver (auto may pick per size)
};

double peak_resident_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // kilobytes on Linux
}

// "cpu", "cuda" (the device) or "cuda-host" (the CUDA backend's code on the host).
std::unique_ptr<Backend> make_benchmark_backend(const std::string& name, const Model& m,
                                                const AnalysisSettings& analysis) {
  return make_backend(parse_backend_choice(name), m, analysis).backend;
}

// "model M; backend B (phase P, ..., rest R); system S" in ms; rest: the backend's time outside
// its listed phases (the device context's start, the memory check of make_backend).
std::string describe_setup(double model_ms, double backend_ms, const std::vector<SetupPhase>& phases,
                           double system_ms) {
  char number[32];
  const auto ms = [&number](double v) {
    std::snprintf(number, sizeof number, "%.1f", v);
    return std::string(number);
  };
  std::string text = "model " + ms(model_ms) + "; backend " + ms(backend_ms) + " (";
  double listed = 0.0;
  for (const SetupPhase& p : phases) {
    text += p.name + " " + ms(1e3 * p.seconds) + ", ";
    listed += 1e3 * p.seconds;
  }
  return text + "rest " + ms(backend_ms - listed) + "); system " + ms(system_ms);
}

// The seabed of --seabed: the plane z = -0.01 m under every line of m (horizontal at z = 0: the
// tube of its 0.02 m diameter touches it there), frictional as seabeds are (linear law K = 1e6 N/m^2,
// mu 0.5 along the line and 1.0 across, u_s = 0.01 m/s). The far `fraction` of each line's
// elements touch it, lowered by the penetration that carries their weight: they lie at rest with
// each of their quadrature points in contact; the near part hangs above the plane, not touching
// it (its elements have no contact surface), and falls.
void lay_on_seabed(Model& m, double fraction) {
  const double radius = 0.01, K = 1e6;
  const double rhoA = m.elements.properties.front().rhoA;
  const double penetration = rhoA * std::fabs(m.gravity[2]) / K;
  ContactSurface seabed{};
  seabed.kind = double(SurfaceKind::plane);
  seabed.direction[2] = 1.0;
  seabed.point[2] = -radius;
  seabed.radius = radius;
  seabed.law = {K, 1.0, 0.0, 0.0};
  seabed.friction_axial = 0.5;
  seabed.friction_lateral = 1.0;
  seabed.slip_velocity = 0.01;
  std::vector<int> lines;
  for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) lines.push_back(b);
  add_contact_surface(m, "seabed", seabed, lines);
  for (const Body& b : m.bodies) {
    const int touching = static_cast<int>(std::lround(fraction * b.element_count));
    for (int e = b.first_element; e < b.first_element + b.element_count - touching; ++e)
      m.elements.properties[e].contact = -1.0;
    for (int node = b.first_node + b.node_count - touching - 1; node < b.first_node + b.node_count; ++node)
      if (touching > 0) m.initial_positions[6 * node + 2] -= penetration;
  }
  finalize_model(m);
}

// The water of --water around every line of m: its surface 1 m above the lines' start (z = 0),
// 100 m deep, a 0.5 m/s current along y (across the lines), a regular wave of 1 m and 5 s along x;
// the lines' 0.02 m diameter with C_dn = 1.2, C_dt = 0.1, C_an = 1, C_at = 0.2.
void submerge(Model& m) {
  FluidLoad water{};
  water.density = 1025.0;
  water.surface = 1.0;
  water.depth = 100.0;
  water.current[1] = 0.5;
  add_water_values(m, water, {}, {}, {regular_wave_component({1.0, 5.0, 0.0, 0.0}, 100.0, 9.81)});
  FluidLoad section = water;
  section.diameter = 0.02;
  section.drag_normal = 1.2;
  section.drag_tangential = 0.1;
  section.added_mass_normal = 1.0;
  section.added_mass_tangential = 0.2;
  for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) add_fluid_load(m, section, b);
  finalize_model(m);
}

// n elements (hung from a crane's boom with crane), or with sweep_elements > 0 n copies of that
// model of sweep_elements elements; with seabed >= 0, that fraction of each line lying on a seabed
// (lay_on_seabed); with water, in water (submerge).
Model benchmark_model(int n, int sweep_elements, bool crane, double seabed, bool water) {
  const auto model = [crane, seabed, water](int elements) {
    Model m = crane ? crane_falling_cable(elements) : falling_cable_pendulum(elements);
    if (seabed >= 0.0) lay_on_seabed(m, seabed);
    if (water) submerge(m);
    return m;
  };
  if (sweep_elements <= 0) return model(n);
  const Model one = model(sweep_elements);
  const std::vector<const Model*> copies(n, &one);
  std::vector<CopyRange> ranges;
  return merge_models(copies, ranges);
}

Row run_one(const std::string& backend_name, LinearSolverChoice solver, int n, int steps, double step,
            DynamicSettings::Newton newton, int sweep_elements, bool crane, double seabed, bool water,
            bool stage_times) {
  Row r;
  r.n = n;
  const auto t_setup = Clock::now();
  const Model m = benchmark_model(n, sweep_elements, crane, seabed, water);
  const double model_ms = 1e3 * seconds_since(t_setup);
  AnalysisSettings analysis;  // HHT, fixed step
  analysis.linear_solver = solver;
  DynamicSettings& s = analysis.dynamics;
  s.step = step;
  s.end_time = steps * s.step;
  s.alpha = -0.2;
  s.max_iterations = 20;
  s.newton_tolerance = 1e-10;
  s.adaptive = false;
  s.newton = newton;
  const auto t_backend = Clock::now();
  const std::unique_ptr<Backend> backend_holder = make_benchmark_backend(backend_name, m, analysis);
  const double backend_ms = 1e3 * seconds_since(t_backend);
  Backend& backend = *backend_holder;
  backend.set_stage_timing(stage_times);
  const auto t_system = Clock::now();
  System sys(m, backend);
  r.setup_ms = 1e3 * seconds_since(t_setup);
  r.setup_split = describe_setup(model_ms, backend_ms, backend.timings().setup, 1e3 * seconds_since(t_system));
  r.dofs = sys.dofs();
  r.solver = backend.linear_solver();
#ifdef CATENARY_WITH_CUDA
  r.estimate_mib = cuda::estimated_device_bytes(m, backend_vector_count(analysis)) / 1048576.0;
#endif
  r.constraints = sys.constraints();

  long frames = 0;
  const FrameSink sink = [&frames](const Frame&) { ++frames; };
  // A one-step run first, so that the measured run finds the backend warm.
  try {
    DynamicSettings one = s;
    one.end_time = s.step;
    RunSummary start;
    const auto t_start = Clock::now();
    run_dynamic(sys, one, one.end_time, sink, start);
    r.start_ms = 1e3 * seconds_since(t_start);
  } catch (const std::exception& e) {
    r.status = std::string("failed: ") + e.what();
    return r;
  }
  const StageTimings before = backend.timings();
  RunSummary summary;
  const auto t_run = Clock::now();
  try {
    run_dynamic(sys, s, s.end_time, sink, summary);
    r.status = "ok";
  } catch (const std::exception& e) {
    r.status = std::string("failed: ") + e.what();
  }
  r.wall_ms = 1e3 * seconds_since(t_run);
  r.stepping_ms = 1e3 * summary.stepping_seconds;
  r.initial_state_ms = 1e3 * summary.initial_state_seconds;
  r.output_ms = 1e3 * summary.output_seconds;
  const StageTimings& after = backend.timings();
  r.steps = summary.steps;
  r.iterations = summary.newton_iterations;
  r.element_ms = 1e3 * (after.element - before.element);
  r.assembly_ms = 1e3 * (after.assembly - before.assembly);
  r.factorization_ms = 1e3 * (after.factorization - before.factorization);
  r.solve_ms = 1e3 * (after.solve - before.solve);
  r.factorizations = after.factorizations - before.factorizations;
  r.element_bytes = after.element_bytes - before.element_bytes;
  r.linear_iterations = after.linear_iterations - before.linear_iterations;
  r.peak_mib = backend_name == "cuda" ? after.peak_device_bytes / 1048576.0 : peak_resident_mib();
  return r;
}

void usage() {
  std::fprintf(
      stderr,
      "usage: catenary_benchmark [--backend cpu|cuda|cuda-host] [--steps S] [--large-steps S2] [--large-from N] "
      "[--csv FILE] [n ...]\n"
      "  --backend: cpu (default), cuda, or cuda-host (the CUDA backend's code run on the host)\n"
      "  --solver: the linear solver: auto (default), block_tridiagonal, chain_elimination, sparse_qr or krylov\n"
      "            (the CPU backend takes chain_elimination, and UMFPACK for any other)\n"
      "  n: element counts (default 8 16 32 ... 16384)\n"
      "  --steps S: HHT steps per run (default 50)\n"
      "  --large-steps S2: steps for n >= --large-from (default: S)\n"
      "  --large-from N: threshold for --large-steps (default 4096)\n"
      "  --step H: the fixed time step in s (default 1e-3)\n"
      "  --newton full|modified: a Newton matrix per iteration (default) or per step\n"
      "  --sweep E: n is a number of copies of an E-element cable (or crane) run as one batch\n"
      "  --crane: the cable hangs from a rigid boom's tip (crane_falling_cable): a chain with a border\n"
      "  --seabed F: the far fraction F of each line lies on a frictional seabed (0: the seabed, nothing touching)\n"
      "  --water: the lines fall through water with a current and a wave (buoyancy, drag, added mass)\n"
      "  --no-stage-times: the CUDA backend does not wait for the device at each stage's end (stage columns 0)\n"
      "  --csv FILE: also write the rows as CSV\n");
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 50, large_steps = -1, large_from = 4096, sweep_elements = 0;
  bool stage_times = true, crane = false, water = false;
  double seabed = -1.0;  // no seabed
  double step = 1e-3;
  std::string csv_path, backend_name = "cpu", solver_name = "auto", newton_name = "full";
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--backend") backend_name = value();
    else if (a == "--solver") solver_name = value();
    else if (a == "--steps") steps = std::atoi(value());
    else if (a == "--large-steps") large_steps = std::atoi(value());
    else if (a == "--large-from") large_from = std::atoi(value());
    else if (a == "--step") step = std::atof(value());
    else if (a == "--newton") newton_name = value();
    else if (a == "--sweep") sweep_elements = std::atoi(value());
    else if (a == "--crane") crane = true;
    else if (a == "--seabed") seabed = std::atof(value());
    else if (a == "--water") water = true;
    else if (a == "--csv") csv_path = value();
    else if (a == "--no-stage-times") stage_times = false;
    else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] != '-' && std::atoi(a.c_str()) > 0) sizes.push_back(std::atoi(a.c_str()));
    else {
      usage();
      return 2;
    }
  }
  const bool seabed_fraction_known = seabed == -1.0 || (seabed >= 0.0 && seabed <= 1.0);
  if (steps <= 0 || !(step > 0.0) || (newton_name != "full" && newton_name != "modified") || !seabed_fraction_known) {
    usage();
    return 2;
  }
  if (large_steps <= 0) large_steps = steps;
  const std::optional<LinearSolverChoice> known = linear_solver_from_name(solver_name);
  if (!known) {
    usage();
    return 2;
  }
  const LinearSolverChoice solver = *known;
  try {
    AnalysisSettings any;
    any.linear_solver = solver;
    make_benchmark_backend(backend_name, falling_cable_pendulum(2), any);  // fails early, with the reason
  } catch (const std::exception& e) {
    std::fprintf(stderr, "catenary_benchmark: %s\n", e.what());
    return 2;
  }
  if (sizes.empty())
    for (int n = 8; n <= 16384; n *= 2) sizes.push_back(n);

  FILE* csv = nullptr;
  if (!csv_path.empty()) {
    csv = std::fopen(csv_path.c_str(), "w");
    if (!csv) {
      std::fprintf(stderr, "cannot open %s\n", csv_path.c_str());
      return 1;
    }
    std::fprintf(csv,
                 "n,dofs,constraints,steps,newton_per_step,factorizations,wall_ms_per_step,step_ms,ms_per_newton,"
                 "element_ms_per_step,assembly_ms_per_step,factorization_ms_per_step,solve_ms_per_step,"
                 "other_ms_per_step,setup_ms,cold_start_ms,initial_state_ms,output_ms,krylov_per_newton,element_gb_s,"
                 "element_peak_fraction,peak_mib,estimated_device_mib,threads,backend,solver,status,setup_split\n");
  }

  const int threads = omp_get_max_threads();
  std::printf("# falling cable pendulum%s%s%s, h = %g s, HHT alpha = -0.2, %s Newton, backend %s, OpenMP threads = %d\n",
              crane ? " hung from a crane's boom" : "", seabed >= 0.0 ? " partly on a seabed" : "",
              water ? " in water" : "", step, newton_name.c_str(), backend_name.c_str(), threads);
  double peak_bandwidth = 0.0;  // bytes per second, known on the device only
#ifdef CATENARY_WITH_CUDA
  if (backend_name == "cuda") {
    peak_bandwidth = cuda::peak_memory_bandwidth();
    std::printf("# device %s, peak memory bandwidth %.0f GB/s\n", cuda::device_name().c_str(), peak_bandwidth / 1e9);
  }
#endif
  std::printf("# kry/newton: GMRES iterations per Newton iteration; el GB/s: element stage bandwidth%s; peak MiB: %s;"
              " est MiB: the CUDA backend's device memory estimate\n",
              peak_bandwidth > 0 ? " (and % of peak)" : "",
              backend_name == "cuda" ? "device memory of the backend" : "process peak resident set");
  if (sweep_elements > 0)
    std::printf(
        "# sweep: n = copies of a %d-element %s run as one batch; batch steps per second = 1000 / "
        "wall/step\n",
        sweep_elements, crane ? "crane" : "cable");
  std::printf(
      "# per-step times in ms; other = wall - (element + assembly + factorization + solve); step: a step\n"
      "# beyond the first, timed from the first step's end to the last one's: without the run's fixed\n"
      "# cost (consistent initial state; the first and last frames and their energies); cold_ms: the\n"
      "# one-step run before it (the system's first) beyond the measured run's fixed cost and first step;\n"
      "# init_ms, out_ms: the measured run's consistent initial state and its two frames (ms, not per step)%s\n",
      stage_times ? "" : "; stage times off (no device waits between stages): on a device the stage columns are 0");
  std::printf("%7s %8s %6s %7s %10s %9s %10s %9s %9s %9s %9s %9s %10s %8s %8s %8s %10s %9s %6s %9s %9s  %s\n", "n",
              "dofs", "steps", "it/step", "wall/step", "step", "ms/newton", "element", "assembly", "factor", "solve",
              "other", "setup_ms", "cold_ms", "init_ms", "out_ms", "kry/newton", "el GB/s", "%peak", "peak MiB",
              "est MiB", "solver");
  int failures = 0;
  for (int n : sizes) {
    const int s = n >= large_from ? large_steps : steps;
    const Row r = run_one(backend_name, solver, n, s, step,
                          newton_name == "modified" ? DynamicSettings::Newton::Modified : DynamicSettings::Newton::Full,
                          sweep_elements, crane, seabed, water, stage_times);
    const double k = r.steps > 0 ? 1.0 / r.steps : 0.0;
    const double it = r.iterations * k, wall = r.wall_ms * k;
    const double marginal = r.steps > 1 ? r.stepping_ms / (r.steps - 1) : 0.0;
    // The one-step run's wall beyond the measured run's fixed cost and first step: its cold start.
    const double cold = r.steps > 1 ? r.start_ms - (r.wall_ms - r.stepping_ms) : 0.0;
    const double per_newton = r.iterations > 0 ? r.wall_ms / r.iterations : 0.0;
    const double el = r.element_ms * k, as = r.assembly_ms * k, fa = r.factorization_ms * k, so = r.solve_ms * k;
    const double other = wall - (el + as + fa + so);
    const double krylov = r.iterations > 0 ? static_cast<double>(r.linear_iterations) / r.iterations : 0.0;
    const double gb_s = r.element_ms > 0 ? r.element_bytes / (1e-3 * r.element_ms) / 1e9 : 0.0;
    const double fraction = peak_bandwidth > 0 ? 1e9 * gb_s / peak_bandwidth : 0.0;
    std::printf(
        "%7d %8d %6ld %7.3f %10.3f %9.3f %10.3f %9.3f %9.3f %9.3f %9.3f %9.3f %10.2f %8.1f %8.1f %8.1f %10.2f %9.2f "
        "%6.1f %9.1f %9.1f  %s%s\n",
        r.n, r.dofs, r.steps, it, wall, marginal, per_newton, el, as, fa, so, other, r.setup_ms, cold,
        r.initial_state_ms, r.output_ms, krylov, gb_s, 100 * fraction, r.peak_mib, r.estimate_mib, r.solver.c_str(),
        r.status == "ok" ? "" : ("  " + r.status).c_str());
    std::printf("#   setup of n = %d (ms): %s\n", r.n, r.setup_split.c_str());
    std::fflush(stdout);
    if (csv) {
      std::string status = r.status;
      for (char& c : status)
        if (c == ',' || c == '\n') c = ';';
      std::fprintf(csv,
                   "%d,%d,%d,%ld,%.6f,%ld,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,"
                   "%.3f,%.3f,%d,%s,%s,%s,\"%s\"\n",
                   r.n, r.dofs, r.constraints, r.steps, it, r.factorizations, wall, marginal, per_newton, el, as, fa,
                   so, other, r.setup_ms, cold, r.initial_state_ms, r.output_ms, krylov, gb_s, fraction, r.peak_mib,
                   r.estimate_mib, threads, backend_name.c_str(), r.solver.c_str(), status.c_str(),
                   r.setup_split.c_str());
      std::fflush(csv);
    }
    if (r.status != "ok") ++failures;
  }
  if (csv) std::fclose(csv);
  return failures ? 1 : 0;
}
