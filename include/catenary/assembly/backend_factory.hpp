#pragma once
// Choosing the backend a run uses: `--backend cpu|cuda|auto`.
#include <memory>
#include <string>

#include "catenary/assembly/backend.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

enum class BackendChoice { Cpu, Cuda, Auto };

// "cpu", "cuda" or "auto"; throws std::invalid_argument for anything else.
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
SelectedBackend make_backend(BackendChoice choice, const Model& m, LinearSolverChoice solver = LinearSolverChoice::Auto);
// The same for the analysis to run: its linear solver, its vectors (backend_vector_count) and
// whether it reuses factorizations (reuses_factorizations: the CUDA backend's automatic block
// method), all from the analysis (integrators/analyses.hpp).
SelectedBackend make_backend(BackendChoice choice, const Model& m, const AnalysisSettings& analysis);

}  // namespace catenary
