// Lines in water, read from case files and run: a neutrally buoyant line stays put, rods sinking
// in still water reach the terminal velocity of the drag balance (broadside and end-on) and, with
// added mass and no drag, its constant acceleration; a taut string in a uniform current takes the
// closed-form deflection of a string under tension, and its first mode decays under drag as the
// linearized estimate says.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catenary/model/case_loader.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using nlohmann::json;

namespace {

constexpr double kG = 9.81, kWater = 1025.0;

// A case with one cable "line" of the given generator fields in water of the given fields.
json water_case(const json& body, double density, double diameter, const json& hydrodynamics, const json& water,
                const json& analysis, double gravity = kG) {
  json line = body;
  line["name"] = "line";
  line["element"] = "cable3d";
  line["material"] = "m";
  line["section"] = "s";
  return {{"name", "water"},
          {"model",
           {{"dimension", 3},
            {"gravity", {0, 0, -gravity}},
            {"materials", {{"m", {{"youngs_modulus", 2e11}, {"density", density}}}}},
            {"sections", {{"s", {{"shape", "circle"}, {"diameter", diameter}, {"hydrodynamics", hydrodynamics}}}}},
            {"bodies", {line}},
            {"water", water}}},
          {"analysis", analysis}};
}

Case load(const json& c, const std::string& name) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("catenary_water_" + name + ".json");
  std::ofstream(file) << c.dump();
  return load_case(file.string());
}

// The velocity of node `node` along z at the run's end.
double final_velocity_z(const testing::RunResult& r, int node) { return r.frames.back().v[6 * node + 2]; }

}  // namespace

TEST_CASE("a neutrally buoyant line in still water stays put", "[water][dynamics]") {
  // rho A = rho_w pi d^2 / 4: buoyancy cancels the weight on every element, drag sees no flow.
  const json body = {{"generator", "straight"}, {"start", {0, 0, -20}}, {"end", {8, 0, -14}}, {"elements", 8}};
  const json c = water_case(body, kWater, 0.05, {{"diameter", 0.05}, {"drag_normal", 1.2}, {"drag_tangential", 0.1}},
                            {{"density", kWater}, {"surface", 0.0}},
                            {{"type", "dynamic"}, {"end_time", 1.0}, {"step", 0.01}});
  const Case loaded = load(c, "neutral");
  const testing::RunResult r = testing::run_model(loaded.model, loaded.analysis, 0.1);
  double moved = 0.0;
  for (const testing::StoredFrame& f : r.frames) moved = std::max(moved, (f.q - r.frames.front().q).cwiseAbs().maxCoeff());
  std::printf("neutral buoyancy: the line moves %.1e m in 1 s\n", moved);
  CHECK(moved < 1e-10);
}

TEST_CASE("rods sinking in still water reach the drag balance's terminal velocity", "[water][dynamics]") {
  // Submerged weight w = (rho - rho_w) A g per length against drag: broadside
  // 1/2 rho_w C_dn d v^2, end-on 1/2 rho_w C_dt pi d v^2.
  const double d = 0.05, rho = 7800.0, area = M_PI * d * d / 4.0, w = (rho - kWater) * area * kG;
  const json water = {{"density", kWater}, {"surface", 1000.0}};
  const json analysis = {{"type", "dynamic"}, {"end_time", 4.0}, {"step", 0.01}};
  const json hydro = {{"diameter", d}, {"drag_normal", 1.0}, {"drag_tangential", 0.5}};
  const double broadside = std::sqrt(w / (0.5 * kWater * 1.0 * d)), end_on = std::sqrt(w / (0.5 * kWater * 0.5 * M_PI * d));
  const json flat = {{"generator", "straight"}, {"start", {0, 0, 0}}, {"end", {1, 0, 0}}, {"elements", 4}};
  const json upright = {{"generator", "straight"}, {"start", {0, 0, 0}}, {"end", {0, 0, 1}}, {"elements", 4}};
  const Case down = load(water_case(flat, rho, d, hydro, water, analysis), "flat");
  const testing::RunResult a = testing::run_model(down.model, down.analysis, 1.0);
  const Case up = load(water_case(upright, rho, d, hydro, water, analysis), "upright");
  const testing::RunResult b = testing::run_model(up.model, up.analysis, 1.0);
  std::printf("terminal velocity: broadside %.6f m/s (closed form %.6f), end-on %.6f (%.6f)\n", -final_velocity_z(a, 2),
              broadside, -final_velocity_z(b, 2), end_on);
  for (int node = 0; node <= 4; ++node) {
    CHECK(-final_velocity_z(a, node) == Approx(broadside).epsilon(1e-6));
    CHECK(-final_velocity_z(b, node) == Approx(end_on).epsilon(1e-6));
  }
}

