// Inputs made to break the reader rather than to describe a model: documents nested far deeper
// than any case, files that are devices, pipes or too large, and models of very many bodies,
// each refused (or read) with an InputError and within bounded time and memory.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/sweep.hpp"
#include "test_helpers.hpp"

namespace {

namespace fs = std::filesystem;

fs::path scratch_directory(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("catenary_hostile_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The rule of the InputError that loading `path` throws; fails the test where nothing is thrown.
std::string refusal(const std::string& path, std::string* json_path = nullptr) {
  try {
    catenary::load_cases(path);
  } catch (const catenary::InputError& e) {
    if (json_path) *json_path = e.json_path();
    return e.rule();
  }
  FAIL("no InputError for " << path);
  return {};
}

// A 3D cable case of `bodies` one-element bodies side by side, each pinned at its start.
std::string many_bodies_case(int bodies) {
  std::string text = R"({"name": "many", "model": {"dimension": 3,
    "materials": {"steel": {"youngs_modulus": 2e11, "density": 7800}},
    "sections": {"rod": {"shape": "circle", "diameter": 0.01}}, "bodies": [)";
  std::string constraints;
  for (int b = 0; b < bodies; ++b) {
    const std::string name = "b" + std::to_string(b), y = std::to_string(0.1 * b);
    text += std::string(b ? "," : "") + R"({"name": ")" + name + R"(", "element": "cable3d", "generator": "straight",
      "start": [0, )" + y + R"(, 0], "end": [1, )" + y + R"(, 0], "elements": 1, "material": "steel", "section": "rod"})";
    constraints += std::string(b ? "," : "") + R"({"type": "spherical", "node": {"body": ")" + name +
                   R"(", "index": "start"}})";
  }
  return text + "], \"constraints\": [" + constraints +
         R"(]}, "analysis": {"type": "dynamic", "end_time": 0.01, "step": 0.001}})";
}

}  // namespace

TEST_CASE("a document nested 150,000 deep is refused at the nesting limit, without recursion",
          "[loader][hostile]") {
  const fs::path file = scratch_directory("deep") / "deep.json";
  std::ofstream(file) << "{\"name\": \"deep\", \"model\": " << std::string(150000, '[') << std::string(150000, ']')
                      << "}";
  std::string path;
  const std::string rule = refusal(file.string(), &path);
  CHECK(rule.find("nested deeper than 64 arrays and objects (line 1)") != std::string::npos);
  std::string expected = "/model";
  for (int level = 1; level < 64; ++level) expected += "/0";  // the root object is the first level
  CHECK(path == expected);
}

TEST_CASE("devices, pipes and oversized files are not read as cases", "[loader][hostile]") {
  const fs::path dir = scratch_directory("files");
  for (const char* device : {"/dev/zero", "/dev/urandom"})
    if (fs::exists(device)) CHECK(refusal(device).find("is not a regular file") != std::string::npos);
  const fs::path fifo = dir / "pipe.json";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(refusal(fifo.string()).find("is not a regular file") != std::string::npos);
  // A sparse file just over the limit: refused from its size, before a byte is read.
  const fs::path large = dir / "large.json";
  std::ofstream(large) << "{}";
  fs::resize_file(large, (std::uintmax_t(64) << 20) + 1);
  CHECK(refusal(large.string()).find("is 67108865 bytes; a case file may have at most 67108864 bytes") !=
        std::string::npos);
}

