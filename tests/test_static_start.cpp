// A dynamic run that starts from the static equilibrium under its loads (analysis.initial_state:
// "static") stays at rest: the hanging cable and the mooring line on its seabed, shipped as static
// cases, run as dynamics for a second.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "catenary/model/case_loader.hpp"
#include "cli_helpers.hpp"
#include "test_helpers.hpp"

using namespace catenary;

namespace {

struct Motion {
  double during = 0.0;  // the largest distance a node moves during the run
  double start = 0.0;   // how far the start lies from the case's given state
};

// The shipped case's dynamic run from its static equilibrium, both distances over the
// characteristic length.
Motion motion(const std::string& name, const nlohmann::json& initial_state) {
  nlohmann::json c = nlohmann::json::parse(testing::slurp(std::string(CATENARY_SOURCE_DIR) + "/cases/" + name));
  const int load_steps = c["analysis"]["load_steps"];
  c["analysis"] = {{"type", "dynamic"}, {"end_time", 1.0}, {"step", 0.01}, {"alpha", -0.1}, {"max_iterations", 50},
                   {"initial_state", initial_state}};
  if (initial_state.is_object()) c["analysis"]["initial_state"]["load_steps"] = load_steps;
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("catenary_static_start_" + name);
  std::ofstream(file) << c.dump();
  const Case loaded = load_case(file.string());
  const testing::RunResult r = testing::run_model(loaded.model, loaded.analysis, 0.1);
  Motion out;
  for (const testing::StoredFrame& f : r.frames)
    out.during = std::max(out.during, (f.q - r.frames.front().q).cwiseAbs().maxCoeff());
  const Eigen::VectorXd& given = Eigen::Map<const Eigen::VectorXd>(loaded.model.initial_positions.data(),
                                                                  static_cast<Eigen::Index>(loaded.model.node_dof_count()));
  out.start = (r.frames.front().q.head(given.size()) - given).cwiseAbs().maxCoeff();
  out.during /= loaded.model.characteristic_length;
  out.start /= loaded.model.characteristic_length;
  return out;
}

}  // namespace

TEST_CASE("a dynamic run from the static equilibrium stays at rest", "[dynamics][statics]") {
  // The given states (the builder's catenary; the seabed line's straight start) are not in
  // equilibrium: the static start moves them there first, and the dynamics then keeps still.
  const Motion cable = motion("hanging_cable.json", "static");
  const Motion seabed = motion("seabed_mooring_line.json", {{"type", "static"}, {"max_iterations", 200}});
  std::printf("static start: the hanging cable starts %.1e from its given state and moves %.1e; the seabed line "
              "%.1e and %.1e (of their lengths)\n",
              cable.start, cable.during, seabed.start, seabed.during);
  CHECK(cable.start > 1e-6);
  CHECK(seabed.start > 1e-2);
  CHECK(cable.during < 1e-6);
  CHECK(seabed.during < 1e-6);
}
