// cuSOLVER sparse QR behind the CsrSolver interface. QR rather than LU or Cholesky because the
// Newton matrix [A C^T; C 0] is symmetric indefinite and cuSOLVER's sparse LU runs on the host
// only; QR needs no pivoting to be stable. cuDSS (an LDL^T with pivoting on the device) is its
// successor but is not part of the CUDA toolkit.
#include <cuda_runtime.h>
#include <cusolverSp.h>
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

class CusolverQrSolver : public CsrSolver {
 public:
  CusolverQrSolver() {
    check_cusolver(cusolverSpCreate(&handle_), "cusolverSpCreate");
    cusparseCreateMatDescr(&descr_);
    cusparseSetMatType(descr_, CUSPARSE_MATRIX_TYPE_GENERAL);
    cusparseSetMatIndexBase(descr_, CUSPARSE_INDEX_BASE_ZERO);
    check_cusolver(cusolverSpCreateCsrqrInfo(&info_), "cusolverSpCreateCsrqrInfo");
  }
  ~CusolverQrSolver() override {
    cudaFree(buffer_);
    cusolverSpDestroyCsrqrInfo(info_);
    cusparseDestroyMatDescr(descr_);
    cusolverSpDestroy(handle_);
  }

  void analyze(int size, int nonzeros, const int* row_ptr, const int* col_index) override {
    size_ = size;
    nonzeros_ = nonzeros;
    row_ptr_ = row_ptr;
    col_index_ = col_index;
    check_cusolver(cusolverSpXcsrqrAnalysisBatched(handle_, size, size, nonzeros, descr_, row_ptr, col_index, info_),
                   "symbolic analysis");
    double* scratch_values = nullptr;
    if (cudaMalloc(&scratch_values, sizeof(double) * (nonzeros > 0 ? nonzeros : 1)) != cudaSuccess)
      throw BackendUnavailable("not enough device memory for the Newton matrix");
    size_t internal = 0, workspace = 0;
    const cusolverStatus_t status = cusolverSpDcsrqrBufferInfoBatched(
        handle_, size, size, nonzeros, descr_, scratch_values, row_ptr, col_index, 1, info_, &internal, &workspace);
    cudaFree(scratch_values);
    check_cusolver(status, "buffer size query");
    // internal: the factor, kept inside info_; workspace: the buffer passed to each solve.
    workspace_bytes_ = internal + workspace;
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    if (workspace_bytes_ > free_bytes)
      throw BackendUnavailable("the sparse QR factor needs " + std::to_string(workspace_bytes_ >> 20) + " MiB of device memory, " +
                               std::to_string(free_bytes >> 20) + " MiB are free");
    if (cudaMalloc(&buffer_, workspace > 0 ? workspace : 1) != cudaSuccess)
      throw BackendUnavailable("not enough device memory for the sparse QR workspace");
  }
  size_t workspace_bytes() const override { return workspace_bytes_; }
  void factorize(const double* values) override { values_ = values; }
  void solve(const double* rhs, double* x) override {
    check_cusolver(cusolverSpDcsrqrsvBatched(handle_, size_, size_, nonzeros_, descr_, values_, row_ptr_, col_index_,
                                             rhs, x, 1, info_, buffer_),
                   "factorization and solve");
  }

 private:
  cusolverSpHandle_t handle_ = nullptr;
  cusparseMatDescr_t descr_ = nullptr;
  csrqrInfo_t info_ = nullptr;
  void* buffer_ = nullptr;
  size_t workspace_bytes_ = 0;
  int size_ = 0, nonzeros_ = 0;
  const int *row_ptr_ = nullptr, *col_index_ = nullptr;
  const double* values_ = nullptr;
};

}  // namespace

std::unique_ptr<CsrSolver> make_cusolver_qr_solver() { return std::make_unique<CusolverQrSolver>(); }

}  // namespace catenary
