// Sweeps: every copy of the shipped sweep, run as one batch, equals a single run of that copy
// (each copy written to its own case file), energies included; the copies' model ranges are
// contiguous; bad sweeps are input errors (tests/bad_cases/sweep_*.json).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "catenary/io/result_comparison.hpp"
#include "catenary/io/sweep_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/model/sweep.hpp"
#include "cli_helpers.hpp"

using namespace catenary;
namespace fs = std::filesystem;

namespace {

// Runs the sweep file as one batch and each copy as its own case; every output file of each copy
// (results.csv, and for rigid bodies rigid_bodies.csv and joint_reactions.csv) must agree.
void check_sweep_copies_equal_single_runs(const std::string& name, const std::vector<std::string>& files) {
  const std::string sweep_file = std::string(CATENARY_SOURCE_DIR) + "/cases/" + name + ".json";
  const fs::path out = fs::temp_directory_path() / ("catenary_sweep_test_" + name);
  fs::remove_all(out);
  fs::create_directories(out);
  REQUIRE(testing::run_catenary("run " + sweep_file + " --out " + (out / "batch").string(), out / "batch.log") == 0);
  const nlohmann::json index = nlohmann::json::parse(testing::slurp(out / "batch" / "sweep.json"));
  REQUIRE(index["copies"].size() == 3);

  std::ifstream in(sweep_file);
  const std::vector<SweepCopyDocument> copies = expand_sweep(nlohmann::json::parse(in), sweep_file);
  REQUIRE(copies.size() == 3);
  for (size_t k = 0; k < copies.size(); ++k) {
    const fs::path single_case = out / ("copy" + std::to_string(k) + ".json");
    std::ofstream(single_case) << copies[k].document.dump(2);
    const fs::path single_dir = out / ("single" + std::to_string(k));
    REQUIRE(testing::run_catenary("run " + single_case.string() + " --out " + single_dir.string(),
                                  out / ("single" + std::to_string(k) + ".log")) == 0);
    for (const std::string& file : files) {
      const fs::path copy_csv = out / "batch" / SweepWriter::copy_directory_name(k) / file;
      // The batch's Newton loop runs until every copy has converged, so copies agree with their
      // single runs to the Newton tolerance, not bit for bit.
      const ComparisonReport report =
          compare_result_files((single_dir / file).string(), copy_csv.string(), ComparisonTolerance{1e-7, 1e-12});
      INFO(name << " copy " << k << " (" << copies[k].label << "), " << file);
      std::string failures;
      for (const ColumnComparison& c : report.columns)
        if (!c.pass) failures += c.name + " (max rel diff " + std::to_string(c.max_rel_diff) + ") ";
      for (const std::string& p : report.problems) failures += p + " ";
      INFO("outside tolerance: " << failures);
      CHECK(report.pass());
    }
    CHECK(index["copies"][k]["label"] == copies[k].label);
  }
}

}  // namespace

TEST_CASE("each copy of a sweep run as one batch equals its single run", "[sweep]") {
  SECTION("cables") { check_sweep_copies_equal_single_runs("cable_sweep", {"results.csv"}); }
  SECTION("initial conditions: free cables thrown with their own velocities and spins") {
    check_sweep_copies_equal_single_runs("cable_throw_sweep", {"results.csv"});
  }
  SECTION("a rigid boom with a hanging rope") {
    check_sweep_copies_equal_single_runs("crane_sweep", {"results.csv", "rigid_bodies.csv", "joint_reactions.csv"});
  }
}

TEST_CASE("merged copies occupy contiguous ranges and keep their own length scales", "[sweep]") {
  const std::vector<SweepCase> cases = load_cases(std::string(CATENARY_SOURCE_DIR) + "/cases/cable_sweep.json");
  std::vector<const Model*> models;
  for (const SweepCase& s : cases) models.push_back(&s.c.model);
  std::vector<CopyRange> ranges;
  const Model batch = merge_models(models, ranges);
  REQUIRE(ranges.size() == 3);
  int dofs = 0, rows = 0;
  for (size_t k = 0; k < ranges.size(); ++k) {
    REQUIRE(static_cast<int>(ranges[k].dofs.size()) == models[k]->dof_count());
    REQUIRE(static_cast<int>(ranges[k].rows.size()) == models[k]->constraint_count());
    CHECK(ranges[k].dofs.front() == dofs);  // cables only: one run each
    CHECK(ranges[k].rows.front() == rows);
    dofs += models[k]->dof_count();
    rows += models[k]->constraint_count();
    for (int d = 0; d < models[k]->dof_count(); ++d)
      CHECK(batch.initial_positions[ranges[k].dofs[d]] == models[k]->initial_positions[d]);
    CHECK(batch.node_length_scale[ranges[k].first_node] == models[k]->characteristic_length);
  }
  CHECK(batch.dof_count() == dofs);
  CHECK(batch.constraint_count() == rows);
}
