// `mpirun -n N catenary run SWEEP.json` (src/cli/sweep_over_ranks.cpp), built with CATENARY_MPI:
// each rank runs its part of the sweep and rank 0 gathers them. The reference is the same sweep
// run as one process: the gathered index and table and every copy's results must be its. The
// refusals exit 2 on every rank with their message, and a resumed job writes the files of the
// job it resumes.
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "catenary/io/result_comparison.hpp"
#include "catenary/io/sweep_writer.hpp"
#include "cli_helpers.hpp"

namespace {

namespace fs = std::filesystem;
using catenary::testing::slurp;

// `mpirun -n RANKS catenary ARGS`, one thread a rank, stdout and stderr into log; the exit code
// mpirun reports. The tests run as root, which Open MPI refuses unless told otherwise.
int mpirun(int ranks, const std::string& args, const fs::path& log) {
  const std::string cmd = "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                          std::string(CATENARY_MPIEXEC) + " --oversubscribe -n " + std::to_string(ranks) + " " +
                          CATENARY_BINARY + " " + args + " --threads 1 > " + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string shipped_case(const std::string& name) { return std::string(CATENARY_SOURCE_DIR) + "/cases/" + name; }

size_t occurrences(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

// The sweep table `joined` is `whole`'s: the same header, copies, parameters and statuses, and
// its numbers to the Newton tolerance (a part's batch iterates to its own convergence).
void check_same_table(const fs::path& joined_file, const fs::path& whole_file) {
  std::istringstream joined(slurp(joined_file)), whole(slurp(whole_file));
  int rows = 0;
  for (std::string a, b; std::getline(whole, b); ++rows) {
    REQUIRE(std::getline(joined, a));
    const std::vector<std::string> x = catenary::split_csv_line(a), y = catenary::split_csv_line(b);
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      INFO("row " << rows << ", column " << i);
      if (rows == 0 || i < 6) {  // the header; each row's copy, parameters and status
        CHECK(x[i] == y[i]);
        continue;
      }
      const double u = std::stod(x[i]), v = std::stod(y[i]);
      CHECK(std::abs(u - v) <= 1e-7 * std::max(1.0, std::abs(v)));
    }
  }
  CHECK(rows == 4);
  std::string extra;
  CHECK_FALSE(std::getline(joined, extra));
}

// A copy's result files (its summary aside, which holds wall times), by path relative to dir.
std::vector<std::string> copy_files(const fs::path& dir) {
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "summary.json") files.push_back(fs::relative(e.path(), dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

// `mpirun -n RANKS catenary ARGS` as mpirun() runs it, in the background (to signal it); its
// process id.
pid_t start_mpirun(int ranks, const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> words = {CATENARY_MPIEXEC, "--oversubscribe", "-n", std::to_string(ranks), CATENARY_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  words.insert(words.end(), {"--threads", "1"});
  return catenary::testing::start_process(std::move(words),
                                          {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}, log);
}

// The processes `pid` started (mpirun's: its ranks), from /proc.
std::vector<pid_t> children(pid_t pid) {
  std::vector<pid_t> found;
  for (const fs::directory_entry& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream list(task.path() / "children");
    for (pid_t child; list >> child;) found.push_back(child);
  }
  return found;
}

}  // namespace

TEST_CASE("mpirun -n 2 and -n 3: the ranks' parts gathered equal the sweep run as one process", "[cli][sweep][mpi]") {
  const std::string sweep = shipped_case("cable_sweep.json");  // 3 copies
  const fs::path out = fs::temp_directory_path() / "catenary_mpi_sweep";
  fs::remove_all(out);
  fs::create_directories(out);
  REQUIRE(catenary::testing::run_catenary("run " + sweep + " --threads 1 --out " + (out / "whole").string(),
                                          out / "whole.log") == 0);
  const nlohmann::json whole = nlohmann::json::parse(slurp(out / "whole" / "sweep.json"));
  for (const int ranks : {2, 3}) {
    const fs::path dir = out / ("ranks_" + std::to_string(ranks)), log = dir.string() + ".log";
    INFO(ranks << " ranks:\n" << slurp(log));
    REQUIRE(mpirun(ranks, "run " + sweep + " --out " + dir.string(), log) == 0);
    const std::string said = slurp(log);
    CHECK(said.find("gathered the 3 copies of " + std::to_string(ranks) + " parts") != std::string::npos);
    // Rank 0 alone prints on stdout: one threads line, one line naming the ranks.
    CHECK(occurrences(said, "threads: 1 (") == 1);
    CHECK(occurrences(said, "sweep over " + std::to_string(ranks) + " MPI ranks") == 1);
    nlohmann::json gathered = nlohmann::json::parse(slurp(dir / "sweep.json"));
    CHECK(gathered["gathered_from"].size() == static_cast<size_t>(ranks));
    gathered.erase("gathered_from");
    CHECK(gathered == whole);
    check_same_table(dir / "sweep.csv", out / "whole" / "sweep.csv");
    for (size_t k = 0; k < 3; ++k) {
      const std::string copy = catenary::SweepWriter::copy_directory_name(k);
      INFO(copy);
      const catenary::ComparisonReport report =
          catenary::compare_result_files((out / "whole" / copy / "results.csv").string(),
                                         (dir / copy / "results.csv").string(), catenary::ComparisonTolerance{1e-7, 1e-12});
      for (const std::string& p : report.problems) UNSCOPED_INFO(p);
      CHECK(report.pass());
    }
  }
}

TEST_CASE("mpirun: a part with a failed copy fails the job (exit 3 on every rank), the copy named", "[cli][sweep][mpi]") {
  const fs::path out = fs::temp_directory_path() / "catenary_mpi_failing";
  fs::remove_all(out);
  const std::string failing = std::string(CATENARY_SOURCE_DIR) + "/tests/failing_cases/diverging_sweep.json";
  const fs::path log = out.string() + ".log";
  INFO(slurp(log));
  // Rank 0's part (copy 0) runs to its end, rank 1's (copies 1 and 2) loses copy 1.
  CHECK(mpirun(2, "run " + failing + " --out " + out.string(), log) == 3);
  CHECK(slurp(log).find("copy 1 of 3 failed") != std::string::npos);
  const nlohmann::json index = nlohmann::json::parse(slurp(out / "sweep.json"));
  CHECK(index["status"] == "failed");
  CHECK(index["copies"][0]["status"] == "ok");
  CHECK(index["copies"][1]["status"] == "failed");
}

TEST_CASE("mpirun refuses --part, --copies, a case without a sweep, more ranks than copies and other commands (exit 2)",
          "[cli][sweep][mpi]") {
  const std::string sweep = shipped_case("cable_sweep.json");
  const fs::path out = fs::temp_directory_path() / "catenary_mpi_refused", log = out.string() + ".log";
  fs::remove_all(out);
  const auto refused = [&](int ranks, const std::string& args, const std::string& message) {
    INFO(args << ":\n" << slurp(log));
    CHECK(mpirun(ranks, args, log) == 2);
    CHECK(slurp(log).find(message) != std::string::npos);
  };
  refused(2, "run " + sweep + " --part 0/2 --out " + out.string(), "--part 0/2: under mpirun the 2 ranks are the sweep's parts");
  refused(3, "run " + sweep + " --copies 0-1 --out " + out.string(), "--copies 0-1: under mpirun the 3 ranks");
  refused(2, "run " + shipped_case("falling_cable_pendulum.json") + " --out " + out.string(),
          "selects copies of a sweep, and this case has no sweep");
  refused(4, "run " + sweep + " --out " + out.string(), "more parts than copies leaves parts empty");
  refused(2, "check " + sweep, "'check' on 2 MPI ranks: only `run` of a sweep splits over ranks");
  CHECK_FALSE(fs::exists(out / "sweep.json"));
}

TEST_CASE("mpirun -n 2 ranks stopped by SIGTERM, then --resume: each rank resumes its part, the files as if never stopped",
          "[cli][sweep][checkpoint][interrupt][mpi]") {
  const fs::path base = fs::temp_directory_path() / "catenary_mpi_resume";
  fs::remove_all(base);
  fs::create_directories(base);
  nlohmann::json document = nlohmann::json::parse(slurp(shipped_case("cable_sweep.json")));
  document["analysis"]["end_time"] = 8.0;  // a second or two of stepping a rank
  document["output"]["checkpoint_interval"] = 0.4;
  const std::string c = (base / "case.json").string();
  std::ofstream(c) << document.dump(2);
  const fs::path whole = base / "whole", stopped = base / "stopped";
  {
    INFO(slurp(base / "whole.log"));
    REQUIRE(mpirun(2, "run " + c + " --out " + whole.string(), base / "whole.log") == 0);
  }
  // Every rank gets SIGTERM, as a batch system's cancel sends it to each task. (Open MPI 4.1's
  // mpirun, sent a signal itself, passes it on as SIGTERM but stops relaying the ranks' output and
  // exits 1.)
  const pid_t pid = start_mpirun(2, {"run", c, "--out", stopped.string()}, base / "stopped.log");
  REQUIRE(catenary::testing::wait_until([&] {
    return fs::exists(stopped / "sweep_copies_0000-0000.checkpoint.bin") &&
           fs::exists(stopped / "sweep_copies_0001-0002.checkpoint.bin");
  }));
  const std::vector<pid_t> ranks = children(pid);
  CHECK(ranks.size() == 2);
  for (const pid_t rank : ranks) ::kill(rank, SIGTERM);
  const int code = catenary::testing::wait_exit(pid);
  const std::string said = slurp(base / "stopped.log");
  INFO(said);
  const nlohmann::json index = nlohmann::json::parse(slurp(stopped / "sweep.json"));
  // A job that ended before the signal came resumes from its last checkpoints all the same.
  if (index["status"] == "interrupted") {
    CHECK(code == 143);
    CHECK(said.find("did not finish (a run was stopped)") != std::string::npos);
    CHECK(said.find("to resume the job where the case checkpoints: mpirun -n 2") != std::string::npos);
  } else {
    CHECK(index["status"] == "ok");
  }
  const int resumed = mpirun(2, "run " + c + " --resume " + stopped.string(), base / "resume.log");
  INFO(slurp(base / "resume.log"));
  CHECK(resumed == 0);
  CHECK(slurp(base / "resume.log").find("gathered the 3 copies of 2 parts") != std::string::npos);
  for (const fs::directory_entry& copy : fs::directory_iterator(whole)) {
    if (!copy.is_directory()) continue;
    const std::vector<std::string> files = copy_files(copy.path());
    REQUIRE(!files.empty());
    CHECK(copy_files(stopped / copy.path().filename()) == files);
    for (const std::string& f : files) {
      INFO(copy.path().filename().string() << "/" << f);
      CHECK(slurp(stopped / copy.path().filename() / f) == slurp(copy.path() / f));
    }
  }
  CHECK(slurp(stopped / "sweep.csv") == slurp(whole / "sweep.csv"));
  const nlohmann::json resumed_index = nlohmann::json::parse(slurp(stopped / "sweep.json"));
  CHECK(resumed_index["status"] == "ok");
  CHECK(resumed_index["copies"] == nlohmann::json::parse(slurp(whole / "sweep.json"))["copies"]);
  // On another number of ranks the parts differ: theirs have no checkpoint here, refused on every rank.
  CHECK(mpirun(3, "run " + c + " --resume " + stopped.string(), base / "other.log") == 2);
  CHECK(slurp(base / "other.log").find("no checkpoint") != std::string::npos);
}
