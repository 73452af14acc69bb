// A run a coupling program drives (run/coupled_run.hpp): fed, step by step, the values and rates of
// a harmonic path at the integrator's own step times, it computes what the case's own run along the
// same harmonic path computes; the loads it reports are the attachments' pull, whose torque is the
// lever arm times the force for pinned attachments.
#include <catch2/catch.hpp>

#include <Eigen/Geometry>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "catenary/model/case_loader.hpp"
#include "catenary/model/multibody_layout.hpp"
#include "catenary/run/coupled_run.hpp"
#include "test_helpers.hpp"

namespace {

using namespace catenary;
using json = nlohmann::json;

// A 30 m rope from an anchor on the ground to a 2 t buoy 10 m above it, the buoy moved along
// `motion`: "coupled", or a harmonic path (kHarmonic).
json moored_buoy(const json& motion) {
  return {{"name", "moored_buoy"},
          {"model",
           {{"dimension", 3},
            {"gravity", {0, 0, -9.81}},
            {"materials", {{"rope", {{"youngs_modulus", 2e9}, {"density", 1500}}}}},
            {"sections", {{"rope", {{"shape", "circle"}, {"diameter", 0.05}}}}},
            {"bodies",
             {{{"name", "rope"},
               {"element", "cable3d"},
               {"generator", "straight"},
               {"start", {0, 0, 0}},
               {"end", {25, 0, 10}},
               {"length", 30},
               {"sag_direction", {0, 0, -1}},
               {"elements", 12},
               {"material", "rope"},
               {"section", "rope"}}}},
            {"constraints", {{{"type", "spherical"}, {"name", "anchor"}, {"node", {{"body", "rope"}, {"index", "start"}}}}}},
            {"rigid_bodies",
             {{{"name", "buoy"}, {"mass", 2000}, {"inertia", {800, 800, 500}}, {"position", {25, 0, 11}}, {"motion", motion}}}},
            {"attachments",
             {{{"name", "fairlead"}, {"node", {{"body", "rope"}, {"index", "end"}}}, {"rigid_body", "buoy"}}}}}},
          {"analysis",
           {{"type", "dynamic"},
            {"end_time", 1.0},
            {"step", 0.01},
            {"alpha", -0.1},
            {"initial_state", {{"type", "static"}, {"load_steps", 4}}}}}};
}

// Ramped in over 0.5 s: at rest at t = 0, where a coupled body starts.
const json kHarmonic = {
    {"x", {{"type", "harmonic"}, {"amplitude", 1.5}, {"frequency", 0.2}, {"ramp", 0.5}}},
    {"z", {{"type", "harmonic"}, {"amplitude", 0.4}, {"frequency", 0.2}, {"phase", 0.5}, {"ramp", 0.5}}},
    {"roll", {{"type", "harmonic"}, {"amplitude", 0.05}, {"frequency", 0.2}, {"ramp", 0.5}}}};

Case load(const json& document, const std::string& name) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("catenary_coupled_" + name + ".json");
  std::ofstream(file) << document.dump();
  return load_case(file.string());
}

// The mechanism's coordinates and multipliers of a frame.
struct MechanismState {
  Eigen::VectorXd x, mu;
};
MechanismState mechanism_state(const Model& m, const testing::StoredFrame& f) {
  const MultibodyLayout layout = multibody_layout(m);
  MechanismState s{Eigen::VectorXd(static_cast<Eigen::Index>(layout.dofs.size())),
                   f.lambda.segment(layout.first_row, layout.rows)};
  for (size_t k = 0; k < layout.dofs.size(); ++k) s.x[static_cast<Eigen::Index>(k)] = f.q[layout.dofs[k]];
  return s;
}

}  // namespace

TEST_CASE("a coupled run fed a harmonic path's values and rates follows the case's harmonic run",
          "[coupling][dynamics]") {
  const Case harmonic = load(moored_buoy(kHarmonic), "harmonic");
  const testing::RunResult reference = testing::run_model(harmonic.model, harmonic.analysis);
  const Mechanism& mech = harmonic.model.mechanism;
  const BodyMotion& path = mech.motions.at(0);

  CoupledRun coupled(load(moored_buoy("coupled"), "coupled"), BackendChoice::Cpu);
  REQUIRE(coupled.coupled_bodies() == std::vector<std::string>{"buoy"});
  coupled.initialize(true);
  double largest_force = 0.0, largest_difference = 0.0;
  for (const testing::StoredFrame& frame : reference.frames) {
    if (frame.time > 0.0) {
      double motion[6], rates[6];
      for (int k = 0; k < 6; ++k) {
        const TimeFunction& f = k < 3 ? path.translation[k] : path.rotation[k - 3];
        motion[k] = f.value(frame.time);
        rates[k] = f.first_derivative(frame.time);
      }
      coupled.advance(frame.time, motion, rates);
    }
    REQUIRE(coupled.time() == Approx(frame.time).margin(1e-12));
    const MechanismState s = mechanism_state(harmonic.model, frame);
    const JointReaction expected = attachment_loads(mech, 0, s.x, s.mu);
    const std::vector<double> loads = coupled.loads();
    for (int k = 0; k < 3; ++k) {
      largest_force = std::max(largest_force, std::abs(expected.force[k]));
      largest_difference = std::max({largest_difference, std::abs(loads[k] - expected.force[k]),
                                     std::abs(loads[3 + k] - expected.torque[k]) / 10.0});  // 10 m lever arms
    }
  }
  INFO("largest force " << largest_force << " N, largest difference " << largest_difference << " N");
  CHECK(largest_force > 1e3);  // the rope weighs 865 N
  CHECK(largest_difference < 1e-7 * largest_force);
  CHECK(coupled.summary().steps == reference.summary.steps);
}

TEST_CASE("the loads of pinned attachments: the force on the body and its moment about the centre of mass",
          "[coupling][multibody]") {
  const Case c = load(moored_buoy(kHarmonic), "loads");
  AnalysisSettings statics;
  statics.type = AnalysisSettings::Type::Static;
  const testing::RunResult r = testing::run_model(c.model, statics);
  const testing::StoredFrame& f = r.frames.back();
  const MechanismState s = mechanism_state(c.model, f);
  const JointReaction loads = attachment_loads(c.model.mechanism, 0, s.x, s.mu);
  // The node pulls the body with +lambda (the output's fairlead.f is the body's pull on the node).
  const int row = c.model.mechanism.attachment_row(0);
  const Eigen::Vector3d force = s.mu.segment<3>(row);
  const Body& rope = c.model.bodies.at(0);
  const Eigen::Vector3d node = f.q.segment<3>(6 * (rope.first_node + rope.node_count - 1));
  const Eigen::Vector3d centre = s.x.segment<3>(0);
  const Eigen::Vector3d torque = (node - centre).cross(force);
  for (int k = 0; k < 3; ++k) {
    CHECK(loads.force[k] == Approx(force[k]).margin(1e-9 * force.norm()));
    CHECK(loads.torque[k] == Approx(torque[k]).margin(1e-9 * torque.norm()));
  }
  CHECK(force[2] < 0.0);  // the rope hangs from the buoy
}
