#pragma once
// Shared helpers for the solver tests: run an analysis on a model built with the builders and
// keep the frames in memory.
#include <vector>

#include <Eigen/Core>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/integrators/analyses.hpp"

namespace catenary::testing {

struct StoredFrame {
  double time = 0.0;
  Eigen::VectorXd q, v, lambda;
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

inline double node_coordinate(const Model& m, const Eigen::VectorXd& q, int node, int k) {
  return q[node * m.coordinates_per_node() + k];
}

}  // namespace catenary::testing
