// The command line end to end: a shipped case runs and writes its results; a failing
// simulation exits with code 3, says why, and leaves valid output.
#include <catch2/catch.hpp>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

int run(const std::string& args, const fs::path& log) {
  const std::string cmd = std::string(CATENARY_BINARY) + " " + args + " > " + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int count_lines(const fs::path& p) {
  std::ifstream in(p);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
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
