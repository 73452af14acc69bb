#pragma once
// The command's place among the ranks of an MPI job (`mpirun -n N catenary run SWEEP.json`): the
// only code that calls MPI, compiled only in a build with CATENARY_MPI (the library has none).
// sweep_over_ranks.cpp uses it to split a sweep over the ranks.
namespace catenary::cli {

class MpiRanks {
 public:
  // Starts MPI where an MPI launcher started this process (mpirun, or srun with PMI or PMIx: the
  // rank it set in the environment); otherwise the process stays one rank of one and MPI is never
  // started, so that a plain `catenary` pays nothing for it.
  MpiRanks(int& argc, char**& argv);
  ~MpiRanks();  // MPI_Finalize, where MPI was started
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  // The rank's number among the job's ranks on its machine (MPI_COMM_TYPE_SHARED), which picks its GPU.
  int local_rank() const { return local_rank_; }

  // Collective (every rank calls it, so it is the job's barrier too): the worst of the ranks' exit
  // codes by worst_exit_code's order.
  int worst_of_ranks(int code) const;
  // Collective: whether `yes` holds on every rank.
  bool on_all_ranks(bool yes) const;
  // Collective: rank 0's code, on every rank.
  int rank_zero_code(int code) const;

 private:
  bool started_ = false;
  int rank_ = 0, ranks_ = 1, local_rank_ = 0;
};

// The worse of two exit codes of the command (README, Exit codes): bad input (2) before a result
// file that could not be written (4), before a stop by a signal (130, 143: the larger), before a
// failed simulation (3), before a comparison's difference (1), before success (0).
int worst_exit_code(int a, int b);

}  // namespace catenary::cli