TEST_CASE("a model of 100,000 bodies is read in linear time", "[loader][hostile]") {
  const fs::path dir = scratch_directory("bodies");
  // Time per body at 10,000 and at 100,000 bodies: quadratic reading would make the second ten
  // times the first; allow three for the machine's noise.
  double seconds_per_body[2] = {0.0, 0.0};
  const int counts[2] = {10000, 100000};
  for (int k = 0; k < 2; ++k) {
    const fs::path file = dir / ("many" + std::to_string(counts[k]) + ".json");
    std::ofstream(file) << many_bodies_case(counts[k]);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<catenary::SweepCase> cases = catenary::load_cases(file.string());
    seconds_per_body[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / counts[k];
    REQUIRE(cases.size() == 1);
    CHECK(cases[0].c.model.bodies.size() == static_cast<size_t>(counts[k]));
    CHECK(cases[0].c.model.constraint_count() == 3 * counts[k]);
  }
  INFO("seconds per body: " << seconds_per_body[0] << " at 10,000, " << seconds_per_body[1] << " at 100,000");
  CHECK(seconds_per_body[1] < 3.0 * seconds_per_body[0]);
}

TEST_CASE("a sweep of ten million copies is refused from one copy's measured memory, before it expands",
          "[loader][hostile][sweep]") {
  const fs::path dir = scratch_directory("sweep");
  std::ifstream in(std::string(CATENARY_SOURCE_DIR) + "/cases/cable_sweep.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["sweep"] = {{"parameters",
                   {{{"path", "/model/materials/polymer/youngs_modulus"},
                     {"values", {{"from", 1e7}, {"to", 1e9}, {"count", 10000000}}}}}}};
  const fs::path file = dir / "huge_sweep.json";
  std::ofstream(file) << doc.dump();
  const auto start = std::chrono::steady_clock::now();
  std::string path;
  const std::string rule = refusal(file.string(), &path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(path == "/sweep");
  CHECK(rule.find("the 10000000 copies selected would take") != std::string::npos);
  CHECK(rule.find("split the sweep with --part K/N") != std::string::npos);
  CHECK(seconds < 5.0);
  // A part of it loads, and the whole of it checks one copy at a time.
  catenary::CopySelection some = catenary::parse_copy_range("9999990-9999999");
  const std::vector<catenary::SweepCase> last = catenary::load_cases(file.string(), some);
  REQUIRE(last.size() == 10);
  CHECK(last.back().c.model.elements.properties[0].EA ==
        Approx(1e9 * M_PI * 0.01 * 0.01).epsilon(1e-12));  // the range's end, exactly 1e9 Pa
  CHECK(catenary::check_cases(file.string(), catenary::parse_copy_range("0-999")) == 1000);
}

TEST_CASE("a failure at the initial state names the time, the coordinate and the cause", "[hostile][initial]") {
  using namespace catenary;
  // A cable whose node 2 starts at a position that is not a number: its forces are not finite.
  Model m;
  m.dimension = 3;
  add_straight_line(m, "rope", {0, 0, 0}, {1, 0, 0}, 4, {1e5, 1.0, 1.0, 0.0});
  finalize_model(m);
  add_spherical_to_ground(m, 0, {0, 0, 0}, "pin", "/constraints/0");
  m.initial_positions[6 * 2 + 1] = std::nan("");
  CpuBackend backend(m);
  System sys(m, backend);
  try {
    consistent_initial_state(sys, 0.0);
    FAIL("no SimulationError");
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.rfind("at the initial state (t = 0 s): the initial accelerations are not finite", 0) == 0);
    CHECK(what.find("the forces at the initial positions are not finite, first at body 'rope' node 1") !=
          std::string::npos);
    CHECK(e.dof() >= 0);
  }
  // A coordinate fixed twice makes the constraint rows dependent: the factorization of the initial
  // state's matrix fails, and the message says when.
  Model twice;
  twice.dimension = 3;
  add_straight_line(twice, "rope", {0, 0, 0}, {1, 0, 0}, 4, {1e5, 1.0, 1.0, 0.0});
  finalize_model(twice);
  add_fix(twice, 0, {0, 1, 2}, "pin", "/constraints/0");
  add_fix(twice, 0, {0}, "again", "/constraints/1");
  CpuBackend twice_backend(twice);
  System twice_sys(twice, twice_backend);
  CHECK_THROWS_WITH(consistent_initial_state(twice_sys, 0.0), Catch::StartsWith("at the initial state (t = 0 s): "));
}

TEST_CASE("an adaptive run stops with an error at max_steps, a fixed step's output interval is bounded by it",
          "[hostile][steps]") {
  using namespace catenary;
  AnalysisSettings a = testing::dynamic_settings(1e-3, 0.5, -0.1);
  a.dynamics.adaptive = true;
  a.dynamics.max_steps = 5;
  CHECK_THROWS_WITH(testing::run_model(falling_cable_pendulum(4), a),
                    Catch::Contains("after 5 steps, the limit max_steps"));
  // A library caller's interval that would give more frames than max_steps allows is refused.
  a.dynamics.adaptive = false;
  a.dynamics.max_steps = 1000;
  CHECK_THROWS_AS(testing::run_model(falling_cable_pendulum(4), a, 1e-20), std::invalid_argument);
}
