// How many threads a run takes: the environment's grant read and bounded (OMP_NUM_THREADS,
// SLURM_CPUS_PER_TASK, the affinity mask, the cgroup quota, the idle CPUs), one thread for a small
// model, --threads as given; checked on the rules and through the command line.
#include <catch2/catch.hpp>
#include <sched.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "catenary/core/thread_budget.hpp"
#include "cli_helpers.hpp"

namespace {

namespace fs = std::filesystem;
using catenary::choose_threads;
using catenary::kSerialBelowUnknowns;
using catenary::ThreadChoice;
using catenary::ThreadEnvironment;

// Sets (or, with nullopt, removes) an environment variable for the scope, restoring it after.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedVariable() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

ThreadEnvironment granted(int affinity, int cgroup = 0, int slurm = 0, int omp = 0) {
  ThreadEnvironment e;
  e.affinity_cpus = affinity;
  e.cgroup_cpus = cgroup;
  e.slurm_cpus_per_task = slurm;
  e.omp_num_threads = omp;
  return e;
}

constexpr long kLarge = 10 * kSerialBelowUnknowns;

}  // namespace

TEST_CASE("thread counts and cgroup quotas parse as OpenMP and the kernel write them", "[threads]") {
  CHECK(catenary::parse_thread_count("4") == 4);
  CHECK(catenary::parse_thread_count(" 8 ") == 8);
  CHECK(catenary::parse_thread_count("4,2") == 4);  // nested levels: the outer team
  CHECK(catenary::parse_thread_count("") == 0);
  CHECK(catenary::parse_thread_count("0") == 0);
  CHECK(catenary::parse_thread_count("-3") == 0);
  CHECK(catenary::parse_thread_count("two") == 0);
  CHECK(catenary::parse_thread_count("3x") == 0);
  CHECK(catenary::parse_thread_count("99999999999") == 0);
  CHECK(catenary::cgroup_quota_cpus("max 100000") == 0);
  CHECK(catenary::cgroup_quota_cpus("200000 100000") == 2);
  CHECK(catenary::cgroup_quota_cpus("150000 100000") == 2);  // 1.5 CPUs: two threads share them
  CHECK(catenary::cgroup_quota_cpus("50000 100000") == 1);
  CHECK(catenary::cgroup_quota_cpus("") == 0);
  CHECK(catenary::cgroup_quota_cpus("100000 0") == 0);
}

TEST_CASE("the default takes the smallest grant, no more idle CPUs than there are, one for a small model",
          "[threads]") {
  int probes = 0;
  const auto idle = [&](double cpus) {
    return [&probes, cpus] {
      ++probes;
      return cpus;
    };
  };
  const ThreadChoice affinity = choose_threads(0, granted(8), kLarge, idle(8.0));
  CHECK(affinity.threads == 8);
  CHECK(affinity.reason == "CPU affinity");
  const ThreadChoice quota = choose_threads(0, granted(8, 3), kLarge, idle(8.0));
  CHECK(quota.threads == 3);
  CHECK(quota.reason == "cgroup CPU quota");
  const ThreadChoice slurm = choose_threads(0, granted(8, 3, 2), kLarge, idle(8.0));
  CHECK(slurm.threads == 2);
  CHECK(slurm.reason == "SLURM_CPUS_PER_TASK");
  // Another process busy on one of two CPUs: 0.9 idle rounds to 1, never to none.
  const ThreadChoice loaded = choose_threads(0, granted(2), kLarge, idle(0.9));
  CHECK(loaded.threads == 1);
  CHECK(loaded.reason == "CPU affinity 2, 1 idle");
  CHECK(choose_threads(0, granted(2), kLarge, idle(0.2)).threads == 1);
  CHECK(choose_threads(0, granted(4), kLarge, idle(2.6)).threads == 3);
  CHECK(choose_threads(0, granted(2), kLarge, idle(-1.0)).threads == 2);  // /proc/stat unreadable
  CHECK(probes == 7);
  // A small model takes one thread without the look at the idle CPUs.
  const ThreadChoice small = choose_threads(0, granted(8), kSerialBelowUnknowns - 1, idle(8.0));
  CHECK(small.threads == 1);
  CHECK(small.reason == "small model");
  CHECK(probes == 7);
  // OMP_NUM_THREADS is the user's own choice: used as given for a large model, idle or not.
  const ThreadChoice omp = choose_threads(0, granted(2, 0, 0, 6), kLarge, idle(0.5));
  CHECK(omp.threads == 6);
  CHECK(omp.reason == "OMP_NUM_THREADS");
  CHECK(choose_threads(0, granted(2, 0, 0, 6), 10, idle(0.5)).threads == 1);
  // --threads, exactly.
  const ThreadChoice asked = choose_threads(5, granted(2, 1, 1, 3), 10, idle(0.0));
  CHECK(asked.threads == 5);
  CHECK(asked.reason == "--threads");
  CHECK(probes == 7);
  CHECK(choose_threads(0, granted(0), kLarge, idle(4.0)).reason == "no CPU count found");
}

