// Checkpoint and resume. A run that dies some frames after a checkpoint and is resumed from it
// writes, file for file and byte for byte, what the uninterrupted run writes: HHT, generalized-alpha
// (with the stabilized index-2 constraints), adaptive BDF (its history, order and step control), a
// mechanism with rigid bodies, modified Newton (its kept factorization), and the CUDA backend's
// code on the host. `catenary run --resume`
// does the same after SIGKILL and after SIGINT, and for a sweep (every copy, its index and table)
// and a part of one after SIGKILL. A checkpoint of another case, version or model, a
// damaged one and outputs that lost what it recorded are refused with a clear message (exit 2);
// changing only the checkpoint settings is allowed.
#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catenary/core/errors.hpp"
#include "catenary/io/checkpoint_file.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/run/backend_factory.hpp"
#include "catenary/run/run_case.hpp"
#include "cli_helpers.hpp"

namespace {

namespace fs = std::filesystem;
using namespace catenary;
using catenary::testing::slurp;

fs::path fresh(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("catenary_checkpoint_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

nlohmann::json shipped(const std::string& name) {
  return nlohmann::json::parse(slurp(std::string(CATENARY_SOURCE_DIR) + "/cases/" + name));
}

// The shipped falling cable, shortened to `end_time`, a frame every 0.01 s and a checkpoint every
// `checkpoint` s.
nlohmann::json falling_cable(double end_time, double checkpoint) {
  nlohmann::json c = shipped("falling_cable_pendulum.json");
  c["analysis"]["end_time"] = end_time;
  c["output"]["checkpoint_interval"] = checkpoint;
  return c;
}

Case load(const nlohmann::json& document, const fs::path& at) {
  std::ofstream(at) << document.dump(2);
  return load_case(at.string());
}

std::unique_ptr<Backend> backend_for(const Case& c, BackendChoice choice = BackendChoice::Cpu) {
  return std::move(make_backend(choice, c.model, c.analysis).backend);
}

// The files a run wrote (its summary, checkpoint and lock aside), by path relative to dir.
std::vector<std::string> result_files(const fs::path& dir) {
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name != "summary.json" && name != "checkpoint.bin" && name != ".catenary.lock")
      files.push_back(fs::relative(e.path(), dir).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every result file of `resumed` is byte for byte the uninterrupted run's.
void check_same_outputs(const fs::path& uninterrupted, const fs::path& resumed) {
  const std::vector<std::string> files = result_files(uninterrupted);
  REQUIRE(!files.empty());
  CHECK(result_files(resumed) == files);
  for (const std::string& f : files) {
    INFO(f);
    CHECK(slurp(resumed / f) == slurp(uninterrupted / f));
  }
}

struct Killed {};

// Runs c into dir as a process killed (Killed thrown from its frame sink) `frames_after` frames
// after its `checkpoints`-th checkpoint would: its files stay as they were written.
void run_and_die(const Case& c, const fs::path& dir, int checkpoints, int frames_after, BackendChoice choice) {
  const std::unique_ptr<Backend> backend = backend_for(c, choice);
  OutputWriter writer(c, dir.string());
  Checkpoints taken = case_checkpoints(c, *backend, writer);
  int written = 0, frames = 0;
  const auto write = taken.write;
  taken.write = [&](StateRecord& record) {
    write(record);
    ++written;
  };
  const FrameSink sink = [&](const Frame& f) {
    writer.write_frame(f);
    if (written >= checkpoints && ++frames == frames_after) throw Killed();
  };
  CHECK_THROWS_AS(run_analysis(c.analysis, c.output.interval, c.model, *backend, sink, nullptr, taken), Killed);
}

// The case run whole, and run, killed and resumed on a fresh backend, write the same files.
void check_resume(const nlohmann::json& document, const std::string& name, BackendChoice choice = BackendChoice::Cpu) {
  const fs::path base = fresh(name);
  const Case c = load(document, base / "case.json");
  const std::unique_ptr<Backend> whole_backend = backend_for(c, choice);
  const AnalysisRun whole = run_case(c, *whole_backend, (base / "whole").string());
  REQUIRE(whole.summary.status == "ok");
  run_and_die(c, base / "killed", 2, 3, choice);
  CHECK(fs::exists(base / "killed" / "checkpoint.bin"));
  const std::unique_ptr<Backend> resumed_backend = backend_for(c, choice);
  const AnalysisRun resumed = resume_case(c, *resumed_backend, (base / "killed").string());
  REQUIRE(resumed.summary.status == "ok");
  CHECK(resumed.summary.resumed_at > 0.0);
  CHECK(resumed.summary.steps == whole.summary.steps);
  CHECK(resumed.summary.rejected_steps == whole.summary.rejected_steps);
  CHECK(resumed.summary.newton_iterations == whole.summary.newton_iterations);
  CHECK(resumed.summary.largest_error_estimate == whole.summary.largest_error_estimate);
  check_same_outputs(base / "whole", base / "killed");
  const nlohmann::json summary = nlohmann::json::parse(slurp(base / "killed" / "summary.json"));
  CHECK(summary["status"] == "ok");
  CHECK(summary["resumed_at"].get<double>() == resumed.summary.resumed_at);
}

// The checkpoint's CBOR document, to damage it on purpose.
nlohmann::json read_cbor(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return nlohmann::json::from_cbor(bytes);
}

void write_cbor(const fs::path& p, const nlohmann::json& j) {
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_cbor(j);
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace

TEST_CASE("a run killed after a checkpoint and resumed writes the uninterrupted run's files: HHT",
          "[checkpoint]") {
  check_resume(falling_cable(0.6, 0.15), "hht");
}

TEST_CASE("resumed generalized-alpha with the stabilized index-2 constraints equals the uninterrupted run",
          "[checkpoint]") {
  nlohmann::json c = falling_cable(0.6, 0.15);
  c["analysis"].erase("alpha");
  c["analysis"]["integrator"] = "generalized_alpha";
  c["analysis"]["rho_infinity"] = 0.7;
  c["analysis"]["formulation"] = "stabilized_index2";
  check_resume(c, "generalized_alpha");
}

TEST_CASE("resumed adaptive BDF (history, order, step control) equals the uninterrupted run", "[checkpoint][bdf]") {
  nlohmann::json c = falling_cable(1.5, 0.3);
  c["analysis"].erase("alpha");
  c["analysis"]["integrator"] = "bdf";
  c["analysis"]["adaptive"] = {{"min_step", 1e-7}, {"max_step", 5e-3}, {"error_tolerance", 1e-5}};
  check_resume(c, "bdf");
}

TEST_CASE("a resumed mechanism (rigid bodies, joints, a cable) equals the uninterrupted run", "[checkpoint]") {
  nlohmann::json c = shipped("crane_boom_cable.json");
  c["analysis"]["end_time"] = 0.3;
  c["output"]["checkpoint_interval"] = 0.08;
  check_resume(c, "mechanism");
}

TEST_CASE("a resumed run with rigid contacts (located switches, the impact model) equals the uninterrupted run",
          "[checkpoint][rigid-contact]") {
  nlohmann::json crank = shipped("slider_crank_clearance.json");
  crank["analysis"]["end_time"] = 0.06;
  crank["output"]["checkpoint_interval"] = 0.015;
  check_resume(crank, "clearance");
  const nlohmann::json ball = {
      {"name", "ball"},
      {"model",
       {{"dimension", 3},
        {"gravity", {0, 0, -9.81}},
        {"rigid_bodies",
         {{{"name", "ball"}, {"mass", 1.0}, {"inertia", {0.004, 0.004, 0.004}}, {"position", {0, 0, 0.3}},
           {"shapes", {{{"type", "sphere"}, {"radius", 0.1}}}}}}},
        {"contacts",
         {{{"name", "floor"}, {"type", "plane"}, {"bodies", {"ball"}}, {"point", {0, 0, 0}}, {"normal", {0, 0, 1}},
           {"law", {{"type", "impact"}, {"restitution", 0.8}, {"stiffness", 1e6}}}}}}}},
      {"analysis", {{"type", "dynamic"}, {"end_time", 0.5}, {"step", 1e-3}}},
      {"output", {{"interval", 0.01}, {"checkpoint_interval", 0.1}}}};
  check_resume(ball, "impact");
}

TEST_CASE("resumed modified Newton reuses the factorization the uninterrupted run kept: bit for bit",
          "[checkpoint][modified_newton]") {
  nlohmann::json cable = falling_cable(0.6, 0.15);
  cable["analysis"]["newton"] = "modified";
  check_resume(cable, "modified_hht");
  nlohmann::json crane = shipped("crane_boom_cable.json");
  crane["analysis"]["end_time"] = 0.3;
  crane["analysis"].erase("alpha");
  crane["analysis"]["integrator"] = "generalized_alpha";
  crane["analysis"]["newton"] = "modified";
  crane["output"]["checkpoint_interval"] = 0.08;
  check_resume(crane, "modified_generalized_alpha");
}

#ifdef CATENARY_WITH_CUDA
TEST_CASE("a run on the CUDA backend's code (host) resumes to its uninterrupted results", "[checkpoint][cuda-host]") {
  check_resume(falling_cable(0.3, 0.08), "cuda_host", BackendChoice::CudaOnHost);
}
#endif

TEST_CASE("a checkpoint resumes only its own case, version and outputs", "[checkpoint]") {
  const fs::path base = fresh("refused");
  const nlohmann::json document = falling_cable(0.4, 0.1);
  const Case c = load(document, base / "case.json");
  run_and_die(c, base / "run", 1, 2, BackendChoice::Cpu);
  const fs::path checkpoint = base / "run" / "checkpoint.bin";
  const std::string dir = (base / "run").string();
  REQUIRE(fs::exists(checkpoint));

  SECTION("another case: a changed end time, material or mesh") {
    nlohmann::json other = document;
    other["analysis"]["end_time"] = 0.5;
    const Case changed = load(other, base / "other.json");
    CHECK_THROWS_WITH(read_case_checkpoint(changed, dir), Catch::Contains("written for another case"));
    other = document;
    other["model"]["bodies"][0]["elements"] = 12;
    const Case remeshed = load(other, base / "remeshed.json");
    CHECK_THROWS_WITH(read_case_checkpoint(remeshed, dir), Catch::Contains("written for another case"));
  }
  SECTION("only the checkpoint settings changed: accepted") {
    nlohmann::json other = document;
    other["output"]["checkpoint_interval"] = 0.05;
    other["output"]["checkpoint_wall_interval"] = 60;
    const Case changed = load(other, base / "other.json");
    CHECK_NOTHROW(read_case_checkpoint(changed, dir));
  }
  SECTION("another version or format, or a model of another size") {
    nlohmann::json j = read_cbor(checkpoint);
    j["catenary_version"] = "0.0.1";
    write_cbor(checkpoint, j);
    CHECK_THROWS_WITH(read_case_checkpoint(c, dir), Catch::Contains("written by catenary 0.0.1"));
    j = read_cbor(checkpoint);
    j["catenary_version"] = read_cbor(checkpoint)["catenary_version"];
    j["format_version"] = 99;
    write_cbor(checkpoint, j);
    CHECK_THROWS_WITH(read_case_checkpoint(c, dir), Catch::Contains("format 99"));
  }
  SECTION("a damaged or missing checkpoint") {
    const std::string bytes = slurp(checkpoint);
    std::ofstream(checkpoint, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    CHECK_THROWS_WITH(read_case_checkpoint(c, dir), Catch::Contains("not a catenary checkpoint"));
    fs::remove(checkpoint);
    CHECK_THROWS_WITH(read_case_checkpoint(c, dir), Catch::Contains("no checkpoint here"));
  }
  SECTION("a checkpoint without a value the run needs") {
    nlohmann::json j = read_cbor(checkpoint);
    j["vectors"].erase("state.q");
    write_cbor(checkpoint, j);
    const std::unique_ptr<Backend> backend = backend_for(c);
    CHECK_THROWS_AS(resume_case(c, *backend, dir), CheckpointError);
  }
  SECTION("outputs cut shorter than the checkpoint recorded") {
    fs::resize_file(base / "run" / "results.csv", 100);
    const std::unique_ptr<Backend> backend = backend_for(c);
    CHECK_THROWS_WITH(resume_case(c, *backend, dir), Catch::Contains("holds fewer bytes than when the checkpoint"));
  }
}

TEST_CASE("checkpoint settings: positive numbers, dynamic analyses only", "[checkpoint][case]") {
  const fs::path base = fresh("settings");
  nlohmann::json c = falling_cable(0.4, 0.1);
  c["output"]["checkpoint_interval"] = 0;
  CHECK_THROWS_WITH(load(c, base / "zero.json"), Catch::Contains("/output/checkpoint_interval"));
  nlohmann::json statics = shipped("cantilever_static.json");
  statics["output"]["checkpoint_wall_interval"] = 60;
  CHECK_THROWS_WITH(load(statics, base / "static.json"), Catch::Contains("dynamic analyses only"));
}

TEST_CASE("catenary run --resume after SIGKILL and after SIGINT writes the uninterrupted run's files",
          "[cli][checkpoint][interrupt]") {
  const fs::path base = fresh("cli");
  // About two seconds of stepping on one core: long enough to be stopped after its first
  // checkpoint, short enough to run whole.
  nlohmann::json document = falling_cable(12.0, 1.0);
  document["model"]["bodies"][0]["elements"] = 30;
  const std::string c = (base / "case.json").string();
  std::ofstream(c) << document.dump(2);
  REQUIRE(testing::run_catenary("run " + c + " --out " + (base / "whole").string(), base / "whole.log") == 0);

  for (const int signal : {SIGKILL, SIGINT}) {
    const fs::path out = base / ("stopped_" + std::to_string(signal)), log = out.string() + ".log";
    const pid_t pid = testing::start_catenary({"run", c, "--out", out.string()}, log);
    REQUIRE(testing::wait_until([&] { return fs::exists(out / "checkpoint.bin"); }));
    ::kill(pid, signal);
    const int code = testing::wait_exit(pid);
    INFO(slurp(log));
    // (A run that ended before the signal came resumes from its last checkpoint all the same.)
    CHECK((code == (signal == SIGKILL ? 1000 + SIGKILL : 130) || code == 0));
    const int resumed = testing::run_catenary("run " + c + " --resume " + out.string(), base / "resume.log");
    INFO(slurp(base / "resume.log"));
    CHECK(resumed == 0);
    CHECK(slurp(base / "resume.log").find("resuming from the checkpoint at t = ") != std::string::npos);
    check_same_outputs(base / "whole", out);
  }

  SECTION("--resume is refused with --out, and for a directory without a checkpoint of the case or sweep") {
    CHECK(testing::run_catenary("run " + c + " --resume " + (base / "whole").string() + " --out x", base / "bad.log") == 2);
    CHECK(testing::run_catenary("run " + c + " --resume " + (base / "nothing").string(), base / "bad.log") == 2);
    CHECK(slurp(base / "bad.log").find("no such directory") != std::string::npos);
    CHECK(!fs::exists(base / "nothing"));
    fs::create_directories(base / "empty");
    CHECK(testing::run_catenary("run " + c + " --resume " + (base / "empty").string(), base / "bad.log") == 2);
    CHECK(slurp(base / "bad.log").find("no checkpoint here") != std::string::npos);
    const std::string sweep = std::string(CATENARY_SOURCE_DIR) + "/cases/cable_sweep.json";
    CHECK(testing::run_catenary("run " + sweep + " --resume " + (base / "whole").string(), base / "bad.log") == 2);
    CHECK(slurp(base / "bad.log").find("no checkpoint here") != std::string::npos);
  }
}

TEST_CASE("a sweep (whole, and a part) killed with SIGKILL and resumed writes the uninterrupted copies and index",
          "[cli][checkpoint][sweep]") {
  const fs::path base = fresh("sweep");
  nlohmann::json document = shipped("cable_sweep.json");
  document["analysis"]["end_time"] = 4.0;
  document["output"]["checkpoint_interval"] = 0.4;
  const std::string c = (base / "case.json").string();
  std::ofstream(c) << document.dump(2);
  for (const std::vector<std::string>& selection : {std::vector<std::string>{}, {"--part", "1/2"}}) {
    const std::string stem = selection.empty() ? "sweep" : "sweep_copies_0001-0002";
    const std::string part = selection.empty() ? "" : " --part 1/2", name = selection.empty() ? "" : "_part";
    const fs::path whole = base / ("whole" + name), killed = base / ("killed" + name);
    REQUIRE(testing::run_catenary("run " + c + part + " --out " + whole.string(), base / "whole.log") == 0);
    std::vector<std::string> args = {"run", c, "--out", killed.string()};
    args.insert(args.end(), selection.begin(), selection.end());
    const pid_t pid = testing::start_catenary(args, base / "killed.log");
    REQUIRE(testing::wait_until([&] { return fs::exists(killed / (stem + ".checkpoint.bin")); }));
    ::kill(pid, SIGKILL);
    testing::wait_exit(pid);
    const int resumed = testing::run_catenary("run " + c + part + " --resume " + killed.string(), base / "resume.log");
    INFO(slurp(base / "resume.log"));
    CHECK(resumed == 0);
    for (const fs::directory_entry& copy : fs::directory_iterator(whole))
      if (copy.is_directory()) check_same_outputs(copy.path(), killed / copy.path().filename());
    CHECK(slurp(killed / (stem + ".csv")) == slurp(whole / (stem + ".csv")));
    const nlohmann::json index = nlohmann::json::parse(slurp(killed / (stem + ".json")));
    CHECK(index["status"] == "ok");
    CHECK(index["copies"] == nlohmann::json::parse(slurp(whole / (stem + ".json")))["copies"]);
  }
}
