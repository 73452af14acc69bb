// Restarted GMRES with a block-Jacobi preconditioner behind the CsrSolver interface, written once
// over a MemorySpace: for the mass-dominated Newton matrices of small time steps, where the node
// blocks (each node's coordinates with the constraint rows of assembly/block_chain_ordering's
// node_block_ordering) nearly decouple. GMRES rather than CG: the Newton matrix is symmetric
// indefinite (saddle point). The matrix-vector product is the CSR row product used elsewhere
// in the backend (cuSPARSE's SpMV would do the same; the hand-written gather keeps one code path
// for the host build), the preconditioner one small LU per block (solve/dense_block.hpp), and the
// Arnoldi orthogonalization classical Gram-Schmidt (reapplied where it cancels), each pass one
// keyed Thrust reduction for all the dot products; only the small Hessenberg least-squares
// problem lives on the host.
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend_functors.cuh"
#include "catenary/solve/block_layout.hpp"
#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/solve/csr_solver.hpp"
#include "catenary/solve/dense_block.hpp"
#include "memory_space.cuh"

namespace catenary::cuda {

namespace {

constexpr int kRestart = 30;       // Krylov vectors per cycle
constexpr int kMaxCycles = 20;     // restarts before giving up
constexpr double kTolerance = 1e-12;  // on |b - A x| / |b|

struct FactorBlock {
  double* blocks;
  const long* offset;
  int* piv;
  const int* size;
  int B;
  int* singular;
  CATENARY_HD void operator()(int k) const {
    if (!lu_factor(blocks + offset[k], piv + k * B, size[k], B)) *singular = k + 1;
  }
};

// z = M^-1 v block by block (vectors in block layout, B per block).
struct ApplyBlock {
  const double* blocks;
  const long* offset;
  const int* piv;
  const int* size;
  int B;
  double* z;
  CATENARY_HD void operator()(int k) const { lu_solve(blocks + offset[k], piv + k * B, z + k * B, size[k], B, 1); }
};

// The entry idx = k n + e of the first basis vectors times w[e], keyed by k: reduced by key, the
// dot products of w with all of them in one reduction.
struct BasisVectorOf {
  long n;
  CATENARY_HD long operator()(long idx) const { return idx / n; }
};
struct BasisEntryTimesW {
  const double *V, *w;
  long n;
  CATENARY_HD double operator()(long idx) const { return V[idx] * w[idx % n]; }
};

// w[e] += sign * sum_k c[k] V[k n + e] over the first count basis vectors.
struct AddBasisCombination {
  const double *V, *c;
  int count;
  long n;
  double sign;
  double* w;
  CATENARY_HD void operator()(long e) const {
    double s = 0.0;
    for (int k = 0; k < count; ++k) s += c[k] * V[k * n + e];
    w[e] += sign * s;
  }
};

struct LinearCombination {
  double s, t;
  CATENARY_HD double operator()(double a, double b) const { return s * a + t * b; }
};

template <class Space>
class GmresSolver : public CsrSolver {
  using Doubles = ArrayOf<Space, double>;
  using Ints = ArrayOf<Space, int>;
  using Longs = ArrayOf<Space, long>;

 public:
  explicit GmresSolver(const std::vector<int>& block_ptr) : layout_(block_ptr), blocks_(layout_.blocks), B_(layout_.B) {}

  void analyze(int size, int nonzeros, const int* row_ptr, const int* col_index) override {
    size_ = size;
    row_ptr_ = row_ptr;
    col_index_ = col_index;
    const std::vector<int> rows = to_host<Space>(row_ptr, size + 1), cols = to_host<Space>(col_index, nonzeros);
    const BlockLayout& layout = layout_;
    std::vector<int> destination(nonzeros, -1);
    for (int row = 0; row < size; ++row)
      for (int s = rows[row]; s < rows[row + 1]; ++s)
        if (layout.block_of[cols[s]] == layout.block_of[row])
          destination[s] = static_cast<int>(layout.entry(layout.block_of[row], row, cols[s]));
    const std::vector<int>& to_block = layout.vector_index;
    nonzeros_ = nonzeros;
    destination_ = Ints(destination.begin(), destination.end());
    to_block_ = Ints(to_block.begin(), to_block.end());
    block_size_ = Ints(layout.size.begin(), layout.size.end());
    block_offset_ = Longs(layout.offset.begin(), layout.offset.end());
    blocks_data_ = Doubles(layout.slots(), 0.0);
    pivots_ = Ints(static_cast<size_t>(blocks_) * B_, 0);
    singular_ = Ints(1, 0);
    basis_ = Doubles(static_cast<size_t>(kRestart + 1) * size, 0.0);
    coefficients_ = Doubles(kRestart + 1, 0.0);
    w_ = Doubles(size, 0.0);
    z_ = Doubles(size, 0.0);
    block_work_ = Doubles(static_cast<size_t>(blocks_) * B_, 0.0);
  }

