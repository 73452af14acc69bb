// Mechanisms from case files: the example cases run from the command line, a case-file pendulum
// equals the same model built in C++, the kinematic slider-crank follows its closed form, the
// assembly analysis closes a misplaced joint, and the joint-reaction CSV of a hanging pendulum
// carries m g along the right joint-frame axis.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catenary/model/case_loader.hpp"
#include "catenary/rigid/euler_parameters.hpp"
#include "cli_helpers.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

namespace fs = std::filesystem;
using namespace catenary;
using namespace catenary::testing;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("catenary_mechanism_case_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string write_case(const fs::path& dir, const nlohmann::json& doc) {
  const fs::path file = dir / "case.json";
  std::ofstream(file) << doc.dump(1);
  return file.string();
}

// A CSV as rows of named columns (numbers; the text column "body" is kept in `text`).
struct CsvRow {
  std::map<std::string, double> value;
  std::map<std::string, std::string> text;
};

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  out.push_back(cell);
  return out;
}

std::vector<CsvRow> read_csv(const fs::path& file) {
  std::ifstream in(file);
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_csv_line(line);
  std::vector<CsvRow> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> cells = split_csv_line(line);
    REQUIRE(cells.size() == header.size());
    CsvRow r;
    for (size_t k = 0; k < cells.size(); ++k) {
      if (header[k] == "body")
        r.text[header[k]] = cells[k];
      else
        r.value[header[k]] = std::stod(cells[k]);
    }
    rows.push_back(r);
  }
  return rows;
}

std::string source(const std::string& relative) { return std::string(CATENARY_SOURCE_DIR) + "/" + relative; }

// The pendulum of rigid_pendulum(L, mass, theta0) as a case file.
nlohmann::json pendulum_case(double L, double mass, double theta0, const nlohmann::json& analysis) {
  using nlohmann::json;
  json body = {{"name", "bob"},
               {"mass", mass},
               {"inertia", {0.01, 0.01, 0.01}},
               {"position", {L * std::sin(theta0), -L * std::cos(theta0), 0.0}},
               {"orientation", {{"axis", {0, 0, 1}}, {"angle", theta0}}}};
  json joint = {{"name", "pivot"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "bob"},
                {"point", {0, 0, 0}}, {"axis", {0, 0, 1}}};
  return json{{"name", "pendulum"},
              {"model", {{"dimension", 3}, {"gravity", {0, -9.81, 0}}, {"rigid_bodies", {body}}, {"joints", {joint}}}},
              {"analysis", analysis},
              {"output", {{"vtu", false}}}};
}

}  // namespace

TEST_CASE("the example mechanism cases run from the command line", "[case][multibody]") {
  for (const char* name : {"crane_boom_cable", "slider_crank_kinematic"}) {
    INFO(name);
    const fs::path dir = scratch(name);
    const int code = run_catenary("run " + source(std::string("cases/") + name + ".json") + " --out " +
                                      (dir / "out").string(),
                                  dir / "log.txt");
    INFO(slurp(dir / "log.txt"));
    REQUIRE(code == 0);
    const nlohmann::json summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
    CHECK(summary["status"] == "ok");
    CHECK(summary["output_files"]["rigid_bodies"] == "rigid_bodies.csv");
    const std::vector<CsvRow> bodies = read_csv(dir / "out" / "rigid_bodies.csv");
    const std::vector<CsvRow> reactions = read_csv(dir / "out" / "joint_reactions.csv");
    CHECK(bodies.size() > 50);
    CHECK(reactions.size() > 50);
  }
}

TEST_CASE("crane boom case: the cable stays on the boom tip and the boom swings down", "[case][multibody]") {
  const Case c = load_case(source("cases/crane_boom_cable.json"));
  REQUIRE(c.model.mechanism.attachments.size() == 1);
  const RunResult r = run_model(c.model, c.analysis, c.output.interval);
  REQUIRE(r.summary.status.empty());  // run_model does not set it; a failure throws
  const int node = c.model.mechanism.attachments[0].node;
  double gap = 0.0;
  for (const StoredFrame& f : r.frames) {
    const rigid::BodyState boom = rigid::body_state(f.q.data() + c.model.rigid_offset(), f.v.data() + c.model.rigid_offset());
    const Vec<3> hook = vec_add(boom.r, rigid::rotate(boom.p, c.model.mechanism.attachments[0].point));
    for (int k = 0; k < 3; ++k) gap = std::max(gap, std::fabs(f.q[6 * node + k] - hook[k]));
  }
  CHECK(gap < 1e-9);
  // The boom's centre of mass falls (z < 0) during the second.
  CHECK(r.frames.back().q[c.model.rigid_offset() + 2] < -0.2);
}

