#pragma once
// Host interface of the CUDA backend (kernels/cuda_backend.cu). Plain C++ so the CPU code and
// the tests can use it without CUDA headers. Available only when the project is built with
// CATENARY_CUDA (CATENARY_WITH_CUDA defined).
#include <memory>
#include <string>

#include <Eigen/SparseCore>

#include "catenary/assembly/backend.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/model.hpp"

namespace catenary::cuda {

// True if a CUDA device can be used; otherwise `why` says what is missing (no driver, no device).
bool device_available(std::string& why);

// The current device's peak memory bandwidth in bytes per second (memory clock x bus width,
// double data rate), and its name; 0 and "" when no device can be asked.
double peak_memory_bandwidth();
std::string device_name();

// Device memory the CUDA backend needs for a model, without the sparse QR factor (whose size
// cuSOLVER reports after its analysis): about 10 kB per element of the 3D cable, 4.7 kB of it
// resident (mostly the 12 x 12 local matrices and their CSR slots) and 5 kB more while the
// pattern is built (the sort keys and their second buffer); for chain models plus the block
// cyclic reduction's 5 B doubles per unknown (1.4 kB per node at B = 6 and 2.2 kB at B = 9,
// where a pinned end's three rows make one node block 9 wide).
size_t estimated_device_bytes(const Model& m);

// The linear solver of the CUDA backend (the case file's analysis.linear_solver). BlockTridiagonal
// (block cyclic reduction, kernels/block_tridiagonal_solver.cu) and ChainElimination (block
// elimination along each chain, one thread per chain, solve/chain_elimination.hpp) need a chain
// model (assembly/block_chain_ordering.hpp), whose rigid bodies, rows over several nodes and
// mechanism rows go to a border of at most kMaxBorder unknowns (kernels/bordered_solver.cu);
// SparseQr is cuSOLVER's sparse QR in AMD order (UMFPACK in the host build), for any model. Auto
// takes a block method where the model is a chain, border or not (preferred_block_method, from H100
// measurements: elimination for many short chains of few blocks in all, else reduction), else
// sparse QR. Krylov (GMRES with block-Jacobi over the node blocks,
// kernels/krylov_solver.cu) is chosen only when asked: it suits small time steps.
using LinearSolver = LinearSolverChoice;

// The CUDA backend of a model: element kernels, device assembly, the chosen solver. Throws
// BackendUnavailable when the model does not fit in the free device memory (checked with the
// estimate before anything is allocated, and against the solver's workspace after analysis), or
// when a block method is asked for a model that is not a chain.
std::unique_ptr<Backend> make_cuda_backend(const Model& m, LinearSolver solver = LinearSolver::Auto);

// The same backend code run on the host (Thrust's host system; UMFPACK in place of cuSOLVER's
// QR): lets the tests check the CUDA backend's indexing, assembly, solvers and vector logic
// against the CPU backend on machines without a GPU.
std::unique_ptr<Backend> make_cuda_backend_on_host(const Model& m, LinearSolver solver = LinearSolver::Auto);

// The Newton matrix a CUDA backend (either space) last assembled, in the original unknown order
// (coordinates, then multipliers), copied to the host: for tests against the CPU backend.
Eigen::SparseMatrix<double> assembled_matrix(const Backend& cuda_backend);

}  // namespace catenary::cuda
