// Runs that do not end as planned. SIGINT and SIGTERM stop `catenary run` between two steps with
// every output written and summary.json "interrupted" (exit 130, 143), and the library stops at
// its Interruption; a run killed with SIGKILL leaves summary.json "running" and whole files; a
// full disk (/dev/full) ends a run with exit 4, naming the file and the reason, and no damaged
// file listed; a second run into a directory in use is refused (exit 2); a rerun clears the
// earlier run's files, and only those.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "catenary/core/errors.hpp"
#include "catenary/core/interruption.hpp"
#include "catenary/io/directory_lock.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/run/backend_factory.hpp"
#include "catenary/run/run_case.hpp"
#include "catenary/run/run_sweep.hpp"
#include "cli_helpers.hpp"

namespace {

namespace fs = std::filesystem;
using namespace catenary;
using catenary::testing::count_lines;
using catenary::testing::slurp;
using catenary::testing::start_catenary;
using catenary::testing::wait_exit;
using catenary::testing::wait_until;

// An empty place for a test's files: the temp directory's catenary_interrupted_NAME (its log and
// case file go beside it).
fs::path fresh(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("catenary_interrupted_" + name);
  fs::remove_all(p);
  return p;
}

std::string shipped(const std::string& name) { return std::string(CATENARY_SOURCE_DIR) + "/cases/" + name; }

// A shipped case that runs far longer than a test waits (900 s of motion, the most steps a case may take), with a frame every 0.05 s, written to
// `at`; its path.
std::string endless_case(const std::string& name, const fs::path& at) {
  nlohmann::json c = nlohmann::json::parse(slurp(shipped(name)));
  c["analysis"]["end_time"] = 900.0;
  c["output"]["interval"] = 0.05;
  std::ofstream(at) << c.dump(2);
  return at.string();
}

// A run's results.csv holds the header and at least n frames.
std::function<bool()> frames_written(const fs::path& dir, int n) {
  return [=] { return count_lines(dir / "results.csv") >= n + 1; };
}

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(slurp(p)); }

// results.csv ends with a whole row: every line has the header's columns.
void check_whole_rows(const fs::path& csv) {
  const std::string text = slurp(csv);
  REQUIRE(!text.empty());
  CHECK(text.back() == '\n');
  std::istringstream lines(text);
  std::string header, row;
  std::getline(lines, header);
  const auto commas = std::count(header.begin(), header.end(), ',');
  while (std::getline(lines, row)) CHECK(std::count(row.begin(), row.end(), ',') == commas);
}

// The frame files results.pvd lists (it ends as a collection ends), each complete.
std::vector<std::string> check_pvd_entries(const fs::path& dir) {
  const std::string pvd = slurp(dir / "results.pvd");
  CHECK(pvd.size() > 27);
  CHECK(pvd.substr(pvd.size() - 27) == "  </Collection>\n</VTKFile>\n");
  std::vector<std::string> files;
  for (size_t at = 0; (at = pvd.find("file=\"", at)) != std::string::npos;) {
    at += 6;
    files.push_back(pvd.substr(at, pvd.find('"', at) - at));
    const std::string vtu = slurp(dir / files.back());
    CHECK(vtu.size() > 11);
    CHECK(vtu.substr(vtu.size() - 11) == "</VTKFile>\n");
  }
  return files;
}

size_t files_in(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("SIGINT stops catenary run between steps: every output written, summary interrupted, exit 130",
          "[cli][interrupt]") {
  const fs::path out = fresh("sigint"), log = out.string() + ".log";
  const std::string c = endless_case("falling_cable_pendulum.json", out.string() + ".json");
  const pid_t pid = start_catenary({"run", c, "--out", out.string()}, log);
  REQUIRE(wait_until(frames_written(out, 3)));
  // While it runs, its summary says so.
  CHECK(read_json(out / "summary.json")["status"] == "running");
  ::kill(pid, SIGINT);
  const int code = wait_exit(pid);
  INFO(slurp(log));
  CHECK(code == 130);
  const nlohmann::json summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "interrupted");
  CHECK(summary["end_time"].get<double>() > 0.1);
  CHECK(summary["message"].get<std::string>().find("dynamic analysis interrupted at t = ") == 0);
  CHECK(slurp(log).find("catenary: dynamic analysis interrupted at t = ") != std::string::npos);
  check_whole_rows(out / "results.csv");
  CHECK(check_pvd_entries(out).size() + 1 == static_cast<size_t>(count_lines(out / "results.csv")));
}

