#pragma once
// A sweep split over the ranks of an MPI job: `mpirun -n N catenary run SWEEP.json --out DIR`
// (or --resume DIR). Built only with CATENARY_MPI; main.cpp calls it where the job has more than
// one rank.
#include <string>

#include "commands.hpp"
#include "mpi_ranks.hpp"

namespace catenary::cli {

// Rank K runs part K/N of the sweep into DIR, as `run --part K/N` does (its own index in DIR),
// with --backend cuda or auto on the GPU local_rank % (the machine's GPUs); every rank, whatever
// its run's outcome, then meets the others, and where every part ran to its index rank 0 joins
// them into DIR/sweep.json and sweep.csv, as `catenary gather DIR` does. Every rank returns the
// job's exit code: the worst of the ranks' (worst_exit_code), made worse by the gather's where
// the runs were not stopped by a signal. Rank 0 alone prints on stdout; every rank's errors,
// notes and progress go to stderr, an error's line naming its rank. --copies and --part (the
// ranks are the parts), and a case without a sweep, are refused (kExitBadInput) on every rank.
int run_sweep_over_ranks(const MpiRanks& ranks, const std::string& case_path, const std::string& out,
                         const std::string& resume, const std::string& backend, const CopySelection& selection,
                         const ThreadRequest& threads, const Interruption& interruption);

// Any command but run on more than one rank: refused (kExitBadInput), said by rank 0.
int refuse_command_over_ranks(const MpiRanks& ranks, const std::string& command);

}  // namespace catenary::cli
