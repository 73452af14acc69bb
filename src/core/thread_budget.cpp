#include "catenary/core/thread_budget.hpp"

#include <sched.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

namespace catenary {

namespace {

std::string environment_value(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  return CPU_COUNT(&set);
}

// Per CPU of the affinity mask, its idle and total ticks from /proc/stat ("cpuN user nice system
// idle iowait irq softirq steal ..."); false where it cannot be read.
bool cpu_ticks(std::vector<std::pair<long long, long long>>& ticks) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::ifstream in("/proc/stat");
  if (!in || sched_getaffinity(0, sizeof(set), &set) != 0) return false;
  ticks.clear();
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 3, "cpu") != 0 || line.size() < 4 || line[3] == ' ') continue;
    std::istringstream fields(line.substr(3));
    int cpu = -1;
    fields >> cpu;
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set)) continue;
    long long value = 0, idle = 0, total = 0;
    for (int k = 0; fields >> value; ++k) {
      if (k < 8) total += value;  // guest time is counted in user time already
      if (k == 3 || k == 4) idle += value;
    }
    ticks.emplace_back(idle, total);
  }
  return !ticks.empty();
}

// The cgroup v1 quota: cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us.
int cgroup_v1_cpus(const std::string& directory) {
  const std::string quota = first_line(directory + "/cpu.cfs_quota_us");
  const std::string period = first_line(directory + "/cpu.cfs_period_us");
  if (quota.empty() || period.empty() || quota[0] == '-') return 0;
  return cgroup_quota_cpus(quota + " " + period);
}

// The smallest quota on the path from the process's cgroup up to the root (a parent's quota bounds
// its children's). /proc/self/cgroup names the cgroup: "0::/PATH" (v2) or "N:cpu,cpuacct:/PATH" (v1).
int cgroup_cpus() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  int smallest = 0;
  const auto take = [&](int cpus) {
    if (cpus > 0) smallest = smallest == 0 ? cpus : std::min(smallest, cpus);
  };
  while (std::getline(in, line)) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    const bool v2 = line.compare(0, first, "0") == 0 && controllers.empty();
    const bool v1_cpu = controllers.find("cpu") != std::string::npos && controllers != "cpuset";
    if (!v2 && !v1_cpu) continue;
    for (;;) {
      const std::string directory = v2 ? "/sys/fs/cgroup" + path : "/sys/fs/cgroup/" + controllers + path;
      take(v2 ? cgroup_quota_cpus(first_line(directory + "/cpu.max")) : cgroup_v1_cpus(directory));
      if (path.empty() || path == "/") break;
      path = path.substr(0, path.find_last_of('/'));
    }
  }
  return smallest;
}

}  // namespace

int parse_thread_count(const std::string& text) {
  const std::string first = text.substr(0, text.find(','));
  const size_t start = first.find_first_not_of(" \t"), end = first.find_last_not_of(" \t");
  if (start == std::string::npos) return 0;
  const std::string digits = first.substr(start, end - start + 1);
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stoi(digits);
}

double idle_cpus(int milliseconds) {
  std::vector<std::pair<long long, long long>> before, after;
  if (!cpu_ticks(before)) return -1.0;
  std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
  if (!cpu_ticks(after) || after.size() != before.size()) return -1.0;
  double idle = 0.0;
  for (size_t k = 0; k < before.size(); ++k) {
    const long long total = after[k].second - before[k].second;
    if (total > 0) idle += static_cast<double>(after[k].first - before[k].first) / static_cast<double>(total);
  }
  return idle;
}

int cgroup_quota_cpus(const std::string& cpu_max) {
  std::istringstream in(cpu_max);
  std::string quota;
  long long period = 0;
  if (!(in >> quota >> period) || period <= 0 || quota == "max") return 0;
  char* end = nullptr;
  const long long q = std::strtoll(quota.c_str(), &end, 10);
  if (*end != '\0' || q <= 0) return 0;
  return static_cast<int>((q + period - 1) / period);
}

ThreadEnvironment read_thread_environment() {
  ThreadEnvironment e;
  e.omp_num_threads = parse_thread_count(environment_value("OMP_NUM_THREADS"));
  e.slurm_cpus_per_task = parse_thread_count(environment_value("SLURM_CPUS_PER_TASK"));
  e.affinity_cpus = affinity_cpus();
  e.cgroup_cpus = cgroup_cpus();
  return e;
}

ThreadChoice choose_threads(int requested, const ThreadEnvironment& environment, long unknowns,
                            const std::function<double()>& idle) {
  if (requested > 0) return {requested, "--threads"};
  if (environment.omp_num_threads > 0)
    return unknowns < kSerialBelowUnknowns ? ThreadChoice{1, "small model"}
                                           : ThreadChoice{environment.omp_num_threads, "OMP_NUM_THREADS"};
  ThreadChoice grant{0, ""};
  const auto bound = [&](int cpus, const char* source) {
    if (cpus > 0 && (grant.threads == 0 || cpus < grant.threads)) grant = {cpus, source};
  };
  bound(environment.affinity_cpus, "CPU affinity");
  bound(environment.cgroup_cpus, "cgroup CPU quota");
  bound(environment.slurm_cpus_per_task, "SLURM_CPUS_PER_TASK");
  if (grant.threads == 0) return {1, "no CPU count found"};
  if (grant.threads == 1) return grant;
  if (unknowns < kSerialBelowUnknowns) return {1, "small model"};
  const double free = idle();
  const int usable = free < 0.0 ? grant.threads : std::max(1, static_cast<int>(std::lround(free)));
  if (usable >= grant.threads) return grant;
  return {usable, grant.reason + " " + std::to_string(grant.threads) + ", " + std::to_string(usable) + " idle"};
}

void use_threads(int threads) { omp_set_num_threads(std::max(threads, 1)); }

}  // namespace catenary