TEST_CASE("SIGTERM stops a sweep: exit 143, the index and table mark the unfinished copies", "[cli][interrupt][sweep]") {
  const fs::path out = fresh("sigterm"), log = out.string() + ".log";
  const std::string c = endless_case("cable_sweep.json", out.string() + ".json");
  const pid_t pid = start_catenary({"run", c, "--out", out.string()}, log);
  // The index says "running" from the start, before any copy has a frame.
  REQUIRE(wait_until([&] { return fs::exists(out / "sweep.json"); }));
  CHECK(read_json(out / "sweep.json")["status"] == "running");
  REQUIRE(wait_until(frames_written(out / "copy_0002", 3)));
  ::kill(pid, SIGTERM);
  const int code = wait_exit(pid);
  INFO(slurp(log));
  CHECK(code == 143);
  const nlohmann::json index = read_json(out / "sweep.json");
  CHECK(index["status"] == "interrupted");
  REQUIRE(index["copies"].size() == 3);
  for (const nlohmann::json& copy : index["copies"]) {
    CHECK(copy["status"] == "interrupted");
    const fs::path dir = out / copy["directory"].get<std::string>();
    CHECK(read_json(dir / "summary.json")["status"] == "interrupted");
    check_whole_rows(dir / "results.csv");
  }
  std::istringstream table(slurp(out / "sweep.csv"));
  std::string row;
  std::getline(table, row);
  int rows = 0;
  while (std::getline(table, row)) rows += row.find(",interrupted,") != std::string::npos;
  CHECK(rows == 3);
}

TEST_CASE("a run killed with SIGKILL leaves summary.json running and whole files, and a rerun clears its frames only",
          "[cli][interrupt]") {
  const fs::path out = fresh("sigkill"), log = out.string() + ".log";
  const std::string c = endless_case("falling_cable_pendulum.json", out.string() + ".json");
  const pid_t pid = start_catenary({"run", c, "--out", out.string()}, log);
  REQUIRE(wait_until(frames_written(out, 5)));
  ::kill(pid, SIGKILL);
  CHECK(wait_exit(pid) == 1000 + SIGKILL);
  CHECK(read_json(out / "summary.json")["status"] == "running");
  check_whole_rows(out / "results.csv");
  CHECK(check_pvd_entries(out).size() >= 5);

  // A rerun (a static case of two frames) clears the killed run's frames, not the user's files.
  std::ofstream(out / "notes.txt") << "mine\n";
  std::ofstream(out / "frames" / "mine.vtu") << "mine\n";
  const int code = catenary::testing::run_catenary("run " + shipped("hanging_cable.json") + " --out " + out.string(), log);
  INFO(slurp(log));
  CHECK(code == 0);
  const std::vector<std::string> frames = check_pvd_entries(out);
  CHECK(frames.size() == 2);
  CHECK(files_in(out / "frames") == frames.size() + 1);
  CHECK(fs::exists(out / "frames" / "mine.vtu"));
  CHECK(fs::exists(out / "notes.txt"));
  CHECK(read_json(out / "summary.json")["status"] == "ok");
}

TEST_CASE("a second run into an output directory in use exits 2 naming it, and leaves the first run alone",
          "[cli][interrupt]") {
  const fs::path out = fresh("locked"), log = out.string() + ".log";
  const std::string c = endless_case("falling_cable_pendulum.json", out.string() + ".json");
  const pid_t pid = start_catenary({"run", c, "--out", out.string()}, log);
  REQUIRE(wait_until(frames_written(out, 2)));
  const fs::path second_log = out.string() + ".second.log";
  const int second = catenary::testing::run_catenary("run " + shipped("hanging_cable.json") + " --out " + out.string(),
                                                     second_log);
  const std::string message = slurp(second_log);
  INFO(message);
  CHECK(second == 2);
  CHECK(message.find("the output directory " + out.string() + " is in use by another catenary run") !=
        std::string::npos);
  CHECK(read_json(out / "summary.json")["case"] == "falling_cable_pendulum");
  ::kill(pid, SIGINT);
  CHECK(wait_exit(pid) == 130);
  CHECK(read_json(out / "summary.json")["status"] == "interrupted");
}

