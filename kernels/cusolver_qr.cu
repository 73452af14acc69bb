// cuSOLVER sparse QR behind the CsrSolver interface. QR rather than LU or Cholesky because the
// Newton matrix [A C^T; C 0] is symmetric indefinite and cuSOLVER's sparse LU runs on the host
// only; QR needs no pivoting to be stable. cuDSS (an LDL^T with pivoting on the device) is its
// successor but is not part of the CUDA toolkit.
//
// The low-level csrqr API (analysis, setup, factor, zero pivot, solve) rather than the one-call
// csrqrsvBatched: it keeps the factor between solves, as the integrator expects of factorize()
// (modified Newton reuses one factorization over a step; the index-2 projection solves with the
// factorization of the last assembled matrix), and it reports a singular matrix, which the
// one-call solve does not (the statics solver shifts a singular matrix and tries again).
#include <cuda_runtime.h>
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <cusparse.h>

#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/solve/csr_solver.hpp"

namespace catenary {

namespace {

void check_cusolver(cusolverStatus_t status, const char* what) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw SimulationError(std::string("cuSOLVER sparse QR: ") + what + " failed (status " + std::to_string(status) + ")");
}

// A CUDA call failed (no memory): the backend may go on without this solver, so the call's error
// is cleared first, or the next launch's check (cudaPeekAtLastError) would report it as its own.
[[noreturn]] void throw_unavailable(const std::string& what) {
  (void)cudaGetLastError();
  throw BackendUnavailable(what);
}

class CusolverQrSolver : public CsrSolver {
 public:
  CusolverQrSolver() {
    try {
      check_cusolver(cusolverSpCreate(&handle_), "cusolverSpCreate");
      if (cusparseCreateMatDescr(&descr_) != CUSPARSE_STATUS_SUCCESS)
        throw SimulationError("cuSOLVER sparse QR: cusparseCreateMatDescr failed");
      cusparseSetMatType(descr_, CUSPARSE_MATRIX_TYPE_GENERAL);
      cusparseSetMatIndexBase(descr_, CUSPARSE_INDEX_BASE_ZERO);
      check_cusolver(cusolverSpCreateCsrqrInfo(&info_), "cusolverSpCreateCsrqrInfo");
    } catch (...) {
      release();
      throw;
    }
  }
  ~CusolverQrSolver() override { release(); }

  void analyze(int size, int nonzeros, const int* row_ptr, const int* col_index) override {
    size_ = size;
    nonzeros_ = nonzeros;
    row_ptr_ = row_ptr;
    col_index_ = col_index;
    check_cusolver(cusolverSpXcsrqrAnalysis(handle_, size, size, nonzeros, descr_, row_ptr, col_index, info_),
                   "symbolic analysis");
    double* scratch_values = nullptr;
    if (cudaMalloc(&scratch_values, sizeof(double) * (nonzeros > 0 ? nonzeros : 1)) != cudaSuccess)
      throw_unavailable("not enough device memory for the Newton matrix");
    size_t internal = 0, workspace = 0;
    const cusolverStatus_t status = cusolverSpDcsrqrBufferInfo(handle_, size, size, nonzeros, descr_, scratch_values,
                                                               row_ptr, col_index, info_, &internal, &workspace);
    cudaFree(scratch_values);
    check_cusolver(status, "buffer size query");
    // internal: the factor, kept inside info_; workspace: the buffer of setup, factor and solve;
    // and a copy of the right-hand side, which the solve overwrites.
    workspace_bytes_ = internal + workspace + sizeof(double) * size;
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
      throw_unavailable("cudaMemGetInfo failed before the sparse QR workspace");
    if (workspace_bytes_ > free_bytes)
      throw BackendUnavailable("the sparse QR factor needs " + std::to_string(workspace_bytes_ >> 20) + " MiB of device memory, " +
                               std::to_string(free_bytes >> 20) + " MiB are free");
    if (cudaMalloc(&buffer_, workspace > 0 ? workspace : 1) != cudaSuccess ||
        cudaMalloc(&rhs_copy_, sizeof(double) * (size > 0 ? size : 1)) != cudaSuccess)
      throw_unavailable("not enough device memory for the sparse QR workspace");
  }
  size_t workspace_bytes() const override { return workspace_bytes_; }
  void factorize(const double* values) override {
    check_cusolver(cusolverSpDcsrqrSetup(handle_, size_, size_, nonzeros_, descr_, values, row_ptr_, col_index_, 0.0, info_),
                   "setup");
    check_cusolver(cusolverSpDcsrqrFactor(handle_, size_, size_, nonzeros_, nullptr, nullptr, info_, buffer_),
                   "factorization");
    // An exactly zero diagonal of R, as UMFPACK's singular-matrix warning on the host.
    int zero_pivot = -1;
    check_cusolver(cusolverSpDcsrqrZeroPivot(handle_, info_, 0.0, &zero_pivot), "zero pivot query");
    if (zero_pivot >= 0)
      throw SimulationError("cuSOLVER sparse QR: the Newton matrix is singular (zero pivot at unknown " +
                            std::to_string(zero_pivot) + ": a mechanism, a free body or redundant constraints)");
  }
  void solve(const double* rhs, double* x) override {
    if (cudaMemcpy(rhs_copy_, rhs, sizeof(double) * size_, cudaMemcpyDeviceToDevice) != cudaSuccess)
      throw SimulationError("cuSOLVER sparse QR: copying the right-hand side failed");
    check_cusolver(cusolverSpDcsrqrSolve(handle_, size_, size_, rhs_copy_, x, info_, buffer_), "solve");
  }

 private:
  void release() {
    cudaFree(rhs_copy_);
    cudaFree(buffer_);
    if (info_) cusolverSpDestroyCsrqrInfo(info_);
    if (descr_) cusparseDestroyMatDescr(descr_);
    if (handle_) cusolverSpDestroy(handle_);
  }

  cusolverSpHandle_t handle_ = nullptr;
  cusparseMatDescr_t descr_ = nullptr;
  csrqrInfo_t info_ = nullptr;
  void* buffer_ = nullptr;
  double* rhs_copy_ = nullptr;
  size_t workspace_bytes_ = 0;
  int size_ = 0, nonzeros_ = 0;
  const int *row_ptr_ = nullptr, *col_index_ = nullptr;
};

}  // namespace

std::unique_ptr<CsrSolver> make_cusolver_qr_solver() { return std::make_unique<CusolverQrSolver>(); }

}  // namespace catenary