TEST_CASE("the added mass slows a sinking rod's start as its closed form says", "[water][dynamics]") {
  // Without drag a rod released in still water falls with the constant acceleration
  // (rho - rho_w) A g / (rho A + m_a), m_a = rho_w A C_an broadside and rho_w A C_at end-on:
  // the residual's mass term, the Newton matrix and HHT's force history all hold M_a.
  const double d = 0.05, rho = 7800.0, Can = 1.0, Cat = 0.5, t = 0.5;
  const json hydro = {{"diameter", d}, {"added_mass_normal", Can}, {"added_mass_tangential", Cat}};
  const json water = {{"density", kWater}, {"surface", 1000.0}};
  const json analysis = {{"type", "dynamic"}, {"end_time", t}, {"step", 0.01}};
  const json flat = {{"generator", "straight"}, {"start", {0, 0, 0}}, {"end", {1, 0, 0}}, {"elements", 4}};
  const json upright = {{"generator", "straight"}, {"start", {0, 0, 0}}, {"end", {0, 0, 1}}, {"elements", 4}};
  const auto fall = [&](const json& body, double Ca, const char* name) {
    const Case c = load(water_case(body, rho, d, hydro, water, analysis), name);
    const double expected = (rho - kWater) * kG / (rho + kWater * Ca) * t;
    const testing::RunResult r = testing::run_model(c.model, c.analysis, t);
    std::printf("added mass (%s): falls at %.9f m/s after %.1f s, closed form %.9f\n", name, -final_velocity_z(r, 2), t,
                expected);
    for (int node = 0; node <= 4; ++node) CHECK(-final_velocity_z(r, node) == Approx(expected).epsilon(1e-9));
  };
  fall(flat, Can, "broadside");
  fall(upright, Cat, "end-on");
}

TEST_CASE("a taut string in a uniform current deflects as a string under tension", "[water][statics]") {
  // A 10 m wire pinned at x = 0, its other end free along x and pulled by T, in a current U along
  // y without gravity: the normal drag q = 1/2 rho_w C_dn d U^2 deflects it by the beam-string's
  // midspan value q L^2 / (8 T) - q / (T k^2) (1 - 1 / cosh(k L / 2)), k^2 = T / EI (its bending
  // stiffness's share, 0.1 % here); the slopes' effects (the drag's cos^2 and the tension's
  // turning, (4 delta / L)^2) are 4e-4.
  const double d = 0.01, T = 1e4, U = 2.5, Cdn = 1.2;
  const json body = {{"generator", "straight"}, {"start", {0, 0, 0}}, {"end", {10, 0, 0}}, {"elements", 40}};
  json c = water_case(body, 7800.0, d, {{"diameter", d}, {"drag_normal", Cdn}},
                      {{"density", kWater}, {"surface", 100.0}, {"current", {{"velocity", {0, U, 0}}}}},
                      {{"type", "static"}, {"load_steps", 4}, {"max_iterations", 100}}, 0.0);
  c["model"]["constraints"] = {
      {{"type", "spherical"}, {"node", {{"body", "line"}, {"index", "start"}}}},
      {{"type", "fix"}, {"node", {{"body", "line"}, {"index", "end"}}}, {"coordinates", {"y", "z"}}}};
  c["model"]["loads"] = {{{"type", "point_force"}, {"node", {{"body", "line"}, {"index", "end"}}}, {"force", {T, 0, 0}}}};
  const Case loaded = load(c, "string");
  const testing::RunResult r = testing::run_model(loaded.model, loaded.analysis);
  const Eigen::VectorXd& q = r.frames.back().q;
  const double L = q[6 * 40], EI = 2e11 * M_PI * std::pow(d, 4) / 64.0, k = std::sqrt(T / EI);
  const double qd = 0.5 * kWater * Cdn * d * U * U;
  const double expected = qd * L * L / (8.0 * T) - qd / (T * k * k) * (1.0 - 1.0 / std::cosh(k * L / 2.0));
  std::printf("string in current: midspan deflection %.6f m, closed form %.6f m\n", q[6 * 20 + 1], expected);
  CHECK(q[6 * 20 + 1] == Approx(expected).epsilon(1e-3));
}

