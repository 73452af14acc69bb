#include "mpi_ranks.hpp"

#include <mpi.h>

#include <cstdlib>

namespace catenary::cli {

namespace {

// Whether an MPI launcher started this process: Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE, a
// PMIx launcher (srun --mpi=pmix, Open MPI 5's prterun) PMIX_RANK, a PMI one (srun --mpi=pmi2,
// MPICH's hydra) PMI_RANK.
bool started_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

// An exit code's place in worst_exit_code's order, times 256, plus the code: the larger is the worse,
// so that MPI_MAX over the ranks picks the worst.
int severity(int code) {
  const int rank = code == 0 ? 0 : code == 1 ? 1 : code == 3 ? 2 : code >= 128 ? 3 : code == 4 ? 4 : 5;
  return rank * 256 + code;
}

}  // namespace

int worst_exit_code(int a, int b) { return severity(a) >= severity(b) ? a : b; }

MpiRanks::MpiRanks(int& argc, char**& argv) {
  if (!started_by_mpi_launcher()) return;
  MPI_Init(&argc, &argv);
  started_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_free(&local);
}

MpiRanks::~MpiRanks() {
  if (started_) MPI_Finalize();
}

int MpiRanks::worst_of_ranks(int code) const {
  if (!started_) return code;
  int mine = severity(code), worst = mine;
  MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst % 256;
}

bool MpiRanks::on_all_ranks(bool yes) const {
  if (!started_) return yes;
  int mine = yes ? 1 : 0, all = mine;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

int MpiRanks::rank_zero_code(int code) const {
  if (started_) MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}

}  // namespace catenary::cli
