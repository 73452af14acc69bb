#include "catenary/run/backend_factory.hpp"

#include <stdexcept>

#include "catenary/assembly/cpu_backend.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/core/host_memory.hpp"
#ifdef CATENARY_WITH_CUDA
#include "catenary/kernels/cuda_backend.hpp"
#endif

namespace catenary {

BackendChoice parse_backend_choice(const std::string& text) {
  if (text == "cpu") return BackendChoice::Cpu;
  if (text == "cuda") return BackendChoice::Cuda;
  if (text == "auto") return BackendChoice::Auto;
  if (text == "cuda-host") return BackendChoice::CudaOnHost;
  throw std::invalid_argument("unknown backend '" + text + "' (expected cpu, cuda or auto)");
}

BackendOptions backend_options(const AnalysisSettings& analysis) {
  BackendOptions o;
  o.block_solver.float_factors = analysis.float_factors;
  return o;
}

namespace {

// Host memory a CPU run takes per element, at least: a 100,000- and a 1,000,000-element cable
// peaked at 7.1 and 6.9 kB an element (docs/performance.md, Host memory). A model that would need
// more than the machine has is refused before its backend is built.
constexpr double kCpuRunBytesPerElement = 6.9e3;

std::unique_ptr<Backend> make_cpu(const Model& m, LinearSolverChoice solver, const BackendOptions& options) {
  const double need = kCpuRunBytesPerElement * m.elements.size(), have = static_cast<double>(available_memory_bytes());
  if (have > 0.0 && need > have)
    throw BackendUnavailable("the CPU backend cannot hold this model: its " + std::to_string(m.elements.size()) +
                             " elements need about " + gibibytes(need) + " and this machine has " + gibibytes(have) +
                             " (a sweep: run it in parts with --part K/N)");
  return std::make_unique<CpuBackend>(m, solver, options);
}

std::unique_ptr<Backend> make_cuda(const Model& m, LinearSolverChoice solver, int vectors, bool reuses_factorizations,
                                   const BackendOptions& options, bool on_host) {
#ifdef CATENARY_WITH_CUDA
  if (on_host) return cuda::make_cuda_backend_on_host(m, solver, reuses_factorizations, options);
  std::string why;
  if (!cuda::device_available(why)) throw BackendUnavailable("the CUDA backend cannot run: " + why);
  return cuda::make_cuda_backend(m, solver, vectors, reuses_factorizations, options);
#else
  (void)m, (void)solver, (void)vectors, (void)reuses_factorizations, (void)options, (void)on_host;
  throw BackendUnavailable("the CUDA backend cannot run: this build has no CUDA support (configure with CATENARY_CUDA=ON)");
#endif
}

SelectedBackend select_backend(BackendChoice choice, const Model& m, LinearSolverChoice solver, int vectors,
                               bool reuses_factorizations, const BackendOptions& options) {
  SelectedBackend s;
  if (choice == BackendChoice::Cpu) {
    s.backend = make_cpu(m, solver, options);
  } else if (choice == BackendChoice::Cuda || choice == BackendChoice::CudaOnHost) {
    s.backend = make_cuda(m, solver, vectors, reuses_factorizations, options, choice == BackendChoice::CudaOnHost);
  } else {
    try {
      s.backend = make_cuda(m, solver, vectors, reuses_factorizations, options, false);
    } catch (const BackendUnavailable& e) {
      s.notice = std::string(e.what()) + "; running on the CPU";
      s.backend = make_cpu(m, solver, options);
    }
  }
  if (s.backend->name() == "cpu" && solver != LinearSolverChoice::Auto && solver != LinearSolverChoice::ChainElimination)
    s.notice += std::string(s.notice.empty() ? "" : "; ") +
                "analysis.linear_solver applies to the CUDA backend: the CPU backend factorizes with UMFPACK "
                "(by chain elimination if asked for, or by default for a chain model)";
  return s;
}

}  // namespace

SelectedBackend make_backend(BackendChoice choice, const Model& m, LinearSolverChoice solver,
                             const BackendOptions& options) {
  return select_backend(choice, m, solver, kMostBackendVectors, false, options);
}

SelectedBackend make_backend(BackendChoice choice, const Model& m, const AnalysisSettings& analysis,
                             int cuda_device) {
  BackendOptions options = backend_options(analysis);
  options.cuda_device = cuda_device;
  return select_backend(choice, m, analysis.linear_solver, backend_vector_count(analysis),
                        reuses_factorizations(analysis), options);
}

int cuda_device_count() {
#ifdef CATENARY_WITH_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

}  // namespace catenary
