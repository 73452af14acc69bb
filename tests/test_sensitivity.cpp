// Design sensitivities of static equilibria (integrators/static_sensitivity.hpp) against closed
// forms and against central differences of whole static runs, by the direct and the adjoint
// method; and the files a run writes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/sensitivity_models.hpp"
#include "catenary/run/run_case.hpp"

using namespace catenary;
using json = nlohmann::json;

namespace {

json shipped_case(const std::string& name) {
  std::ifstream in(std::string(CATENARY_SOURCE_DIR) + "/cases/" + name + ".json");
  return json::parse(in);
}

std::unique_ptr<Backend> cpu_backend(const Model& m) { return std::make_unique<CpuBackend>(m); }

// The static equilibrium (q, lambda) of a model: the last frame of its static analysis.
struct Equilibrium {
  Eigen::VectorXd q, lambda;
};
Equilibrium equilibrium_of(const Model& m, const AnalysisSettings& a, Backend& backend) {
  Equilibrium e;
  const AnalysisRun run = run_analysis(a, 0.0, m, backend, [&](const Frame& f) {
    e.q = *f.q;
    e.lambda = *f.lambda;
  });
  INFO(run.summary.message);
  REQUIRE(run.summary.status == "ok");
  return e;
}

DesignSensitivities sensitivities_of(const json& doc, const std::string& method) {
  json d = doc;
  d["sensitivity"]["method"] = method;
  const Case c = load_case_document(d, "sensitivity_test.json");
  CpuBackend backend(c.model);
  const Equilibrium e = equilibrium_of(c.model, c.analysis, backend);
  return static_sensitivities(c, backend, e.q, e.lambda, cpu_backend);
}

// The rod of cases/cantilever_static.json: 1 m, 20 mm diameter, E = 2.1e11.
constexpr double kE = 2.1e11, kLength = 1.0, kDiameter = 0.02;
const double kInertia = M_PI * std::pow(kDiameter, 4) / 64.0;

json cantilever_with_sensitivities(double tip_force) {
  json doc = shipped_case("cantilever_static");
  doc["model"]["loads"][0]["force"][2] = -tip_force;
  doc["sensitivity"] = {
      {"variables", {"/model/materials/steel/youngs_modulus", "/model/loads/0/force/2"}},
      {"objectives",
       {{{"name", "tip_z"}, {"type", "node_position"}, {"node", {{"body", "rod"}, {"index", "end"}}}, {"component", "z"}},
        {{"name", "tip_x"}, {"type", "node_position"}, {"node", {{"body", "rod"}, {"index", "end"}}}, {"component", "x"}},
        {{"name", "energy"}, {"type", "strain_energy"}},
        {{"name", "root_tension"}, {"type", "tension"}, {"node", {{"body", "rod"}, {"index", 1}}}},
        {{"name", "clamp_z"}, {"type", "reaction"}, {"constraint", "clamp"}, {"row", "z"}},
        {{"name", "tip_z_to_target"}, {"type", "node_position"}, {"node", {{"body", "rod"}, {"index", "end"}}},
         {"component", "z"}, {"target", -0.5}}}}};
  return doc;
}

// |a - b| relative to |b|, or to `scale` where b is smaller (a derivative that vanishes, measured
// against the objective's value over the variable's).
double relative_difference(double a, double b, double scale = 1e-300) {
  return std::fabs(a - b) / std::max(std::fabs(b), scale);
}

}  // namespace

TEST_CASE("small-deflection cantilever: d(tip deflection)/dE = -deflection/E, d/dF = L^3/(3EI)", "[sensitivity]") {
  const json doc = cantilever_with_sensitivities(1.0);  // 1 N: a deflection of 2e-4 m, 2e-4 of the length
  for (const std::string method : {"direct", "adjoint"}) {
    const DesignSensitivities s = sensitivities_of(doc, method);
    REQUIRE(s.method == method);
    const ObjectiveSensitivity& tip = s.objectives[0];
    const double closed = kLength * kLength * kLength / (3.0 * kE * kInertia);
    const double dE = tip.derivatives[0], dF = tip.derivatives[1];
    std::printf("cantilever, 1 N, %s: tip z %.9g (closed form %.9g); d/dE %.9g, -z/E %.9g (rel %.2e); "
                "d/d(force z) %.9g, L^3/(3EI) %.9g (rel %.2e)\n",
                method.c_str(), tip.value, -closed, dE, -tip.value / kE, relative_difference(dE, -tip.value / kE), dF,
                closed, relative_difference(dF, closed));
    CHECK(relative_difference(dE, -tip.value / kE) < 1e-5);
    CHECK(relative_difference(dF, closed) < 1e-4);
  }
}

