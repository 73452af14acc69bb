// The tension along lines: a rope hanging under its weight carries the weight below each point,
// under either strain law; results.csv's node column and summary.json's largest tension of a line.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catenary/model/builders.hpp"
#include "catenary/model/line_tension.hpp"
#include "cli_helpers.hpp"
#include "test_helpers.hpp"

using namespace catenary;

TEST_CASE("a hanging rope's tension is the weight below each point, under both strain laws", "[output][statics]") {
  // 10 m of 2 kg/m (EA = 1e5 N: a 0.2 % stretch at the top), pinned at its top, statics: the
  // tension at the material point s (reference arc length from the top) is w (L - s), however the
  // rope stretches, for the law's own tension (Reissner: EA (lambda - 1); Green-Lagrange:
  // EA eps lambda).
  for (const StrainLaw law : {StrainLaw::reissner, StrainLaw::green_lagrange}) {
    Model m;
    m.dimension = 3;
    m.gravity[2] = -9.81;
    LineProperties props{1e5, 1e-2, 2.0, 0.0};
    props.strain_law = law;
    const int elements = 20;
    add_straight_line(m, "rope", {0, 0, 0}, {0, 0, -10}, elements, props);
    finalize_model(m);
    add_spherical_to_ground(m, 0, {0, 0, 0}, "pin", "");
    const testing::RunResult r = testing::run_model(m, testing::static_settings(1));
    const Eigen::VectorXd& q = r.frames.back().q;
    const Eigen::VectorXd v = Eigen::VectorXd::Zero(q.size());
    const double w = 2.0 * 9.81;
    double worst = 0.0;
    for (int node = 0; node <= elements; ++node) {
      const double T = node_tension(m, element_on_node(m, node), q, v), expected = w * 10.0 * (1.0 - node / 20.0);
      worst = std::max(worst, std::fabs(T - expected) / (w * 10.0));
    }
    std::printf("hanging rope, %s law: tension against the weight below, largest error %.1e of w L\n",
                law == StrainLaw::reissner ? "Reissner" : "Green-Lagrange", worst);
    CHECK(worst < 1e-6);
    const std::vector<LineTension> largest = largest_line_tensions(m, q, v);
    REQUIRE(largest.size() == 1);
    CHECK(largest[0].node == 0);
    CHECK(largest[0].value == Approx(w * 10.0).epsilon(1e-6));
  }
}

TEST_CASE("results.csv's node tension and summary.json's largest line tension", "[output][cli]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "catenary_line_tension";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const nlohmann::json c = {
      {"name", "hanging rope"},
      {"model",
       {{"dimension", 3},
        {"gravity", {0, 0, -9.81}},
        {"materials", {{"rope", {{"youngs_modulus", 1e9}, {"density", 2e4}}}}},
        {"sections", {{"rope", {{"shape", "general"}, {"area", 1e-4}, {"inertia", 1e-10}}}}},
        {"bodies",
         {{{"name", "rope"}, {"element", "cable3d"}, {"generator", "straight"}, {"start", {0, 0, 0}},
           {"end", {0, 0, -10}}, {"elements", 10}, {"material", "rope"}, {"section", "rope"}}}},
        {"constraints", {{{"type", "spherical"}, {"node", {{"body", "rope"}, {"index", "start"}}}}}}}},
      {"analysis", {{"type", "static"}}},
      {"output", {{"vtu", false}, {"tensions", {{{"body", "rope"}, {"index", "start"}}, {{"body", "rope"}, {"index", 5}}}}}}};
  std::ofstream(dir / "case.json") << c.dump();
  REQUIRE(testing::run_catenary("run " + (dir / "case.json").string() + " --out " + (dir / "out").string(),
                                dir / "log") == 0);
  const std::string table = testing::slurp(dir / "out" / "results.csv");
  const auto fields = [](const std::string& line) {
    std::vector<std::string> out(1);
    for (const char c : line) {
      if (c == ',')
        out.emplace_back();
      else
        out.back().push_back(c);
    }
    return out;
  };
  const std::vector<std::string> header = fields(table.substr(0, table.find('\n')));
  const std::vector<std::string> last = fields(table.substr(table.rfind('\n', table.size() - 2) + 1));
  const auto column = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    REQUIRE(at != header.end());
    return std::stod(last.at(at - header.begin()));
  };
  // The equilibrium: 196.2 N at the pin, half that at node 5 (the middle).
  CHECK(column("rope.start.tension") == Approx(196.2).epsilon(1e-6));
  CHECK(column("rope.5.tension") == Approx(98.1).epsilon(1e-6));
  const nlohmann::json summary = nlohmann::json::parse(testing::slurp(dir / "out" / "summary.json"));
  // 2 kg/m over 10 m: 196.2 N at the pin.
  CHECK(summary["line_tensions"]["rope"]["largest"].get<double>() == Approx(196.2).epsilon(1e-6));
  CHECK(summary["line_tensions"]["rope"]["node"] == 0);
}
