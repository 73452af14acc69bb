// The command line end to end: a shipped case runs and writes its results; a failing
// simulation exits with code 3, says why, and leaves valid output; --backend and compare behave
// as documented whether or not a CUDA device is usable.
#include <catch2/catch.hpp>
#include <cstring>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "catenary/io/result_comparison.hpp"
#include <sstream>
#include <string>

#include "cli_helpers.hpp"
#ifdef CATENARY_WITH_CUDA
#include "catenary/kernels/cuda_backend.hpp"
#endif

namespace {

namespace fs = std::filesystem;

using catenary::testing::count_lines;
using catenary::testing::slurp;
int run(const std::string& args, const fs::path& log) { return catenary::testing::run_catenary(args, log); }

// True if the CUDA backend can run here; otherwise why says why not.
bool cuda_usable(std::string& why) {
#ifdef CATENARY_WITH_CUDA
  return catenary::cuda::device_available(why);
#else
  why = "this build has no CUDA backend";
  return false;
#endif
}

std::string shipped_case(const std::string& name) {
  return std::string(CATENARY_SOURCE_DIR) + "/cases/" + name;
}

}  // namespace

TEST_CASE("catenary run writes CSV, PVD/VTU and summary for a shipped case", "[cli]") {
  const fs::path out = fs::temp_directory_path() / "catenary_cli_ok";
  fs::remove_all(out);
  const int code = run("run " + std::string(CATENARY_SOURCE_DIR) + "/cases/falling_cable_pendulum.json --out " + out.string(),
                       out.string() + ".log");
  INFO(slurp(out.string() + ".log"));
  REQUIRE(code == 0);
  const auto summary = nlohmann::json::parse(slurp(out / "summary.json"));
  CHECK(summary["status"] == "ok");
  CHECK(summary["steps"] == 2000);
  CHECK(count_lines(out / "results.csv") == 1 + 201);  // header + frames every 0.01 s from 0 to 2 s
  CHECK(fs::exists(out / "results.pvd"));
}

TEST_CASE("a failing simulation exits with 3, names the step and keeps its output", "[cli]") {
  const fs::path out = fs::temp_directory_path() / "catenary_cli_fail";
  fs::remove_all(out);
  const fs::path log = out.string() + ".log";
  const int code = run("run " + std::string(CATENARY_SOURCE_DIR) + "/tests/failing_cases/diverging_pendulum.json --out " +
                           out.string(), log);
  const std::string message = slurp(log);
  INFO(message);
  CHECK(code == 3);
  CHECK(message.find("t = 0 s (step 1") != std::string::npos);
  CHECK(message.find("body 'cable' node") != std::string::npos);
  const auto summary = nlohmann::json::parse(slurp(out / "summary.json"));
  CHECK(summary["status"] == "failed");
  CHECK(count_lines(out / "results.csv") == 2);  // header + the initial frame
  CHECK(slurp(out / "results.pvd").find("</VTKFile>") != std::string::npos);
}

TEST_CASE("a failed run lists only the files it wrote", "[cli][eigen]") {
  // A free bar's eigen analysis at shift 0 fails before its modes are found: no modes.csv,
  // mode_shapes.csv or modes/ to name.
  const fs::path out = fs::temp_directory_path() / "catenary_cli_failed_modes";
  fs::remove_all(out);
  const fs::path log = out.string() + ".log";
  const int code = run("run " + std::string(CATENARY_SOURCE_DIR) + "/tests/failing_cases/free_bar_modes_at_zero.json --out " +
                           out.string(), log);
  const std::string message = slurp(log);
  INFO(message);
  CHECK(code == 3);
  CHECK(!fs::exists(out / "modes.csv"));
  CHECK(message.find("(results.csv, results.pvd, summary.json)") != std::string::npos);
}

