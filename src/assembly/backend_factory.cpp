#include "catenary/assembly/backend_factory.hpp"

#include <stdexcept>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/environment.hpp"
#include "catenary/core/errors.hpp"
#ifdef CATENARY_WITH_CUDA
#include "catenary/kernels/cuda_backend.hpp"
#endif

namespace catenary {

BackendChoice parse_backend_choice(const std::string& text) {
  if (text == "cpu") return BackendChoice::Cpu;
  if (text == "cuda") return BackendChoice::Cuda;
  if (text == "auto") return BackendChoice::Auto;
  throw std::invalid_argument("unknown backend '" + text + "' (expected cpu, cuda or auto)");
}

namespace {

std::unique_ptr<Backend> make_cuda(const Model& m, LinearSolverChoice solver, int vectors, bool reuses_factorizations) {
#ifdef CATENARY_WITH_CUDA
  // CATENARY_CUDA_ON_HOST=1: the CUDA backend's code run on the host (Thrust's host system, UMFPACK
  // in place of cuSOLVER's QR; the backend names itself "cuda-code-on-host"), as the [cuda-host]
  // tests run it, so that the command line's CUDA paths (compare, a sweep on the cuda backend) are
  // checked where there is no GPU. Slow, and no measure of a device.
  if (switched_on("CATENARY_CUDA_ON_HOST")) return cuda::make_cuda_backend_on_host(m, solver, reuses_factorizations);
  std::string why;
  if (!cuda::device_available(why)) throw BackendUnavailable("the CUDA backend cannot run: " + why);
  return cuda::make_cuda_backend(m, solver, vectors, reuses_factorizations);
#else
  (void)m;
  (void)solver;
  (void)vectors;
  (void)reuses_factorizations;
  throw BackendUnavailable("the CUDA backend cannot run: this build has no CUDA support (configure with CATENARY_CUDA=ON)");
#endif
}

SelectedBackend select_backend(BackendChoice choice, const Model& m, LinearSolverChoice solver, int vectors,
                               bool reuses_factorizations) {
  SelectedBackend s;
  if (choice == BackendChoice::Cpu) {
    s.backend = std::make_unique<CpuBackend>(m, solver);
  } else if (choice == BackendChoice::Cuda) {
    s.backend = make_cuda(m, solver, vectors, reuses_factorizations);
  } else {
    try {
      s.backend = make_cuda(m, solver, vectors, reuses_factorizations);
    } catch (const BackendUnavailable& e) {
      s.notice = std::string(e.what()) + "; running on the CPU";
      s.backend = std::make_unique<CpuBackend>(m, solver);
    }
  }
  if (s.backend->name() == "cpu" && solver != LinearSolverChoice::Auto && solver != LinearSolverChoice::ChainElimination)
    s.notice += std::string(s.notice.empty() ? "" : "; ") +
                "analysis.linear_solver applies to the CUDA backend: the CPU backend factorizes with UMFPACK "
                "(by chain elimination if asked for, or by default for a chain model)";
  return s;
}

}  // namespace

SelectedBackend make_backend(BackendChoice choice, const Model& m, LinearSolverChoice solver) {
  return select_backend(choice, m, solver, kMostBackendVectors, false);
}

SelectedBackend make_backend(BackendChoice choice, const Model& m, const AnalysisSettings& analysis) {
  return select_backend(choice, m, analysis.linear_solver, backend_vector_count(analysis),
                        reuses_factorizations(analysis));
}

}  // namespace catenary