  long iterations() const override { return iterations_; }

  size_t workspace_bytes() const override {
    return sizeof(double) * (layout_.slots() + static_cast<size_t>(kRestart + 3) * size_ +
                             static_cast<size_t>(B_) * blocks_) +
           sizeof(int) * (static_cast<size_t>(nonzeros_) + size_ + static_cast<size_t>(B_ + 1) * blocks_);
  }

  void factorize(const double* values) override {
    const auto policy = Space::policy();
    const thrust::counting_iterator<int> first(0);
    values_ = values;
    thrust::fill(policy, blocks_data_.begin(), blocks_data_.end(), 0.0);
    thrust::for_each(policy, first, first + nonzeros_, ScatterValues{raw<int>(destination_), values, raw<double>(blocks_data_)});
    thrust::fill(policy, singular_.begin(), singular_.end(), 0);
    thrust::for_each(policy, first, first + blocks_,
                     FactorBlock{raw<double>(blocks_data_), raw<long>(block_offset_), raw<int>(pivots_),
                                 raw<int>(block_size_), B_, raw<int>(singular_)});
    const int singular = singular_[0];
    if (singular != 0)
      throw SimulationError("GMRES: the preconditioner's block " + std::to_string(singular - 1) + " is singular");
  }

  // Right-preconditioned GMRES(kRestart) from x = 0: A M^-1 u = b, x = M^-1 u.
  void solve(const double* rhs, double* x) override {
    const auto policy = Space::policy();
    const int n = size_;
    double* V = raw<double>(basis_);
    thrust::fill(policy, ptr(x), ptr(x) + n, 0.0);
    const double b_norm = norm(rhs);
    if (b_norm == 0.0) return;
    for (int cycle = 0; cycle < kMaxCycles; ++cycle) {
      // r = b - A x into V_0
      product(x, raw<double>(w_));
      combine(1.0, rhs, -1.0, raw<double>(w_), V);
      const double beta = norm(V);
      if (beta <= kTolerance * b_norm) return;
      scale(1.0 / beta, V);
      std::vector<double> H(static_cast<size_t>(kRestart + 1) * kRestart, 0.0), g(kRestart + 1, 0.0),
          cs(kRestart, 0.0), sn(kRestart, 0.0);
      g[0] = beta;
      int used = 0;
      for (int j = 0; j < kRestart; ++j) {
        precondition(V + static_cast<size_t>(j) * n, raw<double>(z_));
        double* w = V + static_cast<size_t>(j + 1) * n;
        product(raw<double>(z_), w);
        // Classical Gram-Schmidt, with a second pass where the first cancelled most of w (the
        // DGKS test, "twice is enough"): as stable as modified Gram-Schmidt, with one reduction
        // for all the dot products (and |w|^2, w being V_{j+1}) instead of j + 1, each of which is
        // a wait for the host on the device.
        std::vector<double> h = basis_dots(V, j + 2, w);
        double before = std::sqrt(h[j + 1]), h_next = 0.0;
        for (int pass = 0; pass < 2; ++pass) {
          if (pass > 0) h = basis_dots(V, j + 1, w);
          for (int i = 0; i <= j; ++i) H[i * kRestart + j] += h[i];
          add_basis_combination(V, j + 1, -1.0, w);
          h_next = norm(w);
          if (h_next > 0.7 * before) break;
          before = h_next;
        }
        H[(j + 1) * kRestart + j] = h_next;
        if (h_next > 0.0) scale(1.0 / h_next, w);
        for (int i = 0; i < j; ++i) {  // earlier Givens rotations on the new column
          const double a = H[i * kRestart + j], c = H[(i + 1) * kRestart + j];
          H[i * kRestart + j] = cs[i] * a + sn[i] * c;
          H[(i + 1) * kRestart + j] = -sn[i] * a + cs[i] * c;
        }
        const double a = H[j * kRestart + j], c = H[(j + 1) * kRestart + j], r = std::hypot(a, c);
        cs[j] = r > 0.0 ? a / r : 1.0;
        sn[j] = r > 0.0 ? c / r : 0.0;
        H[j * kRestart + j] = r;
        H[(j + 1) * kRestart + j] = 0.0;
        g[j + 1] = -sn[j] * g[j];
        g[j] = cs[j] * g[j];
        used = j + 1;
        ++iterations_;
        if (std::fabs(g[j + 1]) <= kTolerance * b_norm || h_next == 0.0) break;
      }
      // y = H^-1 g (upper triangular), x += M^-1 (V y)
      std::vector<double> y(used, 0.0);
      for (int i = used - 1; i >= 0; --i) {
        double s = g[i];
        for (int k = i + 1; k < used; ++k) s -= H[i * kRestart + k] * y[k];
        y[i] = s / H[i * kRestart + i];
      }
      thrust::fill(policy, w_.begin(), w_.end(), 0.0);
      thrust::copy(y.begin(), y.end(), coefficients_.begin());
      add_basis_combination(V, used, 1.0, raw<double>(w_));
      precondition(raw<double>(w_), raw<double>(z_));
      combine(1.0, raw<double>(z_), 1.0, x, x);
    }
    product(x, raw<double>(w_));
    combine(1.0, rhs, -1.0, raw<double>(w_), raw<double>(w_));
    throw SimulationError("GMRES did not converge in " + std::to_string(kMaxCycles * kRestart) +
                          " iterations (relative residual " + std::to_string(norm(raw<double>(w_)) / b_norm) +
                          "); the block-Jacobi preconditioner suits small time steps");
  }