TEST_CASE("copies that fail leave the others of their sweep to run to their end", "[cli][sweep]") {
  // Copy 1 fails: Newton diverges under a 1e8 N load, or its residual overflows under 1e300 N at
  // the first iteration (whose place is the residual's first entry that is not finite). Or copies
  // 1 and 3 diverge at the same step (1e8 and 2e8 N): both are taken out at once, so the others
  // run again once, not once for each.
  struct Failing {
    const char* name;
    const char* place;     // where the batch's message says it failed
    const char* rerun;     // what the sweep does then
    std::vector<bool> ok;  // each copy's outcome
  };
  const Failing f = GENERATE(
      Failing{"diverging_sweep", "largest at body 'copy 1: cable' node",
              "copy 1 failed the batch: running it alone, and the others again without it", {true, false, true}},
      Failing{"overflowing_sweep", "not finite (NaN or overflow), first at body 'copy 1: cable' node",
              "copy 1 failed the batch: running it alone, and the others again without it", {true, false, true}},
      Failing{"diverging_pair_sweep", "largest at body 'copy 3: cable' node",
              "copies 1 and 3 failed the batch: running each alone, and the others again without them",
              {true, false, true, false}});
  const std::string name = f.name;
  const int copies = static_cast<int>(f.ok.size());
  const std::string sweep = std::string(CATENARY_SOURCE_DIR) + "/tests/failing_cases/" + name + ".json";
  const fs::path out = fs::temp_directory_path() / (std::string("catenary_cli_") + name);
  fs::remove_all(out);
  const int code = run("run " + sweep + " --out " + (out / "batch").string(), out.string() + ".log");
  const std::string message = slurp(out.string() + ".log");
  INFO(message);
  CHECK(code == 3);
  CHECK(message.find(f.place) != std::string::npos);
  const size_t rerun = message.find(f.rerun);
  CHECK(rerun != std::string::npos);
  CHECK(message.find("again without", rerun + std::strlen(f.rerun)) == std::string::npos);  // the rest ran again once
  const std::string failed = copies == 3 ? "copy 1 of 3 failed" : "copies 1 and 3 of 4 failed";
  CHECK(message.find(failed + "; the others ran to their end") != std::string::npos);
  const auto index = nlohmann::json::parse(slurp(out / "batch" / "sweep.json"));
  CHECK(index["status"] == "failed");
  for (int k = 0; k < copies; ++k) {
    const std::string copy = "copy_000" + std::to_string(k), status = f.ok[k] ? "ok" : "failed";
    INFO(copy);
    CHECK(index["copies"][k]["status"] == status);
    CHECK(nlohmann::json::parse(slurp(out / "batch" / copy / "summary.json"))["status"] == status);
    if (!f.ok[k]) {
      CHECK(index["copies"][k]["message"].get<std::string>().find("dynamic analysis failed at t = 0 s") !=
            std::string::npos);
      CHECK(count_lines(out / "batch" / copy / "results.csv") == 2);  // header + the initial frame
      continue;
    }
    // The others are their single runs' (a selection of one copy is one), to the Newton tolerance.
    REQUIRE(run("run " + sweep + " --copies " + std::to_string(k) + " --out " + (out / copy).string(),
                out.string() + "_" + copy + ".log") == 0);
    const catenary::ComparisonReport report = catenary::compare_result_files((out / copy / copy / "results.csv").string(),
                                                         (out / "batch" / copy / "results.csv").string(),
                                                         catenary::ComparisonTolerance{1e-7, 1e-12});
    CHECK(report.pass());
    CHECK(count_lines(out / "batch" / copy / "results.csv") == 1 + 11);  // every 0.01 s to 0.1 s
  }
  const std::string table = slurp(out / "batch" / "sweep.csv");
  const size_t row = table.find("\n1,0,0,-1");  // copy 1, its load, its status and initial frame
  REQUIRE(row != std::string::npos);
  CHECK(table.substr(row, table.find('\n', row + 1) - row).find(",failed,0,0,0,") != std::string::npos);
}

TEST_CASE("compare on a sweep compares the copies both backends ran and names the one that failed on both",
          "[cli][sweep][cuda-host]") {
#ifdef CATENARY_WITH_CUDA
  // The CUDA backend's code on the host (--cuda-on-host), where there is no GPU.
  const std::string sweep = std::string(CATENARY_SOURCE_DIR) + "/tests/failing_cases/diverging_sweep.json";
  const fs::path out = fs::temp_directory_path() / "catenary_cli_compare_diverging";
  fs::remove_all(out);
  const int code = catenary::testing::run_catenary("compare --cuda-on-host " + sweep + " --out " + out.string(),
                                                   out.string() + ".log");
  const std::string log = slurp(out.string() + ".log");
  INFO(log);
  CHECK(code == 3);  // a copy failed (on both: no difference between the backends)
  CHECK(log.find("backend: cuda-code-on-host") != std::string::npos);
  CHECK(log.find("copy_0001 (force = [0,0,-100000000.0]): failed on both backends") != std::string::npos);
  for (const char* copy : {"copy_0000", "copy_0002"}) {
    const size_t at = log.find(std::string(copy) + " (");
    REQUIRE(at != std::string::npos);
    CHECK(log.find("verdict: PASS", at) < log.find("\ncopy_", at + 1));
  }
  CHECK(log.find("verdict: FAIL") == std::string::npos);
#else
  WARN("[cuda-host] test skipped: this build has no CUDA backend (configure with CATENARY_CUDA=ON)");
#endif
}