TEST_CASE("large-deflection cantilever: direct = adjoint, and both = central differences of whole static runs",
          "[sensitivity]") {
  const json doc = cantilever_with_sensitivities(4000.0);  // as shipped: F L^2 / EI = 2.43
  const DesignSensitivities direct = sensitivities_of(doc, "direct"), adjoint = sensitivities_of(doc, "adjoint");
  const Case c = load_case_document(doc, "sensitivity_test.json");
  // Whole runs at b (1 +- 1e-4): their central difference's truncation error is of order 1e-8
  // relative, and the runs converge to 1e-10 of the coordinates, which leaves about 1e-6.
  const double step = 1e-4;
  double worst_fd = 0.0, worst_methods = 0.0;
  for (size_t k = 0; k < c.sensitivity.variables.size(); ++k) {
    const double b = c.sensitivity.values[k], h = step * std::fabs(b);
    std::vector<double> at[2];
    for (int side = 0; side < 2; ++side) {
      json changed = doc;
      changed[json::json_pointer(c.sensitivity.variables[k])] = side == 0 ? b + h : b - h;
      changed["sensitivity"]["method"] = "direct";
      const Case cc = load_case_document(changed, "sensitivity_test.json");
      CpuBackend backend(cc.model);
      const Equilibrium e = equilibrium_of(cc.model, cc.analysis, backend);
      const DesignSensitivities values = static_sensitivities(cc, backend, e.q, e.lambda, cpu_backend);
      for (const ObjectiveSensitivity& o : values.objectives) at[side].push_back(o.value);
    }
    for (size_t j = 0; j < direct.objectives.size(); ++j) {
      const double fd = (at[0][j] - at[1][j]) / (2.0 * h);
      const double d = direct.objectives[j].derivatives[k], a = adjoint.objectives[j].derivatives[k];
      const double scale = std::fabs(direct.objectives[j].value / b);
      const double rel_fd = relative_difference(d, fd, scale), rel_methods = relative_difference(a, d, scale);
      std::printf("cantilever 4 kN: d(%s)/d(%s): direct %.10g, adjoint %.10g (rel %.1e), whole runs %.10g (rel %.1e)\n",
                  direct.objectives[j].name.c_str(), c.sensitivity.variables[k].c_str(), d, a, rel_methods, fd, rel_fd);
      worst_fd = std::max(worst_fd, rel_fd);
      worst_methods = std::max(worst_methods, rel_methods);
      CHECK(rel_fd < 1e-5);
      CHECK(rel_methods < 1e-8);
    }
  }
  std::printf("cantilever 4 kN: largest relative difference from whole runs %.2e, direct from adjoint %.2e\n", worst_fd,
              worst_methods);
}

TEST_CASE("hanging cable on two spherical joints: d(vertical reaction)/d(density) = A L g / 2", "[sensitivity]") {
  json doc = shipped_case("hanging_cable");
  doc["sensitivity"] = {
      {"variables", {"/model/materials/rope/density", "/model/materials/rope/youngs_modulus"}},
      {"objectives",
       {{{"name", "left_z"}, {"type", "reaction"}, {"constraint", "left"}, {"row", "z"}},
        {{"name", "sag"}, {"type", "node_position"}, {"node", {{"body", "cable"}, {"index", 20}}}, {"component", "z"}}}}};
  const double area = M_PI * 0.01 * 0.01 / 4.0, length = 12.0, g = 9.81;
  const DesignSensitivities direct = sensitivities_of(doc, "direct"), adjoint = sensitivities_of(doc, "adjoint");
  const double closed = area * length * g / 2.0;  // each pin carries half the weight, whatever the shape
  for (const DesignSensitivities* s : {&direct, &adjoint}) {
    const ObjectiveSensitivity& left = s->objectives[0];
    std::printf("hanging cable, %s: reaction.left.z %.9g (half the weight %.9g); d/d(density) %.10g, A L g / 2 %.10g "
                "(rel %.2e); d/dE %.3g\n",
                s->method.c_str(), left.value, 7800 * closed, left.derivatives[0], closed,
                relative_difference(left.derivatives[0], closed), left.derivatives[1]);
    CHECK(relative_difference(left.derivatives[0], closed) < 1e-6);
    CHECK(std::fabs(left.derivatives[1]) * 1e11 < 1e-6 * std::fabs(left.value));  // by symmetry, none
  }
  for (size_t j = 0; j < 2; ++j)
    for (size_t k = 0; k < 2; ++k)
      CHECK(relative_difference(adjoint.objectives[j].derivatives[k], direct.objectives[j].derivatives[k],
                                std::fabs(direct.objectives[j].value / direct.values[k])) < 1e-8);
}

