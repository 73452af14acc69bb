#include "catenary/assembly/cpu_backend.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "catenary/core/errors.hpp"

namespace catenary {

namespace {
// Below this many loop iterations the threads cost more than they save (small models, and the
// test suite running several processes at once).
constexpr int kParallelElements = 64;     // element evaluations (microseconds each)
constexpr int kParallelThreshold = 8192;  // gathers and sums (nanoseconds each)

struct Stopwatch {
  double start = omp_get_wtime();
  double lap() {
    const double now = omp_get_wtime(), dt = now - start;
    start = now;
    return dt;
  }
};
}  // namespace

CpuBackend::CpuBackend(const Model& m) : model_(m), pattern_(build_system_pattern(m)) {
  const int n = pattern_.size;
  matrix_.resize(n, n);
  matrix_.resizeNonZeros(pattern_.nonzeros());
  std::copy(pattern_.col_ptr.begin(), pattern_.col_ptr.end(), matrix_.outerIndexPtr());
  std::copy(pattern_.row_index.begin(), pattern_.row_index.end(), matrix_.innerIndexPtr());
  std::fill(matrix_.valuePtr(), matrix_.valuePtr() + pattern_.nonzeros(), 0.0);
  const size_t ne = m.elements.size(), nl = pattern_.element_dofs;
  local_matrices_.assign(ne * nl * nl, 0.0);
  local_forces_.assign(ne * nl, 0.0);
  local_energy_.assign(ne, 0.0);
}

template <int D>
double CpuBackend::evaluate_elements(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                     bool jacobian, const NewtonMatrixCoefficients& c) {
  constexpr int nl = 4 * D;
  const ElementBlock& el = model_.elements;
  const int ne = el.size();
  double energy = 0.0;
#pragma omp parallel for reduction(+ : energy) schedule(static) if (ne > kParallelElements)
  for (int e = 0; e < ne; ++e) {
    double qe[nl], ve[nl];
    for (int i = 0; i < nl; ++i) {
      const int g = element_global_dof(model_, e, i);
      qe[i] = q[g];
      ve[i] = v[g];
    }
    ElementEvaluation<D> out;
    evaluate_element<D>(el.properties[e], &el.reference[static_cast<size_t>(nl) * e], qe, ve, jacobian, out);
    for (int i = 0; i < nl; ++i) local_forces_[static_cast<size_t>(nl) * e + i] = out.force[i];
    energy += out.energy;
    if (!jacobian) continue;
    double* Ke = &local_matrices_[static_cast<size_t>(nl) * nl * e];
    const double* Ms = &el.scalar_mass[16 * static_cast<size_t>(e)];
    for (int i = 0; i < nl; ++i)
      for (int j = 0; j < nl; ++j) {
        // M = scalar_mass (x) I_D: nonzero only between equal components of the D-blocks.
        const double mass = (i % D == j % D) ? Ms[(i / D) * 4 + (j / D)] : 0.0;
        Ke[i * nl + j] = c.mass * mass + c.stiffness * out.stiffness(i, j) + c.damping * out.damping(i, j);
      }
  }
  return energy;
}

void CpuBackend::gather_forces(Eigen::VectorXd& f) const {
  const SystemPattern& p = pattern_;
  f.resize(p.dof_count);
#pragma omp parallel for schedule(static) if (p.dof_count > kParallelThreshold)
  for (int d = 0; d < p.dof_count; ++d) {
    double s = 0.0;
    for (int k = p.dof_source_ptr[d]; k < p.dof_source_ptr[d + 1]; ++k) s += local_forces_[p.dof_sources[k]];
    f[d] = s;
  }
}

double CpuBackend::internal_force(const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& f) {
  Stopwatch w;
  const NewtonMatrixCoefficients none;
  const double energy = model_.dimension == 3 ? evaluate_elements<3>(q, v, false, none)
                                              : evaluate_elements<2>(q, v, false, none);
  timings_.element += w.lap();
  gather_forces(f);
  timings_.assembly += w.lap();
  return energy;
}

void CpuBackend::mass_product(const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  const ElementBlock& el = model_.elements;
  const int D = model_.dimension, n = model_.coordinates_per_node(), nl = 2 * n, ne = el.size();
  // Element-local products gathered per dof (same race-free pattern as the forces).
#pragma omp parallel for schedule(static) if (ne > kParallelThreshold)
  for (int e = 0; e < ne; ++e) {
    const double* Ms = &el.scalar_mass[16 * static_cast<size_t>(e)];
    for (int i = 0; i < nl; ++i) {
      double s = 0.0;
      for (int k = 0; k < 4; ++k) s += Ms[(i / D) * 4 + k] * x[element_global_dof(model_, e, k * D + i % D)];
      local_forces_[static_cast<size_t>(nl) * e + i] = s;
    }
  }
  gather_forces(y);
}

void CpuBackend::assemble_newton_matrix(const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                        const NewtonMatrixCoefficients& c, Eigen::VectorXd& f) {
  Stopwatch w;
  model_.dimension == 3 ? evaluate_elements<3>(q, v, true, c) : evaluate_elements<2>(q, v, true, c);
  timings_.element += w.lap();
  const SystemPattern& p = pattern_;
  double* values = matrix_.valuePtr();
  const int nnz = p.nonzeros();
#pragma omp parallel for schedule(static) if (nnz > kParallelThreshold)
  for (int s = 0; s < nnz; ++s) {
    double sum = 0.0;
    for (int k = p.slot_source_ptr[s]; k < p.slot_source_ptr[s + 1]; ++k) sum += local_matrices_[p.slot_sources[k]];
    values[s] = sum;
  }
  for (size_t t = 0; t < p.constraint_coefficient.size(); ++t) {
    values[p.constraint_lower_slot[t]] += c.constraint * p.constraint_coefficient[t];
    values[p.constraint_upper_slot[t]] += c.constraint * p.constraint_coefficient[t];
  }
  gather_forces(f);
  // The matrix is symmetric, so column sums over the coordinate block equal row sums.
  double norm = 0.0;
#pragma omp parallel for reduction(max : norm) schedule(static) if (p.dof_count > kParallelThreshold)
  for (int col = 0; col < p.dof_count; ++col) {
    double sum = 0.0;
    for (int k = p.col_ptr[col]; k < p.col_ptr[col + 1] && p.row_index[k] < p.dof_count; ++k) sum += std::fabs(values[k]);
    norm = std::max(norm, sum);
  }
  matrix_norm_ = norm;
  timings_.assembly += w.lap();
}

void CpuBackend::factorize() {
  Stopwatch w;
  solver_.factorize(matrix_);
  timings_.factorization += w.lap();
  timings_.factorizations++;
}

void CpuBackend::solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
  Stopwatch w;
  solver_.solve(rhs, x);
  timings_.solve += w.lap();
}

}  // namespace catenary