TEST_CASE("compare passes for every shipped case with the CUDA backend's code on the host", "[cli][cuda-host]") {
#ifdef CATENARY_WITH_CUDA
  const fs::path out = fs::temp_directory_path() / "catenary_cli_compare_on_host";
  fs::remove_all(out);
  for (const auto& entry : fs::directory_iterator(fs::path(CATENARY_SOURCE_DIR) / "cases")) {
    if (entry.path().extension() != ".json") continue;
    const std::string name = entry.path().stem().string();
    // As on the device ([gpu] compare test): the flexible links' round-off grows over 4,000 steps.
    // The cantilever's clamp has no x reaction: both backends give round-off of its 4,000 N
    // reactions there (1.2e-12 N; UMFPACK's order in the host build, cuSOLVER's QR on a device).
    // The clearance pin's collisions are located by shortening steps until a gap is within its
    // tolerance, and the backends' round-off moves those steps' ends (by 2e-9 s): the rattle that
    // follows carries the difference to 1.3e-5 of the pin's force and penetration.
    // The coupled spar, run alone, is held still between its three symmetric lines: its motion's
    // reactions are what is left of their cancelling pulls (moments of 1e7 N m to 0.3 N m), whose
    // round-off the backends share to 1.2e-3 N m.
    const std::string tolerance = name == "rancf_pendulum_flexible"  ? " --rtol 1e-6"
                                  : name == "cantilever_static"      ? " --atol 1e-10"
                                  : name == "slider_crank_clearance" ? " --rtol 1e-4"
                                  : name == "oc3_coupled_platform"   ? " --atol 1e-2"
                                                                     : "";
    const fs::path log = out / (name + ".log");
    fs::create_directories(out);
    const int code = catenary::testing::run_catenary(
        "compare --cuda-on-host " + entry.path().string() + tolerance + " --out " + (out / name).string(), log);
    INFO(name << ":\n" << slurp(log));
    CHECK(code == 0);
  }
#else
  WARN("[cuda-host] test skipped: this build has no CUDA backend (configure with CATENARY_CUDA=ON)");
#endif
}

