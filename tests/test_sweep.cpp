// Sweeps: every copy of the shipped sweep, run as one batch, equals a single run of that copy
// (each copy written to its own case file), energies included; the copies' model ranges are
// contiguous; bad sweeps are input errors (tests/bad_cases/sweep_*.json).
#include <sys/wait.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "catenary/io/result_comparison.hpp"
#include "catenary/io/sweep_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/model/sweep.hpp"
#include "catenary/run/run_sweep.hpp"
#include "cli_helpers.hpp"

using namespace catenary;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');) fields.push_back(field);
  return fields;
}

std::string last_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// A statistic of output.statistics (ColumnStatistic::name: "max(C)", "min(C)", "max_abs(C)" or
// "C@T"), taken here from the copy's results.csv: over its rows, or linear between the rows
// around T.
double statistic_from_results(const fs::path& results, const std::string& name) {
  std::ifstream in(results);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_fields(line);
  const size_t open = name.find('('), at = name.rfind('@');
  const bool timed = open == std::string::npos;
  const std::string kind = timed ? "at" : name.substr(0, open);
  const std::string column = timed ? name.substr(0, at) : name.substr(open + 1, name.size() - open - 2);
  const double time = timed ? std::stod(name.substr(at + 1)) : 0.0;
  const size_t c = static_cast<size_t>(std::find(header.begin(), header.end(), column) - header.begin());
  REQUIRE(c < header.size());
  double result = kind == "min" ? INFINITY : -INFINITY, t0 = 0.0, x0 = 0.0;
  bool first = true;
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = split_fields(line);
    const double t = std::stod(fields[0]), x = std::stod(fields[c]);
    if (kind == "max") result = std::max(result, x);
    if (kind == "min") result = std::min(result, x);
    if (kind == "max_abs") result = std::max(result, std::abs(x));
    if (kind == "at" && t >= time) return first ? x : x0 + (x - x0) * (time - t0) / (t - t0);
    t0 = t, x0 = x, first = false;
  }
  return result;
}

// The sweep's table (sweep.csv): a row a copy, its number, each parameter's value (a column a
// vector component, named PATH/i) as the copy's document has it, its status (every copy here ran
// to its end), then its results.csv's last row as written there.
void check_copy_table(const fs::path& table, const fs::path& dir, const SweepCopies& copies) {
  std::ifstream in(table);
  std::string header_line;
  REQUIRE(std::getline(in, header_line));
  const std::vector<std::string> header = split_fields(header_line);
  REQUIRE(header.front() == "copy");
  size_t parameter_columns = 1;
  while (parameter_columns < header.size() && header[parameter_columns][0] == '/') ++parameter_columns;
  for (size_t k = 0; k < copies.size(); ++k) {
    std::string row;
    REQUIRE(std::getline(in, row));
    const std::vector<std::string> fields = split_fields(row);
    INFO("copy " << k << ": " << row);
    CHECK(fields.front() == std::to_string(k));
    const SweepCopyDocument copy = copies[k];
    for (size_t c = 1; c < parameter_columns; ++c) {
      const std::string& name = header[c];
      const bool component = !copy.values.contains(name);
      const std::string path = component ? name.substr(0, name.rfind('/')) : name;
      const nlohmann::json& value = copy.values.at(path);
      const double expected = component ? value.at(std::stoul(name.substr(name.rfind('/') + 1))).get<double>()
                                        : value.get<double>();
      CHECK(std::stod(fields[c]) == expected);
    }
    REQUIRE(header[parameter_columns] == "status");
    CHECK(fields[parameter_columns] == "ok");
    const fs::path results = dir / SweepWriter::copy_directory_name(k) / "results.csv";
    const std::string last_row = last_line(results);
    size_t at = 0;
    for (size_t c = 0; c <= parameter_columns; ++c) at = row.find(',', at) + 1;
    CHECK(row.substr(at, last_row.size()) == last_row);
    std::ifstream results_file(results);
    std::string results_header;
    std::getline(results_file, results_header);
    size_t header_at = 0;
    for (size_t c = 0; c <= parameter_columns; ++c) header_at = header_line.find(',', header_at) + 1;
    CHECK(header_line.substr(header_at, results_header.size()) == results_header);
    // Then the lines' extremes over the run, as the copy's summary.json reports them.
    if (header_line.size() == header_at + results_header.size()) continue;
    const std::vector<std::string> names = split_fields(header_line.substr(header_at + results_header.size() + 1));
    const std::vector<std::string> values = split_fields(row.substr(at + last_row.size() + 1));
    REQUIRE(values.size() == names.size());
    const nlohmann::json summary =
        nlohmann::json::parse(testing::slurp(dir / SweepWriter::copy_directory_name(k) / "summary.json"));
    const std::vector<std::pair<std::string, std::pair<const char*, const char*>>> reported = {
        {".largest_tension", {"line_tensions", "largest"}}, {".largest_tension_time", {"line_tensions", "time"}},
        {".touchdown_smallest", {"touchdowns", "smallest"}}, {".touchdown_largest", {"touchdowns", "largest"}}};
    for (size_t c = 0; c < names.size(); ++c) {
      if (summary.contains("statistics") && summary["statistics"].contains(names[c])) {
        INFO(names[c]);
        CHECK(std::stod(values[c]) == summary["statistics"][names[c]].get<double>());
        CHECK(std::stod(values[c]) == Approx(statistic_from_results(results, names[c])).epsilon(1e-12));
        continue;
      }
      bool known = false;
      for (const auto& [suffix, key] : reported) {
        const size_t cut = names[c].size() - suffix.size();
        if (names[c].size() <= suffix.size() || names[c].substr(cut) != suffix) continue;
        INFO(names[c]);
        CHECK(std::stod(values[c]) == summary.at(key.first).at(names[c].substr(0, cut)).at(key.second).get<double>());
        known = true;
      }
      CHECK(known);
    }
  }
  std::string extra;
  CHECK_FALSE(std::getline(in, extra));
}

