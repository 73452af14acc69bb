#pragma once
// Choices a backend is built with, passed to its constructor (CpuBackend, make_cuda_backend,
// make_cuda_backend_on_host) and by the factory (make_backend) from the analysis settings. The
// defaults are the paths catenary runs; each alternative is a general path the default
// specialises, kept where a model needs it anyway and selectable so the tests can hold one
// against the other.
#include "catenary/solve/block_solver_options.hpp"

namespace catenary {

// Vectors of all unknowns (coordinates and constraint rows) an analysis holds on a backend at
// most (backend_vector_count, integrators/analyses.hpp): BDF at order 5 with fixed coefficients by
// modified Newton. A backend sized for it serves any analysis.
constexpr int kMostBackendVectors = 41;

struct BackendOptions {
  // Elements of equal values read one shared record where such records are few
  // (model/element_records.hpp, reads_shared_records); false: one record an element.
  bool share_element_records = true;
  // CUDA: the forces pass sums the residual along chains of nodes where the elements form such
  // chains (kernels/chain_forces_pass.cuh); false: the plain forces pass and its gather.
  bool chain_forces_pass = true;
  BlockSolverOptions block_solver;
  // CUDA: the device the backend runs on (its number, from 0; set as the constructing thread's
  // current device, on which the backend then makes all its calls); -1: the thread's current one.
  // One process per GPU (mpirun ranks) passes its own.
  int cuda_device = -1;
};

}  // namespace catenary