TEST_CASE("catenary gather joins a sweep's parts into the whole sweep's index and table", "[cli][sweep]") {
  const std::string sweep = shipped_case("cable_sweep.json");  // 3 copies
  const fs::path out = fs::temp_directory_path() / "catenary_cli_gather";
  fs::remove_all(out);
  REQUIRE(run("run " + sweep + " --out " + (out / "whole").string(), out.string() + "_whole.log") == 0);
  const auto run_part = [&](const std::string& selection, const std::string& dir) {
    return run("run " + sweep + " " + selection + " --out " + (out / dir).string(), out.string() + "_part.log");
  };
  const auto gather = [&](const std::string& dir) {
    return run("gather " + (out / dir).string(), out.string() + "_gather.log");
  };
  SECTION("two parts: the whole run's index and, to the Newton tolerance, its table") {
    REQUIRE(run_part("--part 1/2", "parts") == 0);  // the later part first: the order of the runs does not matter
    REQUIRE(run_part("--part 0/2", "parts") == 0);
    REQUIRE(gather("parts") == 0);
    CHECK(slurp(out.string() + "_gather.log").find("gathered the 3 copies of 2 parts") != std::string::npos);
    auto gathered = nlohmann::json::parse(slurp(out / "parts" / "sweep.json"));
    CHECK(gathered["gathered_from"] ==
          nlohmann::json::array({"sweep_copies_0000-0000.json", "sweep_copies_0001-0002.json"}));
    gathered.erase("gathered_from");
    CHECK(gathered == nlohmann::json::parse(slurp(out / "whole" / "sweep.json")));
    std::istringstream joined(slurp(out / "parts" / "sweep.csv")), whole(slurp(out / "whole" / "sweep.csv"));
    int rows = 0;
    for (std::string a, b; std::getline(whole, b);) {
      REQUIRE(std::getline(joined, a));
      const std::vector<std::string> x = catenary::split_csv_line(a), y = catenary::split_csv_line(b);
      REQUIRE(x.size() == y.size());
      for (size_t i = 0; i < x.size(); ++i) {
        if (rows == 0 || i < 6) {  // the header; each row's copy, parameters and status
          CHECK(x[i] == y[i]);
          continue;
        }
        const double u = std::stod(x[i]), v = std::stod(y[i]);
        CHECK(std::abs(u - v) <= 1e-7 * std::max(1.0, std::abs(v)));
      }
      ++rows;
    }
    CHECK(rows == 4);
    std::string extra;
    CHECK_FALSE(std::getline(joined, extra));
  }
  SECTION("a copy in no part, or in two, is named and nothing is written (exit 2)") {
    REQUIRE(run_part("--copies 0-1", "gap") == 0);
    CHECK(gather("gap") == 2);
    CHECK(slurp(out.string() + "_gather.log").find("copy 2 of the 3 are in no part") != std::string::npos);
    REQUIRE(run_part("--copies 1-2", "gap") == 0);  // now copy 1 is in both parts
    CHECK(gather("gap") == 2);
    CHECK(slurp(out.string() + "_gather.log").find("copy 1 is in sweep_copies_0000-0001.json too") != std::string::npos);
    CHECK_FALSE(fs::exists(out / "gap" / "sweep.json"));
    CHECK(gather("none_here") == 2);
  }
  SECTION("a part with a failed copy: the whole sweep failed, that copy named (exit 3)") {
    const std::string failing = std::string(CATENARY_SOURCE_DIR) + "/tests/failing_cases/diverging_sweep.json";
    REQUIRE(run("run " + failing + " --part 0/2 --out " + (out / "failing").string(), out.string() + "_part.log") == 0);
    REQUIRE(run("run " + failing + " --part 1/2 --out " + (out / "failing").string(), out.string() + "_part.log") == 3);
    CHECK(gather("failing") == 3);
    CHECK(slurp(out.string() + "_gather.log").find("copy 1 of 3 failed") != std::string::npos);
    const auto index = nlohmann::json::parse(slurp(out / "failing" / "sweep.json"));
    CHECK(index["status"] == "failed");
    CHECK(index["copies"][1]["status"] == "failed");
  }
  SECTION("a part a stopped run left unfinished: its copies named as not finished, not as failed (exit 2)") {
    REQUIRE(run_part("--part 0/2", "stopped") == 0);
    REQUIRE(run_part("--part 1/2", "stopped") == 0);
    // The second part's index as a run stopped by a signal leaves it (test_interrupted_runs.cpp
    // runs such a stop): one copy interrupted, the next not run.
    const fs::path part = out / "stopped" / "sweep_copies_0001-0002.json";
    auto part_index = nlohmann::json::parse(slurp(part));
    part_index["status"] = "interrupted";
    part_index["copies"][0]["status"] = "interrupted";
    part_index["copies"][1]["status"] = "not run";
    std::ofstream(part) << part_index.dump(2);
    CHECK(gather("stopped") == 2);
    const std::string log = slurp(out.string() + "_gather.log");
    CHECK(log.find("copies 1 and 2 of 3 did not finish (a run was stopped): resume their part") != std::string::npos);
    CHECK(log.find("failed") == std::string::npos);
    CHECK(nlohmann::json::parse(slurp(out / "stopped" / "sweep.json"))["status"] == "interrupted");
  }
}

TEST_CASE("catenary check summarises a sweep's parameters", "[cli][sweep]") {
  const fs::path log = fs::temp_directory_path() / "catenary_cli_check_sweep.log";
  REQUIRE(run("check " + std::string(CATENARY_SOURCE_DIR) + "/scripts/cable_sweep_10000.json", log) == 0);
  const std::string message = slurp(log);
  INFO(message);
  CHECK(message.find("sweep of 10000 copies") != std::string::npos);
  // The grid's two ranges of 100: the modulus varies slowest, so copy 9999 has both last values.
  CHECK(message.find("/model/bodies/0/end: 100 values, copy 0 [9.5,0.0,0.0], copy 9999 [10.0,0.0,0.0]") !=
        std::string::npos);
  CHECK(message.find("youngs_modulus: 100 values, copy 0 100000000.0, copy 9999 10000000000.0") != std::string::npos);
#ifdef CATENARY_WITH_CUDA
  // The device memory a run would check for: the whole batch's, not one copy's. The 10,000 copies
  // of 100 elements hold what a 1,000,000-element cable does, whose estimate (7,623 MiB with full
  // Newton's vectors: docs/performance.md, Device memory) the 10,000 pinned ends' rows add a little
  // to.
  const size_t at = message.find("CUDA backend: about ");
  REQUIRE(at != std::string::npos);
  const long mib = std::stol(message.substr(at + std::strlen("CUDA backend: about ")));
  CHECK(mib >= 7623);
  CHECK(mib <= 7623 * 1.02);
  CHECK(message.find("MiB of device memory for the batch of all copies", at) != std::string::npos);
#endif
}