 private:
  static auto ptr(const double* p) {
    if constexpr (Space::on_device) return thrust::device_pointer_cast(p);
    else return p;
  }
  static auto ptr(double* p) {
    if constexpr (Space::on_device) return thrust::device_pointer_cast(p);
    else return p;
  }

  // The dot products of w with the first count basis vectors (also left in coefficients_).
  std::vector<double> basis_dots(const double* V, int count, const double* w) {
    const long n = size_;
    const thrust::counting_iterator<long> first(0);
    thrust::reduce_by_key(Space::policy(), thrust::make_transform_iterator(first, BasisVectorOf{n}),
                          thrust::make_transform_iterator(first + count * n, BasisVectorOf{n}),
                          thrust::make_transform_iterator(first, BasisEntryTimesW{V, w, n}),
                          thrust::make_discard_iterator(), coefficients_.begin());
    std::vector<double> out(count);
    thrust::copy(coefficients_.begin(), coefficients_.begin() + count, out.begin());
    return out;
  }
  // w += sign V c with c = coefficients_ (the first count basis vectors).
  void add_basis_combination(const double* V, int count, double sign, double* w) {
    const thrust::counting_iterator<long> first(0);
    thrust::for_each(Space::policy(), first, first + size_,
                     AddBasisCombination{V, raw<double>(coefficients_), count, size_, sign, w});
  }

  double dot(const double* a, const double* b) const {
    return thrust::inner_product(Space::policy(), ptr(a), ptr(a) + size_, ptr(b), 0.0);
  }
  double norm(const double* a) const { return std::sqrt(dot(a, a)); }
  // y = s a + t b (y may be a or b)
  void combine(double s, const double* a, double t, const double* b, double* y) const {
    thrust::transform(Space::policy(), ptr(a), ptr(a) + size_, ptr(b), ptr(y), LinearCombination{s, t});
  }
  void scale(double s, double* a) const { combine(s, a, 0.0, a, a); }
  void product(const double* x, double* y) const {
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + size_, CsrRowProduct{row_ptr_, col_index_, values_, x, y});
  }
  void precondition(const double* v, double* z) {
    const thrust::counting_iterator<int> first(0);
    thrust::fill(Space::policy(), block_work_.begin(), block_work_.end(), 0.0);
    thrust::for_each(Space::policy(), first, first + size_, ScatterAt{raw<int>(to_block_), v, raw<double>(block_work_)});
    thrust::for_each(Space::policy(), first, first + blocks_,
                     ApplyBlock{raw<double>(blocks_data_), raw<long>(block_offset_), raw<int>(pivots_),
                                raw<int>(block_size_), B_,
                                raw<double>(block_work_)});
    thrust::for_each(Space::policy(), first, first + size_, GatherAt{raw<int>(to_block_), raw<double>(block_work_), z});
  }


  const BlockLayout layout_;
  int blocks_, B_, size_ = 0, nonzeros_ = 0;
  long iterations_ = 0;
  const int *row_ptr_ = nullptr, *col_index_ = nullptr;
  const double* values_ = nullptr;
  Ints destination_, to_block_, block_size_, pivots_, singular_;
  Doubles blocks_data_, basis_, coefficients_, w_, z_, block_work_;
  Longs block_offset_;
};

}  // namespace

}  // namespace catenary::cuda

namespace catenary {

std::unique_ptr<CsrSolver> make_gmres_solver(std::vector<int> block_ptr, bool on_device) {
  if (on_device) return std::make_unique<cuda::GmresSolver<cuda::DeviceSpace>>(std::move(block_ptr));
  return std::make_unique<cuda::GmresSolver<cuda::HostSpace>>(std::move(block_ptr));
}

}  // namespace catenary