TEST_CASE("a case-file pendulum equals the same pendulum built in C++", "[case][multibody]") {
  const double L = 1.0, mass = 2.0, theta0 = 0.5;
  const nlohmann::json analysis = {{"type", "dynamic"}, {"end_time", 1.0}, {"step", 1e-3}, {"alpha", -0.05}};
  const fs::path dir = scratch("pendulum");
  const Case c = load_case(write_case(dir, pendulum_case(L, mass, theta0, analysis)));
  const Model built = rigid_pendulum(L, mass, theta0);
  REQUIRE(c.model.dof_count() == built.dof_count());
  REQUIRE(c.model.constraint_count() == built.constraint_count());
  const AnalysisSettings a = dynamic_settings(1e-3, 1.0, -0.05);
  const RunResult from_file = run_model(c.model, a, 0.1), from_code = run_model(built, a, 0.1);
  REQUIRE(from_file.frames.size() == from_code.frames.size());
  double difference = 0.0;
  for (size_t k = 0; k < from_file.frames.size(); ++k)
    difference = std::max(difference, (from_file.frames[k].q - from_code.frames[k].q).lpNorm<Eigen::Infinity>());
  const double initial = (from_file.frames[0].q - from_code.frames[0].q).lpNorm<Eigen::Infinity>();
  INFO("largest coordinate difference " << difference << ", initially " << initial);
  // The loader's orientation from axis and angle differs from the C++ builder's by an ulp, and each
  // of the 1,000 steps' Newton iterations stops within its tolerance (1e-10 relative) wherever its
  // iterates land: the runs agree to round-off amplified by the steps, far inside that tolerance.
  CHECK(initial < 1e-15);
  CHECK(difference < 1e-11);
  // And it did swing: the bob passes the bottom.
  double lowest_x = 1.0;
  for (const StoredFrame& f : from_file.frames) lowest_x = std::min(lowest_x, f.q[0]);
  CHECK(lowest_x < 0.0);
}

TEST_CASE("kinematic slider-crank case follows the closed-form slider position", "[case][multibody]") {
  const fs::path dir = scratch("slider_crank");
  REQUIRE(run_catenary("run " + source("cases/slider_crank_kinematic.json") + " --out " + (dir / "out").string(),
                       dir / "log.txt") == 0);
  const double r = 0.2, L = 0.6, theta0 = M_PI / 6, omega = 2 * M_PI;
  int checked = 0;
  double worst = 0.0;
  for (const CsvRow& row : read_csv(dir / "out" / "rigid_bodies.csv")) {
    if (row.text.at("body") != "slider") continue;
    const double t = row.value.at("time");
    const double th = theta0 + omega * t, s = std::sin(th), co = std::cos(th);
    const double root = std::sqrt(L * L - r * r * s * s);
    const double x = r * co + root;
    const double xd = -r * s * omega - r * r * s * co * omega / root;
    worst = std::max({worst, std::fabs(row.value.at("x") - x), std::fabs(row.value.at("vx") - xd) * 1e-2});
    ++checked;
  }
  INFO("largest error " << worst << " over " << checked << " frames");
  CHECK(checked == 101);
  CHECK(worst < 1e-10);
}

TEST_CASE("the slider-crank's crank angle in rigid_bodies.csv as Euler angles in both conventions",
          "[case][multibody]") {
  // The crank turns about z by theta = pi/6 + 2 pi t: 1-2-3 angles (0, 0, theta) and, at 3-1-3's
  // singularity b = 0, (theta, 0, 0) (c = 0), both wrapped into [-pi, pi].
  for (const std::string convention : {"123", "313"}) {
    const fs::path dir = scratch("euler_" + convention);
    nlohmann::json document = nlohmann::json::parse(slurp(source("cases/slider_crank_kinematic.json")));
    document["output"]["euler_angles"] = convention;
    document["output"]["vtu"] = false;
    std::ofstream(dir / "case.json") << document.dump();
    REQUIRE(run_catenary("run " + (dir / "case.json").string() + " --out " + (dir / "out").string(), dir / "log.txt") ==
            0);
    double worst = 0.0;
    int checked = 0;
    for (const CsvRow& row : read_csv(dir / "out" / "rigid_bodies.csv")) {
      if (row.text.at("body") != "crank") continue;
      const double theta = std::remainder(M_PI / 6 + 2 * M_PI * row.value.at("time"), 2 * M_PI);
      const double a = convention == "313" ? theta : 0.0, c = convention == "313" ? 0.0 : theta;
      // +-pi name the same turn.
      const double da = std::remainder(row.value.at("euler_a") - a, 2 * M_PI),
                   dc = std::remainder(row.value.at("euler_c") - c, 2 * M_PI);
      worst = std::max({worst, std::fabs(da), std::fabs(row.value.at("euler_b")), std::fabs(dc)});
      ++checked;
    }
    INFO(convention << ": largest error " << worst << " rad over " << checked << " frames");
    CHECK(checked == 101);
    CHECK(worst < 1e-9);
  }
}

