// Design sensitivities of dynamic runs by the discrete direct method
// (integrators/dynamic_sensitivity.hpp), HHT and generalized-alpha, against central differences of
// whole runs at the same fixed step (the derivative of the same numerical solution) and against a
// small-amplitude pendulum's closed form; the files a run writes; the cases refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/integrators/dynamic_sensitivity.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/run/run_case.hpp"

using namespace catenary;
using json = nlohmann::json;

namespace {

std::unique_ptr<Backend> cpu_backend(const Model& m) { return std::make_unique<CpuBackend>(m); }

DesignSensitivities differentiated(const json& doc, RunSummary* summary_out = nullptr) {
  const Case c = load_case_document(doc, "dynamic_sensitivity_test.json");
  CpuBackend backend(c.model);
  System sys(c.model, backend);
  RunSummary summary;
  DesignSensitivities s = run_dynamic_sensitivities(c, sys, [](const Frame&) {}, summary, nullptr, cpu_backend);
  if (summary_out) *summary_out = summary;
  return s;
}

// |a - b| relative to |b|, or to `scale` where b is smaller.
double relative_difference(double a, double b, double scale = 1e-300) {
  return std::fabs(a - b) / std::max(std::fabs(b), scale);
}

// The case's integrator: HHT (alpha -0.1) or generalized-alpha (rho 0.8).
json with_integrator(json doc, const std::string& integrator) {
  doc["analysis"]["integrator"] = integrator;
  if (integrator == "hht") doc["analysis"]["alpha"] = -0.1;
  return doc;
}

// Each objective's derivative with respect to each variable against whole runs at b (1 +- step),
// the same fixed steps: returns the largest relative difference (against the objective's value
// over the variable's where the derivative is smaller).
double against_whole_runs(const json& doc, const std::string& label, double step, double bound) {
  const DesignSensitivities s = differentiated(doc);
  double worst = 0.0;
  for (size_t k = 0; k < s.variables.size(); ++k) {
    const double b = s.values[k];
    // The objectives at b (1 +- step) and, for the printout, at b (1 +- 10 step).
    const auto whole_runs = [&](double h) {
      std::vector<double> at[2];
      for (int side = 0; side < 2; ++side) {
        json changed = doc;
        changed[json::json_pointer(s.variables[k])] = side == 0 ? b + h : b - h;
        changed["sensitivity"]["variables"] = json::array({s.variables[k]});
        for (const ObjectiveSensitivity& o : differentiated(changed).objectives) at[side].push_back(o.value);
      }
      std::vector<double> fd;
      for (size_t j = 0; j < at[0].size(); ++j) fd.push_back((at[0][j] - at[1][j]) / (2.0 * h));
      return fd;
    };
    const std::vector<double> fd = whole_runs(step * std::fabs(b)), coarse = whole_runs(10.0 * step * std::fabs(b));
    for (size_t j = 0; j < s.objectives.size(); ++j) {
      const double d = s.objectives[j].derivatives[k], scale = std::fabs(s.objectives[j].value / b);
      const double rel = relative_difference(d, fd[j], scale);
      // A reaction is a multiplier mu / s with s = beta h^2 (1 + alpha) (1e-7 here): whole runs
      // converged to the Newton tolerance leave it 1e-5 uncertain (it moves by 1e-4 between the two
      // difference steps).
      const bool reaction = doc["sensitivity"]["objectives"][j]["type"] == "reaction";
      std::printf("%s: d(%s)/d(%s): direct %.10g, whole runs %.10g (rel %.1e), at 10 times the step %.10g (rel %.1e)\n",
                  label.c_str(), s.objectives[j].name.c_str(), s.variables[k].c_str(), d, fd[j], rel, coarse[j],
                  relative_difference(d, coarse[j], scale));
      CHECK(rel < (reaction ? 10.0 * bound : bound));
      worst = std::max(worst, rel);
    }
  }
  std::printf("%s: largest relative difference from whole runs %.2e\n", label.c_str(), worst);
  return worst;
}

// A 2 kg bob on a revolute joint about y, released at rest from theta0 off the vertical (length 1 m).
json pendulum(double theta0, double end_time) {
  json doc = json::parse(R"({"name": "swinging_pendulum", "model": {"dimension": 3, "gravity": [0, 0, -9.81],
    "rigid_bodies": [{"name": "bob", "mass": 2.0, "inertia": [0.01, 0.01, 0.01], "position": [0, 0, -1]}],
    "joints": [{"name": "pivot", "type": "revolute", "body_i": "ground", "body_j": "bob", "point": [0, 0, 0],
                "axis": [0, 1, 0]}]},
    "analysis": {"type": "dynamic", "step": 1e-3, "tolerance": 1e-12},
    "sensitivity": {"variables": ["/model/gravity/2", "/model/rigid_bodies/0/mass",
                                  "/model/rigid_bodies/0/position/0"],
      "objectives": [{"name": "bob_x", "type": "rigid_body", "body": "bob", "component": "x"},
                     {"name": "bob_z", "type": "rigid_body", "body": "bob", "component": "z"}]}})");
  doc["model"]["rigid_bodies"][0]["position"] = {std::sin(theta0), 0.0, -std::cos(theta0)};
  doc["analysis"]["end_time"] = end_time;
  return doc;
}