// An output file a copy's run writes and the relative tolerance it must agree to.
struct ComparedFile {
  ComparedFile(const char* file, double tolerance = 1e-7) : name(file), relative(tolerance) {}
  std::string name;
  double relative;
};

// Runs the sweep file as one batch and each copy as its own case; every output file of each copy
// (results.csv, and for rigid bodies rigid_bodies.csv and joint_reactions.csv) must agree.
void check_sweep_copies_equal_single_runs(const std::string& name, const std::vector<ComparedFile>& files) {
  const std::string sweep_file = std::string(CATENARY_SOURCE_DIR) + "/cases/" + name + ".json";
  const fs::path out = fs::temp_directory_path() / ("catenary_sweep_test_" + name);
  fs::remove_all(out);
  fs::create_directories(out);
  REQUIRE(testing::run_catenary("run " + sweep_file + " --out " + (out / "batch").string(), out / "batch.log") == 0);
  const nlohmann::json index = nlohmann::json::parse(testing::slurp(out / "batch" / "sweep.json"));
  REQUIRE(index["copies"].size() == 3);

  std::ifstream in(sweep_file);
  const SweepCopies copies(nlohmann::json::parse(in), sweep_file);
  REQUIRE(copies.size() == 3);
  for (size_t k = 0; k < copies.size(); ++k) {
    const fs::path single_case = out / ("copy" + std::to_string(k) + ".json");
    std::ofstream(single_case) << copies[k].document.dump(2);
    const fs::path single_dir = out / ("single" + std::to_string(k));
    REQUIRE(testing::run_catenary("run " + single_case.string() + " --out " + single_dir.string(),
                                  out / ("single" + std::to_string(k) + ".log")) == 0);
    for (const ComparedFile& compared : files) {
      const std::string& file = compared.name;
      const fs::path copy_csv = out / "batch" / SweepWriter::copy_directory_name(k) / file;
      // The batch's Newton loop runs until every copy has converged, so copies agree with their
      // single runs to the Newton tolerance, not bit for bit.
      const ComparisonReport report =
          compare_result_files((single_dir / file).string(), copy_csv.string(), ComparisonTolerance{compared.relative, 1e-12});
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
  check_copy_table(out / "batch" / "sweep.csv", out / "batch", copies);
}

// Whether every column of two results.csv agrees to the Newton tolerance (see above).
bool results_agree(const fs::path& a, const fs::path& b) {
  const ComparisonReport report = compare_result_files(a.string(), b.string(), ComparisonTolerance{1e-7, 1e-12});
  for (const std::string& p : report.problems) UNSCOPED_INFO(p);
  return report.pass();
}

}  // namespace

TEST_CASE("sweep values from ranges, and every combination with \"combine\": \"grid\"", "[sweep]") {
  std::ifstream in(std::string(CATENARY_SOURCE_DIR) + "/cases/cable_sweep.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  const std::string E = "/model/materials/polymer/youngs_modulus", end = "/model/bodies/0/end";
  doc["sweep"] = {{"combine", "grid"},
                  {"parameters",
                   {{{"path", E}, {"values", {{"from", 1e7}, {"to", 1e9}, {"count", 3}, {"spacing", "log"}}}},
                    {{"path", end}, {"values", {{0.8, 0, 0}, {1.2, 0, 0}}}}}}};
  const SweepCopies grid(doc, "grid.json");
  REQUIRE(grid.size() == 6);
  const double moduli[3] = {1e7, 1e8, 1e9};
  for (size_t c = 0; c < 6; ++c) {
    INFO("copy " << c << ": " << grid[c].label);
    const double modulus = grid[c].document[nlohmann::json::json_pointer(E)].get<double>();
    CHECK(modulus == Approx(moduli[c / 2]).epsilon(1e-15));  // the last parameter varies fastest
    CHECK(grid[c].document[nlohmann::json::json_pointer(end)][0].get<double>() == (c % 2 == 0 ? 0.8 : 1.2));
    CHECK(grid[c].values[E] == grid[c].document[nlohmann::json::json_pointer(E)]);
    CHECK_FALSE(grid[c].document.contains("sweep"));
  }
  CHECK(grid[0].document[nlohmann::json::json_pointer(E)].get<double>() == 1e7);  // the ends exactly
  CHECK(grid[5].document[nlohmann::json::json_pointer(E)].get<double>() == 1e9);

  // Together (the default): a linear vector range beside a list of the same length.
  doc["sweep"] = {{"parameters",
                   {{{"path", end}, {"values", {{"from", {1, 0, 0}}, {"to", {2, 0, 1}}, {"count", 5}}}},
                    {{"path", E}, {"values", {1e7, 2e7, 3e7, 4e7, 5e7}}}}}};
  const SweepCopies together(doc, "together.json");
  REQUIRE(together.size() == 5);
  for (size_t c = 0; c < 5; ++c) {
    const SweepCopyDocument copy = together[c];
    const nlohmann::json& e = copy.document[nlohmann::json::json_pointer(end)];
    CHECK(e[0].get<double>() == Approx(1.0 + 0.25 * c).epsilon(1e-15));
    CHECK(e[1].get<double>() == 0.0);
    CHECK(e[2].get<double>() == Approx(0.25 * c).epsilon(1e-15));
    CHECK(together[c].document[nlohmann::json::json_pointer(E)].get<double>() == 1e7 * (c + 1));
  }
  // Lists of different lengths vary together only in a grid.
  doc["sweep"]["parameters"][1]["values"] = {1e7, 2e7};
  CHECK_THROWS_WITH(SweepCopies(doc, "x.json"), Catch::Contains("\"combine\": \"grid\" runs every combination"));
  doc["sweep"]["combine"] = "grid";
  CHECK(SweepCopies(doc, "x.json").size() == 10);
}

TEST_CASE("a sweep's parts (run --part / --copies) cover its copies once each, in nearly equal runs", "[sweep]") {
  for (size_t copies = 1; copies <= 40; ++copies)
    for (size_t n = 1; n <= copies; ++n) {
      size_t next = 0;
      for (size_t k = 0; k < n; ++k) {
        const auto [first, last] = selected_copies(parse_copy_part(std::to_string(k) + "/" + std::to_string(n)), copies);
        INFO(copies << " copies, part " << k << " of " << n);
        REQUIRE(first == next);
        REQUIRE(last >= first);
        const size_t size = last - first + 1;
        CHECK((size == copies / n || size == copies / n + 1));
        next = last + 1;
      }
      CHECK(next == copies);
    }
  CHECK(selected_copies(parse_copy_range("7"), 10) == std::pair<size_t, size_t>{7, 7});
  CHECK(selected_copies(parse_copy_range("2-9"), 10) == std::pair<size_t, size_t>{2, 9});
  CHECK_THROWS_WITH(selected_copies(parse_copy_range("2-10"), 10),
                    "--copies 2-10 names copies the sweep does not have (the sweep has 10 copies, 0 to 9)");
  CHECK_THROWS_WITH(selected_copies(parse_copy_part("0/11"), 10), Catch::Contains("more parts than copies"));
  for (const char* bad : {"", "-1", "3-", "a", "1-2-3", "5-2", " 1"}) CHECK_THROWS(parse_copy_range(bad));
  for (const char* bad : {"", "1", "2/2", "0/0", "-1/2", "1/x"}) CHECK_THROWS(parse_copy_part(bad));
}

TEST_CASE("a sweep split over jobs: each part's copies equal the whole batch's", "[sweep]") {
  const std::string sweep_file = std::string(CATENARY_SOURCE_DIR) + "/cases/cable_throw_sweep.json";
  const fs::path out = fs::temp_directory_path() / "catenary_sweep_parts_test";
  fs::remove_all(out);
  fs::create_directories(out);
  REQUIRE(testing::run_catenary("run " + sweep_file + " --out " + (out / "whole").string(), out / "whole.log") == 0);
  // Two jobs of an array job write into one directory; the third run repeats copy 2 alone.
  REQUIRE(testing::run_catenary("run " + sweep_file + " --part 0/2 --out " + (out / "parts").string(), out / "p0.log") == 0);
  REQUIRE(testing::run_catenary("run " + sweep_file + " --part 1/2 --out " + (out / "parts").string(), out / "p1.log") == 0);
  REQUIRE(testing::run_catenary("run " + sweep_file + " --copies 2 --out " + (out / "one").string(), out / "one.log") == 0);
  const nlohmann::json whole = nlohmann::json::parse(testing::slurp(out / "whole" / "sweep.json"));
  CHECK(!fs::exists(out / "parts" / "sweep.json"));
  const nlohmann::json first = nlohmann::json::parse(testing::slurp(out / "parts" / "sweep_copies_0000-0000.json"));
  const nlohmann::json second = nlohmann::json::parse(testing::slurp(out / "parts" / "sweep_copies_0001-0002.json"));
  CHECK(testing::slurp(out / "parts" / "sweep_copies_0001-0002.csv").find("\n1,") != std::string::npos);
  REQUIRE(first["copies"].size() == 1);
  REQUIRE(second["copies"].size() == 2);
  CHECK(second["sweep_copies"] == 3);
  for (size_t k = 0; k < 3; ++k) {
    const nlohmann::json& entry = k == 0 ? first["copies"][0] : second["copies"][k - 1];
    CHECK(entry["index"] == k);
    CHECK(entry["label"] == whole["copies"][k]["label"]);
    const std::string dir = SweepWriter::copy_directory_name(k);
    INFO("copy " << k);
    CHECK(results_agree(out / "whole" / dir / "results.csv", out / "parts" / dir / "results.csv"));
  }
  CHECK(results_agree(out / "whole" / "copy_0002" / "results.csv", out / "one" / "copy_0002" / "results.csv"));
  CHECK(!fs::exists(out / "one" / "copy_0000"));
  // An output directory that cannot be made, selections the sweep cannot take and a case without
  // a sweep are bad input.
  std::ofstream(out / "a_file") << "not a directory\n";
  CHECK(testing::run_catenary("run " + sweep_file + " --out " + (out / "a_file" / "sweep").string(), out / "file.log") ==
        2);
  CHECK(testing::slurp(out / "file.log").find("--out: cannot create output directory") != std::string::npos);
  CHECK(testing::run_catenary("run " + sweep_file + " --copies 1-3 --out " + (out / "bad").string(), out / "bad.log") == 2);
  CHECK(testing::slurp(out / "bad.log").find("/sweep: --copies 1-3 names copies the sweep does not have") !=
        std::string::npos);
  CHECK(testing::run_catenary("run " + sweep_file + " --part 2/2", out / "bad_part.log") == 2);
  const std::string single = std::string(CATENARY_SOURCE_DIR) + "/cases/hanging_cable.json";
  CHECK(testing::run_catenary("run " + single + " --copies 0 --out " + (out / "bad").string(), out / "none.log") == 2);
  CHECK(testing::slurp(out / "none.log").find("selects copies of a sweep, and this case has no sweep") !=
        std::string::npos);
  CHECK(testing::run_catenary("compare " + single + " --part 0/1 --out " + (out / "bad").string(),
                              out / "compare_none.log") == 2);
  CHECK(testing::slurp(out / "compare_none.log").find("--part 0/1 selects copies of a sweep") != std::string::npos);
}

TEST_CASE("a sweep raises the soft limit on open files to what its copies hold, and names the hard one", "[sweep]") {
  // 20 cranes: each copy holds results.csv, rigid_bodies.csv and joint_reactions.csv open, 60
  // files, over a soft limit of 40.
  std::ifstream in(std::string(CATENARY_SOURCE_DIR) + "/cases/crane_sweep.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["sweep"]["parameters"] = {{{"path", "/model/rigid_bodies/0/mass"}, {"values", {{"from", 2}, {"to", 10}, {"count", 20}}}}};
  doc["analysis"]["end_time"] = 0.002;
  doc["output"]["vtu"] = false;
  const fs::path out = fs::temp_directory_path() / "catenary_sweep_open_files";
  fs::remove_all(out);
  fs::create_directories(out);
  std::ofstream(out / "cranes.json") << doc.dump();
  const auto run_limited = [&](const std::string& limits, const std::string& name) {
    const std::string cmd = limits + " && " + CATENARY_BINARY + " run " + (out / "cranes.json").string() + " --out " +
                            (out / name).string() + " > " + (out / (name + ".log")).string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  CHECK(run_limited("ulimit -Sn 40 && ulimit -Hn 400", "raised") == 0);
  CHECK(fs::exists(out / "raised" / "copy_0019" / "joint_reactions.csv"));
  CHECK(run_limited("ulimit -Sn 40 && ulimit -Hn 60", "refused") == 2);
  CHECK(testing::slurp(out / "refused.log").find("files open at once, more than this process may open (60") !=
        std::string::npos);
}

TEST_CASE("each copy of a sweep run as one batch equals its single run", "[sweep]") {
  SECTION("cables") { check_sweep_copies_equal_single_runs("cable_sweep", {"results.csv"}); }
  SECTION("initial conditions: free cables thrown with their own velocities and spins") {
    check_sweep_copies_equal_single_runs("cable_throw_sweep", {"results.csv"});
  }
  SECTION("a rope thrown onto the ground at three friction coefficients") {
    // Where the rope nearly sticks, the friction force mu F u / sqrt(u^2 + u_s^2) turns a velocity
    // difference at the Newton tolerance into a force difference that much over u_s = 0.1 m/s.
    check_sweep_copies_equal_single_runs("rope_drop_sweep", {"results.csv", {"contacts.csv", 1e-5}});
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

TEST_CASE("copy_list names copies as messages do, runs of four or more as ranges", "[sweep]") {
  using catenary::copy_list;
  CHECK(copy_list({3}) == "copy 3");
  CHECK(copy_list({1, 3}) == "copies 1 and 3");
  CHECK(copy_list({0, 1, 2}) == "copies 0, 1 and 2");
  CHECK(copy_list({0, 1, 2, 3}) == "copies 0 to 3");
  CHECK(copy_list({2, 10, 11, 12, 13, 40}) == "copies 2, 10 to 13 and 40");
}

TEST_CASE("run_sweep as a library call: the failed copies returned, the batches and notes told to its observer",
          "[sweep]") {
  // Copies 1 and 3 of four diverge at the first step: the library sets both apart at once, runs
  // each alone and the other two again without them (four batches), and returns 1 and 3.
  struct Recorder : SweepObserver {
    std::vector<std::string> batches, notes;
    std::vector<bool> failed_batches;
    void batch_planned(const std::string& description) override { batches.push_back(description); }
    void batch_finished(const AnalysisRun& run, const std::string&, const std::string&) override {
      failed_batches.push_back(run.failed());
    }
    void note(const std::string& message) override { notes.push_back(message); }
  } recorder;
  const std::string sweep = std::string(CATENARY_SOURCE_DIR) + "/tests/failing_cases/diverging_pair_sweep.json";
  const fs::path out = fs::temp_directory_path() / "catenary_library_run_sweep";
  fs::remove_all(out);
  const SweepRun run = run_sweep(load_cases(sweep), sweep, out.string(), "--out", BackendChoice::Cpu, recorder);
  CHECK(run.failed == std::vector<size_t>{1, 3});
  CHECK_FALSE(run.interrupted);
  REQUIRE(recorder.batches.size() == 4);
  CHECK(recorder.batches[0].find("sweep of 4 copies of 'diverging_pair_sweep'") == 0);
  CHECK(recorder.failed_batches == std::vector<bool>{true, true, true, false});
  REQUIRE(recorder.notes.size() == 2);
  CHECK(recorder.notes[0] == "copies 1 and 3 failed the batch: running each alone, and the others again without them");
  CHECK(recorder.notes[1] == "copies 1 and 3 of 4 failed; the others ran to their end (sweep.json)");
  const auto index = nlohmann::json::parse(testing::slurp(out / "sweep.json"));
  CHECK(index["copies"][0]["status"] == "ok");
  CHECK(index["copies"][1]["status"] == "failed");
}