TEST_CASE("a result file that cannot be written exits 4 with the file and the system's reason", "[cli][interrupt]") {
  if (!fs::exists("/dev/full")) {
    WARN("no /dev/full here: the full-disk test needs it");
    return;
  }
  const std::string full_disk = std::strerror(ENOSPC);
  // results.csv on a full disk: the run stops at its header.
  const fs::path csv_out = fresh("full_csv"), csv_log = csv_out.string() + ".log";
  fs::create_directories(csv_out);
  fs::create_symlink("/dev/full", csv_out / "results.csv");
  CHECK(catenary::testing::run_catenary("run " + shipped("falling_cable_pendulum.json") + " --out " + csv_out.string(),
                                        csv_log) == 4);
  CHECK(slurp(csv_log).find("catenary: error: error writing " + (csv_out / "results.csv").string() + ": " +
                            full_disk) != std::string::npos);

  // The second frame file on a full disk: results.pvd lists the first only, and the summary says why.
  const fs::path out = fresh("full_vtu"), log = out.string() + ".log";
  fs::create_directories(out / "frames");
  fs::create_symlink("/dev/full", out / "frames" / "frame_00001.vtu.tmp");
  const int code =
      catenary::testing::run_catenary("run " + shipped("falling_cable_pendulum.json") + " --out " + out.string(), log);
  const std::string message = slurp(log);
  INFO(message);
  CHECK(code == 4);
  CHECK(message.find("frame_00001.vtu.tmp: " + full_disk) != std::string::npos);
  CHECK(check_pvd_entries(out) == std::vector<std::string>{"frames/frame_00000.vtu"});
  CHECK_FALSE(fs::exists(out / "frames" / "frame_00001.vtu"));
  CHECK_FALSE(fs::is_symlink(out / "frames" / "frame_00001.vtu.tmp"));
  const nlohmann::json summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "failed");
  CHECK(summary["message"].get<std::string>().find(full_disk) != std::string::npos);
}

TEST_CASE("run_case stops where its Interruption asks: after the first time step or load step", "[interrupt]") {
  Interruption interruption;
  interruption.request(SIGINT);
  Case dynamic = load_case(shipped("falling_cable_pendulum.json"));
  const SelectedBackend cpu = make_backend(BackendChoice::Cpu, dynamic.model, dynamic.analysis);
  const fs::path dir = fresh("library_dynamic");
  const AnalysisRun run = run_case(dynamic, *cpu.backend, dir.string(), &interruption);
  CHECK(run.interrupted());
  CHECK(run.summary.steps == 1);
  CHECK(run.summary.end_time == Approx(dynamic.analysis.dynamics.step));
  CHECK(read_json(dir / "summary.json")["status"] == "interrupted");
  CHECK(count_lines(dir / "results.csv") == 2);  // the header and the initial frame

  Case statics = load_case(shipped("hanging_cable.json"));
  statics.analysis.statics.load_steps = 4;
  const SelectedBackend cpu_static = make_backend(BackendChoice::Cpu, statics.model, statics.analysis);
  const AnalysisRun stopped = run_case(statics, *cpu_static.backend, fresh("library_static").string(), &interruption);
  CHECK(stopped.interrupted());
  CHECK(stopped.summary.end_time == Approx(0.25));
  CHECK(stopped.summary.message == "static analysis interrupted at load factor 0.25 after 1 load steps");

  // Without a request the same run goes to its end.
  const AnalysisRun whole = run_case(statics, *cpu_static.backend, fresh("library_static_whole").string(), nullptr);
  CHECK(whole.summary.status == "ok");
  CHECK(whole.summary.end_time == Approx(1.0));
}

TEST_CASE("summary.json says running while frames are written, interrupted after a stop asked for mid-run",
          "[interrupt][output]") {
  const Case c = load_case(shipped("falling_cable_pendulum.json"));
  const SelectedBackend cpu = make_backend(BackendChoice::Cpu, c.model, c.analysis);
  const fs::path dir = fresh("library_running");
  OutputWriter writer(c, dir.string());
  Interruption interruption;
  std::vector<std::string> seen;
  const AnalysisRun run = run_analysis(
      c.analysis, c.output.interval, c.model, *cpu.backend,
      [&](const Frame& f) {
        writer.write_frame(f);
        seen.push_back(read_json(dir / "summary.json")["status"]);
        if (seen.size() == 3) interruption.request(SIGTERM);
      },
      &interruption);
  writer.write_summary(run.summary);
  CHECK(seen == std::vector<std::string>{"running", "running", "running"});
  CHECK(run.interrupted());
  CHECK(run.summary.end_time == Approx(0.02));  // the step that wrote the third frame
  CHECK(read_json(dir / "summary.json")["status"] == "interrupted");
}

TEST_CASE("run_sweep stopped before its first batch marks every copy not run and says interrupted",
          "[interrupt][sweep]") {
  Interruption interruption;
  interruption.request(SIGINT);
  struct Batches : SweepObserver {
    int planned = 0;
    void batch_planned(const std::string&) override { ++planned; }
  } observer;
  const std::string sweep = shipped("cable_sweep.json");
  const fs::path out = fresh("library_sweep");
  const SweepRun run = run_sweep(load_cases(sweep), sweep, out.string(), "--out", BackendChoice::Cpu, observer,
                                 &interruption);
  CHECK(run.interrupted);
  CHECK(run.failed.size() == 3);
  CHECK(observer.planned == 0);
  const nlohmann::json index = read_json(out / "sweep.json");
  CHECK(index["status"] == "interrupted");
  for (const nlohmann::json& copy : index["copies"]) CHECK(copy["status"] == "not run");
}

