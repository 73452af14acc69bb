#pragma once
// Choosing the backend a run uses: `--backend cpu|cuda|auto` (and cuda-host for the tests).
#include <memory>
#include <string>

#include "catenary/assembly/backend.hpp"
#include "catenary/assembly/backend_options.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

// CudaOnHost: the CUDA backend's code run on the host (Thrust's host system, UMFPACK in place of
// cuSOLVER's QR; the backend names itself "cuda-code-on-host"), so that the tests check the CUDA
// paths, the command line's included, where there is no GPU. Slow, and no measure of a device.
enum class BackendChoice { Cpu, Cuda, Auto, CudaOnHost };

// "cpu", "cuda", "auto" or "cuda-host"; throws std::invalid_argument for anything else.
BackendChoice parse_backend_choice(const std::string& text);

struct SelectedBackend {
  std::unique_ptr<Backend> backend;
  std::string notice;  // non-empty when auto fell back to the CPU, or a solver choice does not apply: says why
};

// Cpu: the CPU backend. Cuda: the CUDA backend, or BackendUnavailable (no driver, no device,
// not enough device memory for the model and `vectors` vectors of all unknowns, a build without
// CUDA). Auto: the CUDA backend when it can be used, else the CPU backend with a notice. The linear
// solver applies to the CUDA backend (a notice says so when another than auto meets the CPU
// backend). The CUDA backend is sized for the most vectors any analysis holds (kMostBackendVectors).
SelectedBackend make_backend(BackendChoice choice, const Model& m, LinearSolverChoice solver = LinearSolverChoice::Auto,
                             const BackendOptions& options = {});
// The same for the analysis to run: its linear solver, its vectors (backend_vector_count), whether
// it reuses factorizations (reuses_factorizations: the CUDA backend's automatic block method) and
// its float factors (backend_options), all from the analysis (integrators/analyses.hpp).
// cuda_device: the GPU a CUDA backend runs on (BackendOptions::cuda_device; -1: the current one).
SelectedBackend make_backend(BackendChoice choice, const Model& m, const AnalysisSettings& analysis,
                             int cuda_device = -1);

// The CUDA devices this process can use: 0 without a driver or a device, or in a build without CUDA.
int cuda_device_count();

// The backend options an analysis asks for (analysis.float_factors); the rest at their defaults.
BackendOptions backend_options(const AnalysisSettings& analysis);

}  // namespace catenary