// A steel rod of 1 m clamped at one end (cases/cantilever_static.json, 16 elements) under its
// weight and a tip load applied at t = 0: it swings down and vibrates.
json cantilever() {
  return json::parse(R"({"name": "cantilever_swing", "model": {"dimension": 3, "gravity": [0, 0, -9.81],
    "materials": {"steel": {"youngs_modulus": 2.1e11, "density": 7800}},
    "sections": {"rod": {"shape": "circle", "diameter": 0.02}},
    "bodies": [{"name": "rod", "element": "cable3d", "generator": "straight", "start": [0, 0, 0], "end": [1, 0, 0],
                "elements": 16, "material": "steel", "section": "rod"}],
    "constraints": [{"type": "fix", "name": "clamp", "node": {"body": "rod", "index": "start"}, "coordinates": "all"}],
    "loads": [{"type": "point_force", "node": {"body": "rod", "index": "end"}, "force": [0, 0, -2000]}]},
    "analysis": {"type": "dynamic", "end_time": 0.05, "step": 5e-4, "tolerance": 1e-12},
    "sensitivity": {"variables": ["/model/materials/steel/youngs_modulus", "/model/materials/steel/density",
                                  "/model/loads/0/force/2"],
      "objectives": [{"name": "tip_z", "type": "node_position", "node": {"body": "rod", "index": "end"}, "component": "z"},
                     {"name": "tip_x", "type": "node_position", "node": {"body": "rod", "index": "end"}, "component": "x"},
                     {"name": "clamp_z", "type": "reaction", "constraint": "clamp", "row": "z"},
                     {"name": "energy", "type": "strain_energy"}]}})");
}

}  // namespace

TEST_CASE("small-amplitude pendulum: d(bob x)/dg at the end time against the linear pendulum's closed form",
          "[sensitivity]") {
  // theta = theta0 cos(w t), w^2 = m g L / (I + m L^2): x = L sin theta, dx/dg = -L theta0 t sin(w t) w / (2 g).
  // At w T = 1.57 rad, where sin(w T) is largest and the time steps' phase error (w h)^2 / 12
  // relative to the phase moves the derivative least.
  const double theta0 = 1e-3, T = 0.5, m = 2.0, g = 9.81, L = 1.0, I = 0.01;
  const double w = std::sqrt(m * g * L / (I + m * L * L));
  const double closed = -L * theta0 * T * std::sin(w * T) * w / (2.0 * g);
  for (const std::string integrator : {"hht", "generalized_alpha"}) {
    json doc = with_integrator(pendulum(theta0, T), integrator);
    if (integrator == "hht") doc["analysis"]["alpha"] = 0.0;  // undamped: the trapezoidal rule
    else doc["analysis"]["rho_infinity"] = 1.0;
    const DesignSensitivities s = differentiated(doc);
    // d/d(gravity z) = -d/dg.
    const double dx = -s.objectives[0].derivatives[0];
    std::printf("pendulum, theta0 %.0e, %s: d(bob x)/dg at %.2f s %.9g, closed form %.9g (rel %.1e)\n", theta0,
                integrator.c_str(), T, dx, closed, relative_difference(dx, closed));
    CHECK(relative_difference(dx, closed) < 1e-4);
  }
}

TEST_CASE("swinging pendulum on a revolute joint: HHT and generalized-alpha against whole runs", "[sensitivity]") {
  for (const std::string integrator : {"hht", "generalized_alpha"})
    against_whole_runs(with_integrator(pendulum(0.6, 1.0), integrator), "pendulum 0.6 rad, " + integrator, 1e-4, 1e-6);
}

TEST_CASE("swinging cantilever: the tip at the end time with respect to E, density and the load, against whole runs",
          "[sensitivity]") {
  for (const std::string integrator : {"hht", "generalized_alpha"})
    against_whole_runs(with_integrator(cantilever(), integrator), "cantilever, " + integrator, 1e-4, 1e-6);
}

TEST_CASE("a dynamic run writes sensitivities.json and .csv", "[sensitivity]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "catenary_dynamic_sensitivity_run";
  std::filesystem::remove_all(dir);
  const json doc = pendulum(0.6, 0.1);
  const Case c = load_case_document(doc, "dynamic_sensitivity_test.json");
  CpuBackend backend(c.model);
  const AnalysisRun run = run_case(c, backend, dir.string());
  INFO(run.summary.message);
  REQUIRE(run.summary.status == "ok");
  REQUIRE(run.sensitivities.objectives.size() == 2);
  const DesignSensitivities direct = differentiated(doc);
  std::ifstream in(dir / "sensitivities.json");
  const json j = json::parse(in);
  CHECK(j["method"] == "direct");
  CHECK(j["objectives"][1]["name"] == "bob_z");
  CHECK(j["objectives"][1]["derivatives"]["/model/rigid_bodies/0/mass"].get<double>() ==
        direct.objectives[1].derivatives[1]);
  std::filesystem::remove_all(dir);
}

TEST_CASE("dynamic sensitivities refused where the direct method has no derivative of the step", "[sensitivity]") {
  const json base = pendulum(0.6, 0.1);
  const std::vector<std::pair<std::pair<std::string, json>, std::string>> bad = {
      {{"/analysis/integrator", "bdf"}, "/analysis/integrator"},
      {{"/analysis/integrator", "rk4"}, "/analysis/integrator"},
      {{"/analysis/formulation", "stabilized_index2"}, "/analysis/formulation"},
      {{"/analysis/newton", "modified"}, "/analysis/newton"},
      {{"/sensitivity/method", "adjoint"}, "/sensitivity/method"},
  };
  for (const auto& [change, path] : bad) {
    json doc = base;
    doc[json::json_pointer(change.first)] = change.second;
    if (change.second == "rk4") doc["analysis"].erase("tolerance");  // an implicit step's setting
    INFO(change.first);
    try {
      load_case_document(doc, "dynamic_sensitivity_test.json");
      FAIL("accepted");
    } catch (const InputError& e) {
      std::printf("refused: %s\n", e.what());
      CHECK(std::string(e.what()).find(path) != std::string::npos);
    }
  }
}