TEST_CASE("the assembly analysis moves a misplaced body onto its joint", "[case][multibody]") {
  // The bob's pin (point_j, 0.1 m off the pivot) must meet the pivot (point_i) at the origin.
  nlohmann::json doc = pendulum_case(1.0, 2.0, 0.0, {{"type", "assembly"}});
  doc["model"]["rigid_bodies"][0]["position"] = {0.1, -1.0, 0.0};
  auto& joint = doc["model"]["joints"][0];
  joint.erase("point");
  joint["point_i"] = {0, 0, 0};
  joint["point_j"] = {0.1, 0, 0};
  const fs::path dir = scratch("assembly");
  const std::string file = write_case(dir, doc);
  REQUIRE(run_catenary("run " + file + " --out " + (dir / "out").string(), dir / "log.txt") == 0);
  const std::string log = slurp(dir / "log.txt");
  INFO(log);
  CHECK(log.find("assembly: rigid body 'bob'") != std::string::npos);
  const nlohmann::json summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  CHECK(summary["analysis"] == "assembly");
  CHECK(summary["constraint_violation"].get<double>() < 1e-10);
  REQUIRE(summary["moved"].size() == 1);
  const double moved = summary["moved"][0]["translation"].get<double>(), turned = summary["moved"][0]["rotation"].get<double>();
  CHECK(moved + turned > 0.05);
  // The pin (body point (0, 1, 0) from the centre of mass) is at the origin now.
  const std::vector<CsvRow> rows = read_csv(dir / "out" / "rigid_bodies.csv");
  REQUIRE(rows.size() == 1);
  const CsvRow& b = rows[0];
  const Vec<4> p = vec4(b.value.at("e0"), b.value.at("e1"), b.value.at("e2"), b.value.at("e3"));
  const Vec<3> pin = vec_add(vec3(b.value.at("x"), b.value.at("y"), b.value.at("z")),
                                    rigid::rotate(p, vec3(0, 1, 0)));
  CHECK(vec_norm(pin) < 1e-10);
}

TEST_CASE("joint reactions of a hanging pendulum at rest: m g along the joint frame's axis", "[case][multibody]") {
  const double mass = 2.0, g = 9.81;
  // axis z: joint frame f = x, g = y, h = z (docs/case-format.md): the pivot holds the bob up,
  // +m g along g. axis -z: f = x, g = -y, so -m g. With the bob as body_i, the reported force is
  // the one on the ground (body_j): -m g along g = y.
  struct Variant {
    const char* name;
    std::vector<double> axis;
    bool swap;
    double expected_g;
  };
  const Variant variants[] = {{"axis +z", {0, 0, 1}, false, mass * g},
                              {"axis -z", {0, 0, -1}, false, -mass * g},
                              {"bob as body_i", {0, 0, 1}, true, -mass * g}};
  for (const char* type : {"static", "dynamic"}) {
    for (const Variant& v : variants) {
      INFO(type << ", " << v.name);
      nlohmann::json analysis = {{"type", type}};
      if (std::string(type) == "dynamic") analysis.update({{"end_time", 0.1}, {"step", 1e-3}});
      nlohmann::json doc = pendulum_case(1.0, mass, 0.0, analysis);
      auto& joint = doc["model"]["joints"][0];
      joint["axis"] = v.axis;
      if (v.swap) joint["body_i"] = "bob", joint["body_j"] = "ground";
      // The static solver needs stiffness in the free rotation at load factor 0 (a bare
      // pendulum's Newton matrix is singular there): an unstressed rotational spring at the pivot.
      if (std::string(type) == "static")
        doc["model"]["rotational_springs"] = {{{"name", "spring"}, {"body_i", "ground"}, {"body_j", "bob"},
                                               {"point", {0, 0, 0}}, {"axis", {0, 0, 1}}, {"stiffness", 10.0}}};
      const fs::path dir = scratch(std::string("reaction_") + type);
      const std::string file = write_case(dir, doc);
      REQUIRE(run_catenary("run " + file + " --out " + (dir / "out").string(), dir / "log.txt") == 0);
      const std::vector<CsvRow> rows = read_csv(dir / "out" / "joint_reactions.csv");
      REQUIRE(!rows.empty());
      // Static frames are load steps, time = load factor; the frame at load factor 0 has no load.
      const bool statics = std::string(type) == "static";
      if (statics) {
        REQUIRE(rows.size() == 2);
        CHECK(rows.back().value.at("time") == 1.0);
      }
      for (const CsvRow& r : rows) {
        if (statics && r.value.at("time") == 0.0) continue;
        CHECK(r.value.at("pivot.force_g") == Approx(v.expected_g).epsilon(1e-9));
        CHECK(std::fabs(r.value.at("pivot.force_f")) < 1e-9);
        CHECK(std::fabs(r.value.at("pivot.force_h")) < 1e-9);
        for (const char* c : {"pivot.torque_f", "pivot.torque_g", "pivot.torque_h"}) CHECK(std::fabs(r.value.at(c)) < 1e-9);
        if (std::string(type) == "static") CHECK(std::fabs(r.value.at("spring.torque")) < 1e-9);
      }
    }
  }
}