TEST_CASE("a rerun clears the earlier run's frames and copies and nothing else", "[output][sweep]") {
  const fs::path dir = fresh("rerun");
  const Case c = load_case(shipped("falling_cable_pendulum.json"));
  const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(c.model.initial_positions.data(),
                                                              static_cast<long>(c.model.initial_positions.size()));
  const auto write_frames = [&](int n) {
    OutputWriter w(c, dir.string());
    Frame f;
    f.q = &q;
    for (int k = 0; k < n; ++k, f.time += 0.1) w.write_frame(f);
    w.write_summary(w.starting_summary("ok"));
  };
  write_frames(6);
  std::ofstream(dir / "notes.txt") << "mine\n";
  std::ofstream(dir / "frames" / "frame_mine.vtu") << "mine\n";
  write_frames(2);
  CHECK(check_pvd_entries(dir).size() == 2);
  CHECK(files_in(dir / "frames") == 3);  // two frames and the user's file
  CHECK(fs::exists(dir / "notes.txt"));
  CHECK(count_lines(dir / "results.csv") == 3);

  // A sweep run again with fewer copies: the copy it no longer has goes.
  const fs::path out = fresh("rerun_sweep");
  nlohmann::json sweep = nlohmann::json::parse(slurp(shipped("cable_sweep.json")));
  sweep["analysis"]["end_time"] = 0.005;
  const fs::path path = out.string() + ".json";
  SweepObserver quiet;
  for (size_t copies : {9, 4}) {
    sweep["sweep"]["parameters"] = {{{"path", "/model/materials/polymer/youngs_modulus"},
                                     {"values", std::vector<double>(copies, 2e9)}}};
    for (size_t k = 0; k < copies; ++k) sweep["sweep"]["parameters"][0]["values"][k] = 1e9 * double(k + 1);
    std::ofstream(path) << sweep.dump();
    CHECK(run_sweep(load_cases(path.string()), path.string(), out.string(), "--out", BackendChoice::Cpu, quiet)
              .failed.empty());
  }
  CHECK(fs::exists(out / "copy_0003" / "summary.json"));
  CHECK_FALSE(fs::exists(out / "copy_0004"));
  CHECK_FALSE(fs::exists(out / "copy_0008"));
  CHECK(read_json(out / "sweep.json")["copies"].size() == 4);
}

TEST_CASE("DirectoryLock: one exclusive holder, or shared holders together, and a busy directory named",
          "[output]") {
  const fs::path dir = fresh("lock");
  {
    const DirectoryLock first(dir.string());
    try {
      const DirectoryLock second(dir.string());
      FAIL("a second exclusive lock was granted");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).find("the output directory " + dir.string() + " is in use") == 0);
    }
    CHECK_THROWS(DirectoryLock(dir.string(), DirectoryLock::Kind::Shared));
  }
  const DirectoryLock part_a(dir.string(), DirectoryLock::Kind::Shared);
  const DirectoryLock part_b(dir.string(), DirectoryLock::Kind::Shared);
  CHECK_THROWS(DirectoryLock(dir.string()));
}

TEST_CASE("a frame file that cannot be written throws OutputError, and results.pvd lists only whole frames",
          "[output]") {
  if (!fs::exists("/dev/full")) {
    WARN("no /dev/full here: the full-disk test needs it");
    return;
  }
  const fs::path dir = fresh("library_full");
  fs::create_directories(dir / "frames");
  fs::create_symlink("/dev/full", dir / "frames" / "frame_00002.vtu.tmp");
  const Case c = load_case(shipped("falling_cable_pendulum.json"));
  const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(c.model.initial_positions.data(),
                                                              static_cast<long>(c.model.initial_positions.size()));
  OutputWriter w(c, dir.string());
  Frame f;
  f.q = &q;
  w.write_frame(f);
  w.write_frame(f);
  try {
    w.write_frame(f);
    FAIL("the full disk went unnoticed");
  } catch (const OutputError& e) {
    CHECK(std::string(e.what()) ==
          "error writing " + (dir / "frames" / "frame_00002.vtu.tmp").string() + ": " + std::strerror(ENOSPC));
  }
  CHECK(check_pvd_entries(dir) == std::vector<std::string>{"frames/frame_00000.vtu", "frames/frame_00001.vtu"});
  check_whole_rows(dir / "results.csv");
}
