#pragma once
// Shared helpers for the solver tests: run an analysis on a model built with the builders and
// keep the frames in memory.
#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/assembly/multibody_block.hpp"
#include "host_calls.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/model/reference_models.hpp"

namespace catenary::testing {

// The falling cable pendulum with material damping, so the damping Jacobian is exercised too;
// stiffness_scale multiplies EA.
inline Model damped_cable(int elements, double stiffness_scale = 1.0) {
  Model m = falling_cable_pendulum(elements);
  for (ElementProperties& p : m.elements.properties) p.eta = 0.01, p.EA *= stiffness_scale;
  return m;
}

// The model with every element on the Green-Lagrange law instead of the default Reissner law.
// The solver checks take their Newton matrices from it: at their random states (0.02 m moves on
// 0.1 m elements, strains of tens of percent, compressed elements) the Newton matrix is
// indefinite and its condition a matter of the draw, and the Reissner law's draws are worse: the
// 300-element cable on a boom, seed 42, 3.1e11 against 2.5e10 (BDCSVD), which puts the block
// solvers 1.7e-7 from UMFPACK at backward errors below 1e-15. The forward bounds of those checks
// were measured on this law's draws.
inline Model on_green_lagrange_law(Model m) {
  for (ElementProperties& p : m.elements.properties) p.strain_law = double(StrainLaw::green_lagrange);
  return m;
}

// A sweep's batch of these models, merged (merge_models) into one.
inline Model batch_of(const std::vector<Model>& models) {
  std::vector<const Model*> pointers;
  for (const Model& c : models) pointers.push_back(&c);
  std::vector<CopyRange> ranges;
  return merge_models(pointers, ranges);
}

// A sweep's batch of copies of damped_cable(elements), copy k with EA scaled by 1 + 0.1 k: many
// short chains that do not couple.
inline Model stiffness_sweep_batch(int copies, int elements) {
  std::vector<Model> models;
  for (int k = 0; k < copies; ++k) models.push_back(damped_cable(elements, 1.0 + 0.1 * k));
  return batch_of(models);
}

struct StoredFrame {
  double time = 0.0;
  Eigen::VectorXd q, v, lambda;
  Eigen::VectorXd contact_impulses;  // Frame::contact_impulses, where the frame has them
  double kinetic = 0.0, gravitational = 0.0, elastic = 0.0;
  int iterations = 0;
  double total() const { return kinetic + gravitational + elastic; }
};

struct RunResult {
  std::vector<StoredFrame> frames;
  RunSummary summary;
};

// Runs on the given backend (run_model: on a CPU backend).
inline RunResult run_model_on(Backend& backend, const Model& m, const AnalysisSettings& a, double output_interval = 0.0) {
  System sys(m, backend);
  RunResult r;
  auto sink = [&](const Frame& f) {
    StoredFrame s;
    s.time = f.time;
    s.q = *f.q;
    s.v = *f.v;
    if (f.lambda) s.lambda = *f.lambda;
    if (f.contact_impulses) s.contact_impulses = *f.contact_impulses;
    s.kinetic = f.kinetic_energy;
    s.gravitational = f.gravitational_energy;
    s.elastic = f.elastic_energy;
    s.iterations = f.newton_iterations;
    r.frames.push_back(std::move(s));
  };
  if (a.type == AnalysisSettings::Type::Static)
    run_static(sys, a.statics, sink, r.summary);
  else
    run_dynamic(sys, a.dynamics, output_interval, sink, r.summary);
  return r;
}

inline RunResult run_model(const Model& m, const AnalysisSettings& a, double output_interval = 0.0) {
  CpuBackend backend(m);
  return run_model_on(backend, m, a, output_interval);
}

// The CPU backend with UMFPACK, its general sparse LU (what "sparse_qr", the general sparse
// direct solver, names on the CPU): the independent reference of the block solvers' tests, which
// the CPU backend's default (chain elimination for chain models) is not.
// force_scale f_int(q, v) + mass_scale M x from one element pass of b (ForceTerms, its mass term
// M (q - origin) with origin = q - x): the forces pass, or with matrix the pass that also assembles
// the Newton matrix with those coefficients; with from, from minus those terms (ForceTerms::from).
inline Eigen::VectorXd forces_with_mass_term(Backend& b, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                             const Eigen::VectorXd& x, double force_scale, double mass_scale,
                                             const NewtonMatrixCoefficients* matrix = nullptr,
                                             const Eigen::VectorXd* from = nullptr) {
  const int n = b.dof_count();
  Vector qb = b.make_vector(n), vb = b.make_vector(n), xb = b.make_vector(n), yb = b.make_vector(n),
         fromb = b.make_vector(n);
  b.upload(q, qb);
  b.upload(v, vb);
  b.upload(q - x, xb);
  if (from) b.upload(*from, fromb);
  const ForceTerms terms{force_scale, mass_scale, &xb, from ? &fromb : nullptr};
  if (matrix)
    b.assemble_newton_matrix(qb, vb, *matrix, terms, yb);
  else
    b.internal_force(qb, vb, terms, yb);
  Eigen::VectorXd y;
  b.download(yb, y);
  return y;
}

inline CpuBackend umfpack_backend(const Model& m) { return CpuBackend(m, LinearSolverChoice::SparseQr); }

// |A x - b| / (|A| |x| + |b|) in the max norms (|A|: the largest absolute row sum): the normwise
// backward error of a solution x of A x = b, for a sparse A of either storage order.
template <class SparseMatrix>
double backward_error(const SparseMatrix& A, const Eigen::VectorXd& x, const Eigen::VectorXd& b) {
  const double norm = (A.cwiseAbs() * Eigen::VectorXd::Ones(A.cols())).maxCoeff();
  return (A * x - b).cwiseAbs().maxCoeff() / (norm * x.cwiseAbs().maxCoeff() + b.cwiseAbs().maxCoeff());
}

// The Newton matrix of m at a random state (seeded) assembled by `backend`, with the mechanism's
// entries as the integrator adds them (multipliers 0.3), and a random right-hand side.
inline Eigen::VectorXd assemble_at_random_state(CpuBackend& backend, const Model& m, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  const int n = m.dof_count(), rows = m.constraint_count();
  Eigen::VectorXd q = initial_coordinates(m), v(n), rhs(n + rows);
  for (int i = 0; i < n; ++i) q[i] += 0.02 * U(rng), v[i] = U(rng);
  for (int i = 0; i < n + rows; ++i) rhs[i] = U(rng);
  const NewtonMatrixCoefficients c{1.0, 2e-6, 3e-4, 1.0};
  Eigen::VectorXd f;
  host_assemble_newton_matrix(backend, q, v, c, f);
  if (!m.mechanism.empty()) {
    const MultibodyBlock block(m);
    const MultibodyLayout& layout = block.layout();
    Eigen::VectorXd x(block.size()), xv(block.size());
    for (int i = 0; i < block.size(); ++i) x[i] = q[layout.dofs[i]], xv[i] = v[layout.dofs[i]];
    std::vector<double> values;
    block.newton_matrix(x, xv, 0.0, Eigen::VectorXd::Zero(block.size()), Eigen::VectorXd::Constant(layout.rows, 0.3),
                        c, values);
    backend.add_block_entries(values);
  }
  return rhs;
}

inline RunResult run_model_umfpack(const Model& m, const AnalysisSettings& a) {
  CpuBackend backend = umfpack_backend(m);
  return run_model_on(backend, m, a);
}

inline AnalysisSettings static_settings(int load_steps) {
  AnalysisSettings a;
  a.type = AnalysisSettings::Type::Static;
  a.statics.load_steps = load_steps;
  a.statics.max_iterations = 30;
  a.statics.tolerance = 1e-11;
  return a;
}

inline AnalysisSettings dynamic_settings(double h, double T, double alpha) {
  AnalysisSettings a;
  a.type = AnalysisSettings::Type::Dynamic;
  a.dynamics.step = h;
  a.dynamics.end_time = T;
  a.dynamics.alpha = alpha;
  a.dynamics.max_iterations = 20;
  a.dynamics.newton_tolerance = 1e-10;
  return a;
}

inline AnalysisSettings bdf_settings(double h, double T, int max_order) {
  AnalysisSettings a = dynamic_settings(h, T, 0.0);
  a.dynamics.integrator = DynamicSettings::Integrator::BDF;
  a.dynamics.max_order = max_order;
  return a;
}

// The same settings with the adaptive step (first step: the given h).
inline AnalysisSettings adaptive_settings(AnalysisSettings a, double tolerance) {
  a.dynamics.adaptive = true;
  a.dynamics.min_step = 1e-8;
  a.dynamics.max_step = 0.05;
  a.dynamics.error_tolerance = tolerance;
  return a;
}

inline double node_coordinate(const Model& m, const Eigen::VectorXd& q, int node, int k) {
  return q[node * m.coordinates_per_node() + k];
}

// Largest |E(t) - E(0)| relative to the largest potential energy released, V(0) - V(t).
inline double energy_drift(const RunResult& r) {
  const double E0 = r.frames.front().total(), V0 = r.frames.front().gravitational + r.frames.front().elastic;
  double drift = 0.0, released = 0.0;
  for (const auto& f : r.frames) {
    drift = std::max(drift, std::fabs(f.total() - E0));
    released = std::max(released, V0 - f.gravitational - f.elastic);
  }
  return drift / released;
}

// Largest |Phi(q, t)| and |Phi_q v - nu| over the frames of a run with from <= t <= to.
inline std::pair<double, double> constraint_violations(const Model& m, const RunResult& r, double from = 0.0,
                                                       double to = HUGE_VAL) {
  CpuBackend backend(m);
  System sys(m, backend);
  double position = 0, velocity = 0;
  for (const StoredFrame& f : r.frames) {
    if (f.time < from || f.time > to) continue;
    const auto [phi, velocity_residual] = host_constraint_residuals(sys, f.q, f.v, f.time);
    position = std::max(position, phi.lpNorm<Eigen::Infinity>());
    velocity = std::max(velocity, velocity_residual.lpNorm<Eigen::Infinity>());
  }
  return {position, velocity};
}

// A planar 1 m cantilever (2 elements) swinging down under gravity from horizontal: smooth,
// every mode resolved by steps of 1e-4 s; the convergence-order tests use it.
inline Model swinging_cantilever() {
  Model m;
  m.dimension = 2;
  m.gravity[1] = -9.81;
  add_straight_line(m, "beam", {0, 0, 0}, {1, 0, 0}, 2, {1e3, 1.0, 1.0, 0.0});
  finalize_model(m);
  add_fix(m, 0, {0, 1, 2, 3}, "clamp", "/constraints/0");
  return m;
}

// Position of the last node at the end of the run.
inline Eigen::Vector2d final_tip_xy(const Model& m, const AnalysisSettings& a) {
  const RunResult r = run_model(m, a, a.dynamics.end_time);
  const int node = m.node_count - 1;
  return Eigen::Vector2d(node_coordinate(m, r.frames.back().q, node, 0), node_coordinate(m, r.frames.back().q, node, 1));
}

// The falling cable pendulum's 1 m cable (10 elements) without gravity, held on its axis (a
// fixed-free bar) and released stretched by a uniform `stretch`: only its axial modes move.
inline Model stretched_axial_bar(double stretch) {
  Model m = falling_cable_pendulum(10);
  m.gravity[2] = 0.0;
  add_fix(m, 0, {4, 5}, "axis0", "/constraints/1");
  for (int node = 1; node < m.node_count; ++node)
    add_fix(m, node, {1, 2, 4, 5}, "axis" + std::to_string(node), "/constraints/" + std::to_string(node + 1));
  const int cpn = m.coordinates_per_node();
  for (int node = 0; node < m.node_count; ++node) {
    m.initial_positions[node * cpn + 0] *= 1.0 + stretch;  // x
    m.initial_positions[node * cpn + 3] *= 1.0 + stretch;  // dx/ds
  }
  return m;
}

// Observed orders log2(e(h) / e(h / 2)) of the error e(h) = error_at(h) for h0, h0/2, h0/4.
// Prints each value with `label`.
template <class ErrorAt>
std::vector<double> observed_orders_of(const std::string& label, double h0, ErrorAt error_at) {
  std::vector<double> orders;
  double previous = 0.0;
  for (double h : {h0, h0 / 2, h0 / 4}) {
    const double error = error_at(h);
    if (previous > 0.0) {
      orders.push_back(std::log2(previous / error));
      std::printf("%s h = %g: error %.3e, observed order %.3f\n", label.c_str(), h, error, orders.back());
    }
    previous = error;
  }
  return orders;
}

// Observed convergence order between successive halvings of the step: log2(e(h) / e(h / 2)) of
// the swinging cantilever's final tip error against `reference`, for the steps h0, h0/2, h0/4
// run with settings(h). Prints each value with `label`.
template <class Settings>
std::vector<double> observed_orders(const std::string& label, const Eigen::Vector2d& reference, double h0,
                                    Settings settings) {
  const Model m = swinging_cantilever();
  return observed_orders_of(label, h0, [&](double h) { return (final_tip_xy(m, settings(h)) - reference).norm(); });
}

// A soft 1 m cable (E = 2e7 Pa, 8 elements) pinned at one end, released horizontally.
inline Model pinned_soft_cable(double eta) {
  Model m;
  m.dimension = 3;
  m.gravity[2] = -9.81;
  const double d = 0.02, A = M_PI * d * d / 4, I = M_PI * std::pow(d, 4) / 64, E = 2e7;
  add_straight_line(m, "cable", {0, 0, 0}, {1, 0, 0}, 8, {E * A, E * I, 7800 * A, eta});
  finalize_model(m);
  add_spherical_to_ground(m, 0, {0, 0, 0}, "pin", "/constraints/0");
  return m;
}

// The same analysis with the fixed step of `fine` and adaptively (error tolerance 1e-5, steps
// 1e-7 .. 1e-2): the largest difference of the last node's position at the end time.
struct AdaptiveComparison {
  double tip_difference = 0.0;
  long adaptive_steps = 0, rejected_steps = 0, fine_steps = 0;
  double end_time = 0.0;
};
inline AdaptiveComparison adaptive_against_fine(const Model& m, const AnalysisSettings& fine) {
  const RunResult reference = run_model(m, fine, fine.dynamics.end_time);
  AnalysisSettings a = fine;
  a.dynamics.adaptive = true;
  a.dynamics.min_step = 1e-7;
  a.dynamics.max_step = 1e-2;
  a.dynamics.error_tolerance = 1e-5;
  const RunResult adaptive = run_model(m, a, a.dynamics.end_time);
  AdaptiveComparison c;
  const int tip = m.node_count - 1;
  for (int k = 0; k < m.dimension; ++k)
    c.tip_difference = std::max(c.tip_difference, std::fabs(node_coordinate(m, adaptive.frames.back().q, tip, k) -
                                                            node_coordinate(m, reference.frames.back().q, tip, k)));
  c.adaptive_steps = adaptive.summary.steps;
  c.rejected_steps = adaptive.summary.rejected_steps;
  c.fine_steps = reference.summary.steps;
  c.end_time = adaptive.frames.back().time;
  return c;
}

// The text of a small dynamic case (a 4-element planar steel bar, ten steps of 1 ms) up to its
// analysis's last field: the tests of the analysis fields add theirs and close it with "}}".
inline std::string dynamic_bar_case_text() {
  return R"({"name": "s", "model": {"dimension": 2,
      "materials": {"steel": {"youngs_modulus": 2.1e11, "density": 7800}},
      "sections": {"bar": {"shape": "rectangle", "width": 0.02, "height": 0.02}},
      "bodies": [{"name": "bar", "element": "beam2d", "generator": "straight", "start": [0, 0], "end": [1, 0],
                  "elements": 4, "material": "steel", "section": "bar"}]},
      "analysis": {"type": "dynamic", "end_time": 0.01, "step": 0.001)";
}

}  // namespace catenary::testing
