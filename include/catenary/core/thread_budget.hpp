#pragma once
// How many OpenMP threads a run uses. By default what the environment grants: OMP_NUM_THREADS
// where it is set, else the smallest of SLURM_CPUS_PER_TASK, the CPUs in the process's affinity
// mask and its cgroup's CPU quota, and of those no more than are idle when the run starts (on a
// core another process keeps busy, each OpenMP barrier waits for a time slice); one thread for a
// model too small for threads to pay. Both rules rest on measurements (docs/performance.md, CPU
// threads). An explicit count (--threads) is used as given. The environment is read by a
// program's entry point (read_thread_environment, idle_cpus) and travels from there as values.
#include <functional>
#include <string>

namespace catenary {

// Below this many unknowns (a sweep: of the batch) a default run uses one thread: the loops'
// fork and join cost more than they share out (docs/performance.md, CPU threads).
constexpr long kSerialBelowUnknowns = 5000;

// What the process was granted; 0 where the source is absent or unreadable.
struct ThreadEnvironment {
  int omp_num_threads = 0;      // OMP_NUM_THREADS (its first value where it lists levels)
  int slurm_cpus_per_task = 0;  // SLURM_CPUS_PER_TASK
  int affinity_cpus = 0;        // CPUs the process may run on (sched_getaffinity)
  int cgroup_cpus = 0;          // the cgroup's CPU quota (cgroup v2 cpu.max or v1 cfs quota), rounded up
};

// The process's own environment, /proc/self/cgroup and /sys/fs/cgroup.
ThreadEnvironment read_thread_environment();

// The whole positive number `text` (spaces around it allowed; OMP_NUM_THREADS's "4,2" gives 4),
// else 0.
int parse_thread_count(const std::string& text);
// How many of the process's CPUs (its affinity mask) were idle over the next `milliseconds`, from
// /proc/stat; -1 where it cannot be read.
double idle_cpus(int milliseconds);

// CPUs of a cgroup v2 cpu.max line ("QUOTA PERIOD", or "max PERIOD": 0, no quota), rounded up.
int cgroup_quota_cpus(const std::string& cpu_max);

// The threads a run uses and why, for the run's report.
struct ThreadChoice {
  int threads = 1;
  std::string reason;  // "--threads", "OMP_NUM_THREADS", "CPU affinity", ..., "small model"
};

// requested > 0: that many (--threads). Else one thread where the model has fewer than
// kSerialBelowUnknowns unknowns, or the environment's grant; below OMP_NUM_THREADS, no more than
// the idle CPUs that `idle` (called only then; a negative count: unknown) rounds to, and at least one.
ThreadChoice choose_threads(int requested, const ThreadEnvironment& environment, long unknowns,
                            const std::function<double()>& idle);

// Makes `threads` the OpenMP team size of the loops that follow (omp_set_num_threads).
void use_threads(int threads);

}  // namespace catenary