TEST_CASE("an output directory that cannot be created is bad input (exit 2)", "[cli]") {
  const fs::path blocker = fs::temp_directory_path() / "catenary_cli_blocker";
  fs::remove_all(blocker);
  std::ofstream(blocker) << "a file, not a directory\n";
  const fs::path log = blocker.string() + ".log";
  const int code = run("run " + std::string(CATENARY_SOURCE_DIR) + "/cases/hanging_cable.json --out " +
                           (blocker / "out").string(), log);
  const std::string message = slurp(log);
  INFO(message);
  CHECK(code == 2);
  CHECK(message.find("--out") != std::string::npos);
}

TEST_CASE("run --backend cuda exits 2 naming CUDA when no device is usable", "[cli]") {
  const fs::path out = fs::temp_directory_path() / "catenary_cli_cuda";
  fs::remove_all(out);
  const fs::path log = out.string() + ".log";
  const int code = run("run " + shipped_case("hanging_cable.json") + " --backend cuda --out " + out.string(), log);
  const std::string message = slurp(log);
  INFO(message);
  std::string why;
  if (cuda_usable(why)) {
    CHECK(code == 0);
    CHECK(message.find("backend: cuda") != std::string::npos);
    return;
  }
  CHECK(code == 2);
  CHECK(message.find("catenary: error: the CUDA backend cannot run") != std::string::npos);
  CHECK_FALSE(fs::exists(out / "results.csv"));
}

TEST_CASE("run --backend auto runs, on the CPU with a notice when no device is usable", "[cli]") {
  const fs::path out = fs::temp_directory_path() / "catenary_cli_auto";
  fs::remove_all(out);
  const fs::path log = out.string() + ".log";
  const int code = run("run " + shipped_case("hanging_cable.json") + " --backend auto --out " + out.string(), log);
  const std::string message = slurp(log);
  INFO(message);
  CHECK(code == 0);
  CHECK(count_lines(out / "results.csv") >= 2);
  std::string why;
  if (!cuda_usable(why)) {
    CHECK(message.find("running on the CPU") != std::string::npos);
    CHECK(message.find("backend: cpu") != std::string::npos);
  }
}

TEST_CASE("run --backend with an unknown name is bad input (exit 2)", "[cli]") {
  const fs::path log = fs::temp_directory_path() / "catenary_cli_nonsense.log";
  const int code = run("run " + shipped_case("hanging_cable.json") + " --backend nonsense", log);
  const std::string message = slurp(log);
  INFO(message);
  CHECK(code == 2);
  CHECK(message.find("unknown backend 'nonsense'") != std::string::npos);
}

TEST_CASE("compare without a usable CUDA device exits 2 before running anything", "[cli]") {
  std::string why;
  if (cuda_usable(why)) {
    WARN("a CUDA device is usable: the [gpu] compare test covers this machine");
    return;
  }
  const fs::path out = fs::temp_directory_path() / "catenary_cli_compare";
  fs::remove_all(out);
  const fs::path log = out.string() + ".log";
  const int code = run("compare " + shipped_case("hanging_cable.json") + " --out " + out.string(), log);
  const std::string message = slurp(log);
  INFO(message);
  CHECK(code == 2);
  CHECK(message.find("CUDA") != std::string::npos);
  CHECK_FALSE(fs::exists(out / "cpu"));  // the CPU run is not spent when the comparison cannot happen
}

TEST_CASE("an unknown command is named, and an empty --out is refused (exit 2)", "[cli]") {
  const fs::path log = fs::temp_directory_path() / "catenary_cli_unknown.log";
  CHECK(run("frobnicate " + shipped_case("hanging_cable.json"), log) == 2);
  CHECK(slurp(log).find("catenary: error: unknown command 'frobnicate'") != std::string::npos);
  for (const char* command : {"run", "compare"}) {
    CHECK(run(std::string(command) + " " + shipped_case("hanging_cable.json") + " --out ''", log) == 2);
    INFO(slurp(log));
    CHECK(slurp(log).find("--out: must not be empty") != std::string::npos);
  }
}
