#pragma once
// Host interface of the CUDA backend (kernels/cuda_backend.cu). Plain C++ so the CPU code and
// the tests can use it without CUDA headers. Available only when the project is built with
// CATENARY_CUDA (CATENARY_WITH_CUDA defined).
#include <memory>
#include <string>

#include <Eigen/SparseCore>

#include "catenary/assembly/backend.hpp"
#include "catenary/model/model.hpp"

namespace catenary::cuda {

// True if a CUDA device can be used; otherwise `why` says what is missing (no driver, no device).
bool device_available(std::string& why);

// The CUDA backend of a model: element kernels, device assembly, cuSOLVER sparse QR. Throws
// BackendUnavailable when the model does not fit in the free device memory.
std::unique_ptr<Backend> make_cuda_backend(const Model& m);

// The same backend code run on the host (Thrust's host system, UMFPACK for the solve in place
// of cuSOLVER): lets the tests check the CUDA backend's indexing, assembly and vector logic
// against the CPU backend on machines without a GPU.
std::unique_ptr<Backend> make_cuda_backend_on_host(const Model& m);

// The Newton matrix a CUDA backend (either space) last assembled, in the original unknown order
// (coordinates, then multipliers), copied to the host: for tests against the CPU backend.
Eigen::SparseMatrix<double> assembled_matrix(const Backend& cuda_backend);

}  // namespace catenary::cuda