TEST_CASE("the environment's grant is read from the process itself", "[threads]") {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
  const ScopedVariable omp("OMP_NUM_THREADS", "3,1");
  const ScopedVariable slurm("SLURM_CPUS_PER_TASK", "7");
  const ThreadEnvironment e = catenary::read_thread_environment();
  CHECK(e.affinity_cpus == CPU_COUNT(&set));
  CHECK(e.omp_num_threads == 3);
  CHECK(e.slurm_cpus_per_task == 7);
  CHECK(e.cgroup_cpus >= 0);
  const double idle = catenary::idle_cpus(30);
  CHECK(idle >= 0.0);
  CHECK(idle <= CPU_COUNT(&set) + 1e-9);
}

TEST_CASE("every command says how many threads it takes and why", "[threads][cli]") {
  const fs::path dir = fs::temp_directory_path() / "catenary_thread_budget";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A cable of 1,000 elements, 6,006 unknowns: above kSerialBelowUnknowns; the shipped case below it.
  const std::string small = std::string(CATENARY_SOURCE_DIR) + "/cases/hanging_cable.json";
  nlohmann::json large = nlohmann::json::parse(std::ifstream(small));
  large["model"]["bodies"][0]["elements"] = 1000;
  const fs::path large_case = dir / "large.json";
  std::ofstream(large_case) << large.dump();
  const fs::path log = dir / "log.txt";
  const ScopedVariable no_slurm("SLURM_CPUS_PER_TASK", std::nullopt);
  {
    const ScopedVariable omp("OMP_NUM_THREADS", "3");
    REQUIRE(catenary::testing::run_catenary("check " + large_case.string(), log) == 0);
    CHECK(catenary::testing::slurp(log).find("threads: 3 (OMP_NUM_THREADS)") != std::string::npos);
    REQUIRE(catenary::testing::run_catenary("check " + small, log) == 0);
    CHECK(catenary::testing::slurp(log).find("threads: 1 (small model)") != std::string::npos);
    REQUIRE(catenary::testing::run_catenary("check " + small + " --threads 4", log) == 0);
    CHECK(catenary::testing::slurp(log).find("threads: 4 (--threads)") != std::string::npos);
  }
  const ScopedVariable no_omp("OMP_NUM_THREADS", std::nullopt);
  {
    const ScopedVariable slurm("SLURM_CPUS_PER_TASK", "1");
    REQUIRE(catenary::testing::run_catenary("check " + large_case.string(), log) == 0);
    const std::string out = catenary::testing::slurp(log);
    CHECK((out.find("threads: 1 (SLURM_CPUS_PER_TASK)") != std::string::npos ||
           out.find("threads: 1 (CPU affinity)") != std::string::npos));
  }
  // A bad count is refused as bad input, on every command.
  for (const std::string& command : {"check " + small, "run " + small, "compare " + small, "gather " + dir.string()}) {
    CHECK(catenary::testing::run_catenary(command + " --threads 0", log) == 2);
    CHECK(catenary::testing::slurp(log).find("--threads") != std::string::npos);
  }
  fs::remove_all(dir);
}