TEST_CASE("a string's first mode decays under small drag as the linearized estimate says", "[water][dynamics]") {
  // The string of the current test (T = 10 kN, m = 0.6126 kg/m, L = 10 m) in still water, held
  // deflected by a uniform load (the static start: 97 % of its energy in the first mode), the
  // load released at once. Quadratic drag c |v| v (c = 1/2 rho_w C_dn d) on the mode A sin(pi x / L)
  // sin(w t) dissipates (32 / (9 pi)) c L A^3 w^2 a cycle, so that the energy E = m L w^2 A^2 / 4
  // decays with E^-1/2 linear in time, of slope (64 / (9 pi^2)) c / (m^3/2 L^1/2): measured on the
  // kinetic energy's peaks (E at the zero crossings), a 1 % decay per cycle.
  const double d = 0.01, T = 1e4, Cdn = 0.012, L = 10.0, q0 = 40.0;
  const json body = {{"generator", "straight"}, {"start", {0, 0, 0}}, {"end", {L, 0, 0}}, {"elements", 40}};
  json c = water_case(body, 7800.0, d, {{"diameter", d}, {"drag_normal", Cdn}}, {{"density", kWater}, {"surface", 100.0}},
                      {{"type", "dynamic"}, {"end_time", 2.0}, {"step", 1e-3}, {"alpha", 0.0}, {"initial_state", "static"}},
                      0.0);
  c["model"]["constraints"] = {
      {{"type", "spherical"}, {"node", {{"body", "line"}, {"index", "start"}}}},
      {{"type", "fix"}, {"node", {{"body", "line"}, {"index", "end"}}}, {"coordinates", {"y", "z"}}}};
  c["model"]["loads"] = {
      {{"type", "point_force"}, {"node", {{"body", "line"}, {"index", "end"}}}, {"force", {T, 0, 0}}},
      {{"type", "distributed"},
       {"body", "line"},
       {"force_per_length", {0, q0, 0}},
       {"function", {{"type", "smooth_step"}, {"t0", 0.0}, {"t1", 1e-3}, {"from", 1.0}, {"to", 0.0}}}}};
  const Case loaded = load(c, "string_mode");
  const testing::RunResult r = testing::run_model(loaded.model, loaded.analysis, 1e-3);
  // The kinetic energy's peak in each half period (it is least at the extremes, from t = 0): the
  // largest frame's, refined by the parabola through it and its neighbours.
  const double m = 7800.0 * M_PI * d * d / 4.0, half_period = L / std::sqrt(T / m);
  std::vector<double> times, inverse_roots;
  for (int j = 0; (j + 1) * half_period < 2.0; ++j) {
    size_t best = 0;
    for (size_t k = 1; k + 1 < r.frames.size(); ++k)
      if (r.frames[k].time >= j * half_period && r.frames[k].time < (j + 1) * half_period &&
          (best == 0 || r.frames[k].kinetic > r.frames[best].kinetic))
        best = k;
    const double a = r.frames[best - 1].kinetic, b = r.frames[best].kinetic, e = r.frames[best + 1].kinetic;
    const double shift = 0.5 * (a - e) / (a - 2.0 * b + e);
    times.push_back(r.frames[best].time + shift * 1e-3);
    inverse_roots.push_back(1.0 / std::sqrt(b - 0.25 * (a - e) * shift));
  }
  REQUIRE(times.size() > 20);
  // Least-squares slope of E^-1/2 against t.
  double mt = 0.0, my = 0.0;
  for (size_t k = 0; k < times.size(); ++k) mt += times[k], my += inverse_roots[k];
  mt /= times.size();
  my /= times.size();
  double stt = 0.0, sty = 0.0;
  for (size_t k = 0; k < times.size(); ++k) {
    stt += (times[k] - mt) * (times[k] - mt);
    sty += (times[k] - mt) * (inverse_roots[k] - my);
  }
  const double drag = 0.5 * kWater * Cdn * d;
  const double expected = 64.0 / (9.0 * M_PI * M_PI) * drag / (std::pow(m, 1.5) * std::sqrt(L));
  std::printf("string mode under drag: E^-1/2 rises %.5f a second over %zu peaks (linearized estimate %.5f)\n",
              sty / stt, times.size(), expected);
  CHECK(sty / stt == Approx(expected).epsilon(0.05));
}
