#include "sweep_over_ranks.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "catenary/model/sweep.hpp"

namespace catenary::cli {

namespace {

// The GPU of a rank whose backend may be CUDA: its place among the machine's ranks, round the
// machine's devices; -1 (the current device) for the CPU backends or where there is no device.
int rank_device(const MpiRanks& ranks, BackendChoice choice) {
  if (choice != BackendChoice::Cuda && choice != BackendChoice::Auto) return -1;
  const int devices = cuda_device_count();
  return devices > 0 ? ranks.local_rank() % devices : -1;
}

}  // namespace

int run_sweep_over_ranks(const MpiRanks& ranks, const std::string& case_path, const std::string& out,
                         const std::string& resume, const std::string& backend, const CopySelection& selection,
                         const ThreadRequest& threads, const Interruption& interruption) {
  const size_t rank = static_cast<size_t>(ranks.rank()), count = static_cast<size_t>(ranks.ranks());
  const std::string n = std::to_string(count), who = "rank " + std::to_string(rank) + " of " + n + ": ";
  if (rank != 0) {  // rank 0 alone prints on stdout
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDOUT_FILENO), ::close(null);
  }
  if (selection.kind != CopySelection::Kind::All) {
    if (rank == 0)
      std::fprintf(stderr,
                   "catenary: error: %s: under mpirun the %s ranks are the sweep's parts (rank K runs part K/%s): "
                   "leave it out, or run that part as one process without mpirun\n",
                   selection.option.c_str(), n.c_str(), n.c_str());
    return kExitBadInput;
  }
  const CopySelection part{CopySelection::Kind::Part, rank, count,
                           "mpirun -n " + n + " (rank " + std::to_string(rank) + ": part " + std::to_string(rank) +
                               "/" + n + ")"};
  int code = kExitOk;
  bool indexed = false;  // the part ran and wrote its index (whatever became of its copies)
  std::string dir;
  try {
    const BackendChoice choice = parse_backend_choice(backend);
    const std::vector<SweepCase> cases = load_cases(case_path, part);
    set_run_threads(threads, cases);
    const OutputDirectory run_dir = run_directory(cases.front().c, out, resume);
    dir = run_dir.path;
    const int device = rank_device(ranks, choice);
    std::printf("sweep over %s MPI ranks, rank K running part K/%s into %s; rank 0's lines follow%s\n", n.c_str(),
                n.c_str(), dir.c_str(), device < 0 ? "" : (", on CUDA device " + std::to_string(device)).c_str());
    code = run_sweep_and_report(cases, case_path, run_dir, choice, interruption, nullptr, !resume.empty(), device);
    indexed = true;
  } catch (...) {
    code = report_exception(who);
  }
  // Every rank gets here, so none waits on another that failed.
  const int job = ranks.worst_of_ranks(code);
  int result = job;
  if (ranks.on_all_ranks(indexed) && rank == 0) {
    try {
      const int gathered = gather_command(dir);
      // A stopped run's copies are unfinished, which the gather names (kExitBadInput); the job
      // still ends as stopped.
      if (job < 128) result = worst_exit_code(job, gathered);
      else
        std::fprintf(stderr, "catenary: to resume the job where the case checkpoints: mpirun -n %s catenary run %s --resume %s\n",
                     n.c_str(), case_path.c_str(), dir.c_str());
    } catch (...) {
      result = worst_exit_code(job, report_exception());
    }
  }
  return ranks.rank_zero_code(result);
}

int refuse_command_over_ranks(const MpiRanks& ranks, const std::string& command) {
  if (ranks.rank() == 0)
    std::fprintf(stderr,
                 "catenary: error: '%s' on %d MPI ranks: only `run` of a sweep splits over ranks; run '%s' as one "
                 "process, without mpirun\n",
                 command.c_str(), ranks.ranks(), command.c_str());
  return kExitBadInput;
}

}  // namespace catenary::cli