TEST_CASE("a count as a variable is refused: its changed values make no model", "[sensitivity]") {
  json doc = cantilever_with_sensitivities(1.0);
  doc["sensitivity"]["variables"] = json::array({"/model/bodies/0/elements"});
  const Case c = load_case_document(doc, "sensitivity_test.json");
  CpuBackend backend(c.model);
  const Equilibrium e = equilibrium_of(c.model, c.analysis, backend);
  CHECK_THROWS_AS(static_sensitivities(c, backend, e.q, e.lambda, cpu_backend), InputError);
}

TEST_CASE("a static run writes sensitivities.json and .csv and lists them in summary.json", "[sensitivity]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "catenary_sensitivity_run";
  std::filesystem::remove_all(dir);
  const Case c = load_case_document(cantilever_with_sensitivities(1.0), "sensitivity_test.json");
  CpuBackend backend(c.model);
  const AnalysisRun run = run_case(c, backend, dir.string());
  REQUIRE(run.summary.status == "ok");
  REQUIRE(run.sensitivities.objectives.size() == 6);
  std::ifstream in(dir / "sensitivities.json");
  const json j = json::parse(in);
  CHECK(j["method"] == "direct");
  CHECK(j["variables"][1]["path"] == "/model/loads/0/force/2");
  CHECK(j["objectives"][0]["name"] == "tip_z");
  CHECK(j["objectives"][0]["derivatives"]["/model/loads/0/force/2"].get<double>() ==
        run.sensitivities.objectives[0].derivatives[1]);
  std::ifstream csv(dir / "sensitivities.csv");
  std::string header;
  std::getline(csv, header);
  CHECK(header == "objective,value,d/d/model/materials/steel/youngs_modulus,d/d/model/loads/0/force/2");
  std::ifstream summary_in(dir / "summary.json");
  const json summary = json::parse(summary_in);
  CHECK(summary["output_files"]["sensitivities"] == "sensitivities.json");
  CHECK(summary["output_files"]["sensitivities_csv"] == "sensitivities.csv");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a pendulum pushed sideways: the bob's position against its closed-form derivatives", "[sensitivity]") {
  // A 2 kg bob 1 m below a revolute joint about y, pushed along x by F = 5 N: tan t = F / (m g),
  // x = L sin t, z = -L cos t, so dt/dF = cos^2 t / (m g) and dt/dm = -F g cos^2 t / (m g)^2.
  const json doc = json::parse(R"({"name": "pushed_pendulum", "model": {"dimension": 3, "gravity": [0, 0, -9.81],
    "rigid_bodies": [{"name": "bob", "mass": 2.0, "inertia": [0.01, 0.01, 0.01], "position": [0, 0, -1]}],
    "joints": [{"name": "pivot", "type": "revolute", "body_i": "ground", "body_j": "bob", "point": [0, 0, 0],
                "axis": [0, 1, 0]}],
    "body_loads": [{"name": "push", "body": "bob", "frame": "ground", "force": [5, 0, 0]}]},
    "analysis": {"type": "static", "load_steps": 4},
    "sensitivity": {"variables": ["/model/body_loads/0/force/0", "/model/rigid_bodies/0/mass"],
      "objectives": [{"name": "bob_x", "type": "rigid_body", "body": "bob", "component": "x"},
                     {"name": "bob_z", "type": "rigid_body", "body": "bob", "component": "z"}]}})");
  const double m = 2.0, g = 9.81, F = 5.0, t = std::atan(F / (m * g)), c2 = std::cos(t) * std::cos(t);
  const double dt[2] = {c2 / (m * g), -F * g * c2 / (m * g * m * g)};
  for (const std::string method : {"direct", "adjoint"}) {
    const DesignSensitivities s = sensitivities_of(doc, method);
    for (int k = 0; k < 2; ++k) {
      const double dx = std::cos(t) * dt[k], dz = std::sin(t) * dt[k];
      std::printf("pushed pendulum, %s: d(bob x, z)/d(%s) %.10g, %.10g; closed form %.10g, %.10g (rel %.1e, %.1e)\n",
                  method.c_str(), s.variables[k].c_str(), s.objectives[0].derivatives[k],
                  s.objectives[1].derivatives[k], dx, dz, relative_difference(s.objectives[0].derivatives[k], dx),
                  relative_difference(s.objectives[1].derivatives[k], dz));
      CHECK(relative_difference(s.objectives[0].derivatives[k], dx) < 1e-8);
      CHECK(relative_difference(s.objectives[1].derivatives[k], dz) < 1e-8);
    }
  }
}
