#pragma once
// Host interface of the CUDA backend (kernels/cuda_backend.cu). Plain C++ so the CPU code and
// the tests can use it without CUDA headers. Available only when the project is built with
// CATENARY_CUDA (CATENARY_WITH_CUDA defined).
#include <Eigen/SparseCore>
#include <memory>
#include <string>

#include "catenary/assembly/backend.hpp"
#include "catenary/assembly/backend_options.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/model.hpp"
#include "catenary/solve/block_layout.hpp"

namespace catenary::cuda {

// True if a CUDA device can be used; otherwise `why` says what is missing (no driver, no device).
bool device_available(std::string& why);
// The CUDA devices present (0 without a driver or a device).
int device_count();

// The current device's peak memory bandwidth in bytes per second (memory clock x bus width,
// double data rate), and its name; 0 and "" when no device can be asked.
double peak_memory_bandwidth();
std::string device_name();

// Device memory the CUDA backend needs for a model at its peak, without the sparse QR factor
// (whose size cuSOLVER reports after its analysis): the larger of the pattern's construction (sort
// keys and their second buffer) and the run (the 12 x 12 local matrices, their CSR slots, the
// block solver, and `vectors` vectors of all unknowns: backend_vector_count of the analysis, by
// default the most any holds). For the 3D cable at 1,000,000 elements, 7.0 kB an element with
// HHT's 18 vectors (7.7 with the float copy) and 7.9 with BDF's 36 at order 5, plus
// kDevicePageAllowance; the arrays are counted on the host build (host_array_peak_bytes), and a
// run's peak measured on an H200 stays under the estimate (7,014 against 7,267 MiB;
// docs/performance.md, Device memory). options: shared element records, held rows,
// and the block solver's float copy of its factors (BlockSolverOptions::float_factors), which only
// modified Newton allocates but the estimate counts where the options ask for it.
size_t estimated_device_bytes(const Model& m, int vectors = kMostBackendVectors, const BackendOptions& options = {});
// cudaMalloc maps a large array in whole 2 MiB pages, up to 2 MiB more than its bytes, and the
// backend holds at most 113 arrays at once (counted on the host build: BDF order 5, the planar
// beams with a border); the H100 measured 812 to 846 MiB at 100,000 elements, 780 MiB of arrays.
// The estimate adds 128 arrays' rounding.
constexpr size_t kDevicePageAllowance = 128 * (size_t{2} << 20);

// The most bytes the arrays of make_cuda_backend_on_host's backends held at once since the last
// reset (which sets it to the bytes held now): the allocations the device backend makes, the same
// code, counted without a GPU; Thrust's temporary buffers (a sort's) are not among them.
size_t host_array_peak_bytes();
void reset_host_array_peak_bytes();

// The linear solver of the CUDA backend (the case file's analysis.linear_solver). BlockTridiagonal
// (block cyclic reduction, kernels/block_tridiagonal_solver.cu) and ChainElimination (block
// elimination along each chain, one thread per chain, solve/chain_elimination.hpp) need a chain
// model (assembly/block_chain_ordering.hpp), whose rigid bodies, rows over several nodes and
// mechanism rows go to a border of at most kMaxBorder unknowns (kernels/bordered_solver.cu);
// SparseQr is cuSOLVER's sparse QR in AMD order (UMFPACK in the host build), for any model. Auto
// takes a block method where the model is a chain, border or not (preferred_block_method, from H100
// measurements: elimination for many short chains of few blocks in all, else reduction; and for
// modified Newton, elimination by interleaved groups on at least 4,096 equal chains of 6 x 6
// blocks: interleaved_elimination_preferred), else sparse QR. Krylov (GMRES with block-Jacobi over the node blocks,
// kernels/krylov_solver.cu) is chosen only when asked: it suits small time steps.
using LinearSolver = LinearSolverChoice;

// The CUDA backend of a model: element kernels, device assembly, the chosen solver. Throws
// BackendUnavailable when the model does not fit in the free device memory (checked with the
// estimate for `vectors` vectors of all unknowns before anything is allocated, and against the
// solver's workspace after analysis), or when a block method is asked for a model that is not a
// chain. reuses_factorizations: the analysis solves several times from a factorization (modified
// Newton: reuses_factorizations(AnalysisSettings)), which weighs Auto's block method. options:
// the paths it takes where there is a choice (BackendOptions), and the device it runs on
// (options.cuda_device, made the calling thread's current device first; BackendUnavailable where
// it cannot be).
std::unique_ptr<Backend> make_cuda_backend(const Model& m, LinearSolver solver, int vectors,
                                           bool reuses_factorizations = false, const BackendOptions& options = {});
// The same with room for the most vectors any analysis holds.
std::unique_ptr<Backend> make_cuda_backend(const Model& m, LinearSolver solver = LinearSolver::Auto);

// The same backend code run on the host (Thrust's host system; UMFPACK in place of cuSOLVER's
// QR): lets the tests check the CUDA backend's indexing, assembly, solvers and vector logic
// against the CPU backend on machines without a GPU.
std::unique_ptr<Backend> make_cuda_backend_on_host(const Model& m, LinearSolver solver, bool reuses_factorizations,
                                                   const BackendOptions& options = {});
// The same for an analysis that does not reuse factorizations.
std::unique_ptr<Backend> make_cuda_backend_on_host(const Model& m, LinearSolver solver = LinearSolver::Auto);

// The Newton matrix a CUDA backend (either space) last assembled, in the original unknown order
// (coordinates, then multipliers), copied to the host: for tests against the CPU backend.
Eigen::SparseMatrix<double> assembled_matrix(const Backend& cuda_backend);

}  // namespace catenary::cuda
