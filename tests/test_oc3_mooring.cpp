// The OC3-Hywind spar's mooring (Jonkman, NREL/TP-500-47535, 2010): three catenary lines of
// 902.2 m (77.7066 kg/m, diameter 0.09 m, EA = 384,243,000 N) from anchors 853.87 m from the
// spar's axis on the seabed 320 m down to fairleads 5.2 m from it and 70 m down, 120 degrees
// apart. Statics in water: the submerged weight against the report's, a line's touchdown and
// fairlead tension and the platform's surge restoring force against the elastic catenary with a
// seabed segment (solved in contact_models.hpp, independently of the elements).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "catenary/model/case_loader.hpp"
#include "contact_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using nlohmann::json;

namespace {

constexpr double kLength = 902.2, kMass = 77.7066, kDiameter = 0.09, kEA = 384243000.0, kG = 9.80665;
constexpr double kAnchorRadius = 853.87, kFairleadRadius = 5.2, kFairleadHeight = 250.0;  // above the seabed
const double kAzimuths[3] = {M_PI, M_PI / 3.0, -M_PI / 3.0};

// The three lines with the platform moved `surge` along x; the seabed at z = 0, the surface at
// z = 320.
Case oc3_mooring(double surge) {
  json bodies = json::array(), constraints = json::array();
  for (int i = 0; i < 3; ++i) {
    const std::string name = "line" + std::to_string(i + 1);
    const double c = std::cos(kAzimuths[i]), s = std::sin(kAzimuths[i]);
    bodies.push_back({{"name", name},
                      {"element", "cable3d"},
                      {"generator", "straight"},
                      {"start", {kAnchorRadius * c, kAnchorRadius * s, 0.0}},
                      {"end", {kFairleadRadius * c + surge, kFairleadRadius * s, kFairleadHeight}},
                      {"length", kLength},
                      {"elements", 60},
                      {"sag_direction", {0, 0, -1}},
                      {"material", "chain"},
                      {"section", "chain"}});
    constraints.push_back({{"type", "spherical"}, {"node", {{"body", name}, {"index", "start"}}}});
    constraints.push_back({{"type", "spherical"}, {"node", {{"body", name}, {"index", "end"}}}});
  }
  const json c = {
      {"name", "oc3_mooring"},
      {"model",
       {{"dimension", 3},
        {"gravity", {0, 0, -kG}},
        // Unit area: E is EA and the density the mass per length; a chain's small bending stiffness.
        {"materials", {{"chain", {{"youngs_modulus", kEA}, {"density", kMass}}}}},
        {"sections",
         {{"chain",
           {{"shape", "general"}, {"area", 1.0}, {"inertia", 1e-7}, {"hydrodynamics", {{"diameter", kDiameter}}}}}}},
        {"bodies", bodies},
        {"constraints", constraints},
        {"contacts",
         {{{"name", "seabed"},
           {"type", "plane"},
           {"bodies", {"line1", "line2", "line3"}},
           {"point", {0, 0, 0}},
           {"normal", {0, 0, 1}},
           {"law", {{"type", "linear"}, {"stiffness", 1e7}}}}}},
        {"water", {{"density", 1025.0}, {"surface", 320.0}}}}},
      {"analysis", {{"type", "static"}, {"load_steps", 8}, {"max_iterations", 200}}}};
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "catenary_oc3_mooring.json";
  std::ofstream(file) << c.dump();
  return load_case(file.string());
}

// The force of line i on the platform: minus its tension EA (|r'| - 1) along r' at the fairlead.
Eigen::Vector3d fairlead_force(const Model& m, const Eigen::VectorXd& q, int i) {
  const Body& b = m.bodies.at(i);
  const Eigen::Vector3d slope = q.segment<3>(6 * (b.first_node + b.node_count - 1) + 3);
  return -kEA * (slope.norm() - 1.0) * slope.normalized();
}

}  // namespace

TEST_CASE("the OC3-Hywind mooring against the elastic catenary", "[water][statics][contact]") {
  // The submerged weight: the report's 698.094 N/m (its g = 9.80665, rho_w = 1025).
  const double w = (kMass - 1025.0 * M_PI * kDiameter * kDiameter / 4.0) * kG;
  CHECK(w == Approx(698.094).epsilon(1e-5));
  Eigen::Vector3d restoring[2];
  for (int k = 0; k < 2; ++k) {
    const double surge = 5.0 * k;  // 5 m keeps 68 m of the taut line on the seabed
    const Case c = oc3_mooring(surge);
    const testing::RunResult r = testing::run_model(c.model, c.analysis);
    const Eigen::VectorXd& q = r.frames.back().q;
    Eigen::Vector3d total = Eigen::Vector3d::Zero(), expected = Eigen::Vector3d::Zero();
    for (int i = 0; i < 3; ++i) {
      const Eigen::Vector2d anchor(kAnchorRadius * std::cos(kAzimuths[i]), kAnchorRadius * std::sin(kAzimuths[i]));
      const Eigen::Vector2d fairlead(kFairleadRadius * std::cos(kAzimuths[i]) + surge,
                                     kFairleadRadius * std::sin(kAzimuths[i]));
      const double X = (anchor - fairlead).norm();
      const testing::SeabedCatenary line = testing::seabed_catenary(kLength, w, kEA, X, kFairleadHeight);
      const Eigen::Vector2d toward = (anchor - fairlead) / X;
      expected.head<2>() += line.horizontal_tension * toward;
      total += fairlead_force(c.model, q, i);
      if (i == 0 && k == 0) {
        const testing::SeabedLineState state = testing::seabed_line_state(c.model, q, kEA);
        std::printf("OC3 line: touchdown %.3f m (catenary %.3f), fairlead tension %.1f N (%.1f)\n", state.touchdown,
                    line.grounded_length, state.fairlead_tension, line.fairlead_tension);
        REQUIRE_FALSE(state.folded);
        CHECK(state.touchdown == Approx(line.grounded_length).epsilon(1e-2));
        CHECK(state.fairlead_tension == Approx(line.fairlead_tension).epsilon(1e-2));
      }
    }
    restoring[k] = total;
    if (k == 1) {
      std::printf("OC3 mooring surged 5 m: force on the platform along x %.1f N (catenary %.1f), across %.1e N\n",
                  total.x(), expected.x(), total.y());
      CHECK(total.x() == Approx(expected.x()).epsilon(1e-2));
      CHECK(std::fabs(total.y()) < 1e-3 * std::fabs(total.x()));
    }
  }
  // Centred, the three lines' horizontal pulls cancel.
  CHECK(std::fabs(restoring[0].x()) < 1e-3 * std::fabs(restoring[1].x()));
}
