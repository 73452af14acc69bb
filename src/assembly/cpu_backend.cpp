#include "catenary/assembly/cpu_backend.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/assembly/vector_kernels.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/core/stopwatch.hpp"

namespace catenary {

namespace {
// Below this many loop iterations the threads cost more than they save (small models, and the
// test suite running several processes at once).
constexpr int kParallelElements = 64;     // element evaluations (microseconds each)
constexpr int kParallelThreshold = 8192;  // gathers and sums (nanoseconds each)

// Host storage of a backend vector.
struct HostVector : Vector::Storage {
  Eigen::VectorXd x;
};
Eigen::VectorXd& host(Vector& v) { return v.storage<HostVector>().x; }
const Eigen::VectorXd& host(const Vector& v) { return v.storage<HostVector>().x; }

}  // namespace

CpuBackend::CpuBackend(const Model& m, LinearSolverChoice solver, const BackendOptions& options)
    : Backend(m.dof_count(), m.constraint_count()), model_(m) {
  require_finalized(m);
  Stopwatch w;
  pattern_ = build_system_pattern(m);
  end_setup_phase("pattern", w.lap());
  constraints_ = constraint_matrix(m);
  constraint_transpose_rows_ = constraint_transpose_rows(m);
  coordinate_scales_ = coordinate_scales(m).cast<float>();
  end_setup_phase("operators", w.lap());
  // The structure moves into the matrix (one copy: 4 bytes an entry, 432 MB at 1,000,000 elements),
  // its pages first written by the assembly loop's threads (core/first_touch.hpp).
  const int n = pattern_.size, nnz = pattern_.nonzeros();
  matrix_.resize(n, n);
  matrix_.resizeNonZeros(nnz);  // uninitialized
  std::copy(pattern_.col_ptr.begin(), pattern_.col_ptr.end(), matrix_.outerIndexPtr());
  int* rows = matrix_.innerIndexPtr();
  double* values = matrix_.valuePtr();
#pragma omp parallel for schedule(static) if (nnz > kParallelThreshold)
  for (int s = 0; s < nnz; ++s) {
    rows[s] = pattern_.row_index[s];
    values[s] = 0.0;
  }
  std::vector<int>().swap(pattern_.row_index);
  std::vector<int>().swap(pattern_.col_ptr);
  end_setup_phase("matrix", w.lap());
  const int ne = m.elements.size(), nl = pattern_.element_dofs;
  assign_zeros_in_parallel(local_matrices_, ne, nl * nl);
  assign_zeros_in_parallel(local_forces_, ne, nl);
  assign_zeros_in_parallel(local_row_sums_, ne, nl);
  local_energy_.assign(ne, 0.0);
  end_setup_phase("element buffers", w.lap());
  if (solver == LinearSolverChoice::ChainElimination || solver == LinearSolverChoice::Auto) {
    std::string why;
    const std::optional<BlockChainOrdering> chain = bordered_chain_ordering(m, &why);
    if (chain)
      chain_solver_ = std::make_unique<ChainSolver>(*chain, matrix_, 0, options.block_solver);
    else if (solver == LinearSolverChoice::ChainElimination)
      throw BackendUnavailable("block chain elimination needs node blocks: " + why);
    end_setup_phase("chain solver", w.lap());
  }
}

Vector CpuBackend::make_vector(int size) {
  auto s = std::make_unique<HostVector>();
  s->x.setZero(size);
  return Vector(size, std::move(s));
}

void CpuBackend::upload(const Eigen::VectorXd& x, Vector& y) { host(y) = x; }
void CpuBackend::download(const Vector& x, Eigen::VectorXd& y) { y = host(x); }
void CpuBackend::copy(const Vector& x, Vector& y) { host(y) = host(x); }
void CpuBackend::axpby(double a, const Vector& x, double b, Vector& y) { host(y) = a * host(x) + b * host(y); }

void CpuBackend::combine(const Combinations& c) {
  const LinearCombinations f = linear_combinations(c, [](auto& v) { return host(v).data(); });
  const int n = c.y[0]->size();
#pragma omp parallel for schedule(static) if (n > kParallelThreshold)
  for (int i = 0; i < n; ++i) f(i);
}

double CpuBackend::dot(const Vector& x, const Vector& y) { return host(x).dot(host(y)); }

double CpuBackend::max_abs(const Vector& x) {
  const Eigen::VectorXd& v = host(x);
  return v.allFinite() ? v.lpNorm<Eigen::Infinity>() : INFINITY;
}

void CpuBackend::max_abs_each(std::initializer_list<const Vector*> xs, double* maxima) {
  check_maxima_count(xs.size());
  for (const Vector* x : xs) *maxima++ = max_abs(*x);
}

double CpuBackend::weighted_norm(const Vector& dx, const Vector& x, double tol, int* worst_index) {
  const WeightedEntry worst = largest_weighted_entry(
      WeightedEntryAt{host(dx).data(), host(x).data(), coordinate_scales_.data(), tol}, dx.size());
  if (worst_index) *worst_index = worst.index;
  return worst.value;
}

double CpuBackend::weighted_difference_norm(double factor, const Vector& a, const Vector& b, const Vector& x,
                                            double tol) {
  return largest_weighted_entry(WeightedEntryAt{host(a).data(), host(x).data(), coordinate_scales_.data(), tol,
                                                host(b).data(), factor},
                                a.size())
      .value;
}

UpdateNorms CpuBackend::add_update(const Vector& dx, Vector& x, std::initializer_list<Increment> also, double tol) {
  const NewtonUpdate f =
      newton_update(dx, x, also, coordinate_scales_.data(), tol, [](auto& v) { return host(v).data(); });
  const LargerUpdate larger;
  const int n = x.size();
  UpdateNorms total;
#pragma omp parallel if (n > kParallelThreshold)
  {
    UpdateNorms mine;
#pragma omp for schedule(static) nowait
    for (int i = 0; i < n; ++i) mine = larger(mine, f(i));
#pragma omp critical
    total = larger(total, mine);
  }
  return total;
}

template <int D>
double CpuBackend::evaluate_elements(const Eigen::VectorXd& q, const Eigen::VectorXd& v, bool jacobian,
                                     const NewtonMatrixCoefficients& c, const ForceTerms& terms) {
  constexpr int nl = 4 * D;
  const ElementBlock& el = model_.elements;
  const int ne = el.size();
  const double* origin = terms.origin ? host(*terms.origin).data() : nullptr;
  const ContactSurfaceList contacts = el.contact_list();
  const FluidLoadList fluids = el.fluid_list(terms.time, model_.gravity);
  double energy = 0.0;
#pragma omp parallel for reduction(+ : energy) schedule(static) if (ne > kParallelElements)
  for (int e = 0; e < ne; ++e) {
    double qe[nl], ve[nl], we[nl];
    for (int i = 0; i < nl; ++i) {
      const int g = element_global_dof(model_, e, i);
      qe[i] = q[g];
      ve[i] = v[g];
      if (origin) we[i] = qe[i] - origin[g];
    }
    ElementEvaluation<D> out;
    evaluate_element<D>(el.properties[e], el.quadrature[e], qe, ve, jacobian, out, newton_jacobian_weights(c));
    add_surface_contact<D, 4, true>(contacts, el.properties[e], el.quadrature[e], qe, ve, jacobian, out,
                                  newton_jacobian_weights(c));
    double added_mass_rows[nl] = {};
    add_fluid_load<D, 4, true>(fluids, el.properties[e], el.quadrature[e], qe, ve, jacobian, out,
                               newton_jacobian_weights(c),
                               {origin ? we : nullptr, terms.mass_scale, c.mass, added_mass_rows});
    const double* Ms = &el.scalar_mass[16 * static_cast<size_t>(e)];
    for (int i = 0; i < nl; ++i)
      local_forces_[static_cast<size_t>(nl) * e + i] =
          element_force_output<D>(out.force[i], origin != nullptr, terms.force_scale, terms.mass_scale, Ms, we, i / D,
                                  i % D) +
          terms.mass_scale * added_mass_rows[i];
    energy += out.energy;
    local_energy_[e] = out.energy;
    if (!jacobian) continue;
    element_newton_matrix<D>(out, Ms, c, &local_matrices_[static_cast<size_t>(nl) * nl * e],
                             &local_row_sums_[static_cast<size_t>(nl) * e]);
  }
  timings_.element_bytes += element_pass_bytes<D>(ne, q.size(), jacobian, origin != nullptr, ne);
  return energy;
}

template <int D>
void CpuBackend::add_added_mass(const Eigen::VectorXd& q, double t, const double* x, double scale, double* y) const {
  constexpr int nl = 4 * D;
  const ElementBlock& el = model_.elements;
  const FluidLoadList fluids = el.fluid_list(t, model_.gravity);
  for (int e = 0; e < el.size(); ++e) {  // serial: elements share nodes
    if (!(el.properties[e].fluid >= 0.0)) continue;
    double qe[nl], xe[nl], rows[nl] = {};
    for (int i = 0; i < nl; ++i) {
      const int g = element_global_dof(model_, e, i);
      qe[i] = q[g];
      xe[i] = x[g];
    }
    add_added_mass_product<D>(fluids, el.properties[e], el.quadrature[e], qe, xe, rows);
    for (int i = 0; i < nl; ++i) y[element_global_dof(model_, e, i)] += scale * rows[i];
  }
}

double CpuBackend::evaluate_elements(const Eigen::VectorXd& q, const Eigen::VectorXd& v, bool jacobian,
                                     const NewtonMatrixCoefficients& c, const ForceTerms& terms) {
  if (model_.dimension == 3) return evaluate_elements<3>(q, v, jacobian, c, terms);
  return evaluate_elements<2>(q, v, jacobian, c, terms);
}

void CpuBackend::gather_forces(Eigen::VectorXd& f, const Vector* from) const {
  const SystemPattern& p = pattern_;
  f.resize(p.dof_count);
  const double* minuend = from ? host(*from).data() : nullptr;
#pragma omp parallel for schedule(static) if (p.dof_count > kParallelThreshold)
  for (int d = 0; d < p.dof_count; ++d) {
    const double sum = gathered_sum(p.dof_source_ptr.data(), p.dof_sources.data(), local_forces_.data(), d);
    f[d] = minuend ? minuend[d] - sum : sum;
  }
}

void CpuBackend::internal_force(const Vector& q, const Vector& v, const ForceTerms& terms, Vector& f) {
  Stopwatch w;
  const NewtonMatrixCoefficients none;
  strain_energy_ = evaluate_elements(host(q), host(v), false, none, terms);
  timings_.element += w.lap();
  gather_forces(host(f), terms.from);
  timings_.assembly += w.lap();
}

template <int D>
double CpuBackend::evaluate_energies(const Eigen::VectorXd& q) {
  constexpr int nl = 4 * D;
  const ElementBlock& el = model_.elements;
  const int ne = el.size();
  const ContactSurfaceList contacts = el.contact_list();
  double energy = 0.0;
#pragma omp parallel for reduction(+ : energy) schedule(static) if (ne > kParallelElements)
  for (int e = 0; e < ne; ++e) {
    double qe[nl];
    for (int i = 0; i < nl; ++i) qe[i] = q[element_global_dof(model_, e, i)];
    local_energy_[e] = element_strain_energy<D>(el.properties[e], el.quadrature[e], qe) +
                       surface_contact_energy<D>(contacts, el.properties[e], el.quadrature[e], qe);
    energy += local_energy_[e];
  }
  return energy;
}

double CpuBackend::strain_energy_at(const Vector& q, const Vector&) {
  Stopwatch w;
  strain_energy_ = model_.dimension == 3 ? evaluate_energies<3>(host(q)) : evaluate_energies<2>(host(q));
  timings_.element += w.lap();
  return strain_energy_;
}

void CpuBackend::mass_product(const Vector& x, Vector& y, double scale, const Scaled& plus, const MassAt& at) {
  const SystemPattern& p = pattern_;
  const ElementBlock& el = model_.elements;
  const int *ptr = p.dof_source_ptr.data(), *sources = p.dof_sources.data();
  const int *a = el.node_a.data(), *b = el.node_b.data();
  const RecordArray Ms = element_major(el.scalar_mass.data(), 16);
  const double* xs = host(x).data();
  double* ys = host(y).data();
  const bool spatial = model_.dimension == 3;
  const int nodes = model_.node_count;
  const MassProductOutput out{scale, plus.x ? host(*plus.x).data() : nullptr, plus.a};
#pragma omp parallel for schedule(static) if (nodes > kParallelThreshold)
  for (int node = 0; node < nodes; ++node)
    spatial ? node_mass_product<3>(ptr, sources, {0}, Ms, a, b, xs, node, ys, out)  // element-major
            : node_mass_product<2>(ptr, sources, {0}, Ms, a, b, xs, node, ys, out);
  if (at.q && !el.fluid_loads.empty())
    spatial ? add_added_mass<3>(host(*at.q), at.time, xs, scale, ys) : add_added_mass<2>(host(*at.q), at.time, xs, scale, ys);
  // Rigid bodies: System adds theirs.
  const int rigid = p.dof_count - model_.node_dof_count();
  if (plus.x)
    host(y).tail(rigid) = plus.a * host(*plus.x).tail(rigid);
  else
    host(y).tail(rigid).setZero();
}

void CpuBackend::assemble_newton_matrix(const Vector& q, const Vector& v, const NewtonMatrixCoefficients& c,
                                        const ForceTerms& terms, Vector& f) {
  Stopwatch w;
  mass_coefficient_ = c.mass;
  strain_energy_ = evaluate_elements(host(q), host(v), true, c, terms);
  timings_.element += w.lap();
  const SystemPattern& p = pattern_;
  double* values = matrix_.valuePtr();
  const int nnz = matrix_.nonZeros();
#pragma omp parallel for schedule(static) if (nnz > kParallelThreshold)
  for (int s = 0; s < nnz; ++s)
    values[s] = gathered_sum(p.slot_source_ptr.data(), p.slot_sources.data(), local_matrices_.data(), s);
  for (size_t t = 0; t < p.constraint_coefficient.size(); ++t) {
    values[p.constraint_lower_slot[t]] += c.constraint * p.constraint_coefficient[t];
    values[p.constraint_upper_slot[t]] += c.constraint * p.constraint_coefficient[t];
  }
  gather_forces(host(f), terms.from);
  // Backend::newton_matrix_norm: the rows' sums of |entries| gathered per dof like the forces.
  double norm = 0.0;
#pragma omp parallel for reduction(max : norm) schedule(static) if (p.dof_count > kParallelThreshold)
  for (int d = 0; d < p.dof_count; ++d)
    norm = std::max(norm, gathered_sum(p.dof_source_ptr.data(), p.dof_sources.data(), local_row_sums_.data(), d));
  matrix_norm_ = norm;
  timings_.assembly += w.lap();
}

// Matrices without a mass term of a model with rigid bodies or a border go to UMFPACK
// (BlockChainOrdering::needs_mass_term).
void CpuBackend::factorize_matrix() {
  Stopwatch w;
  chain_factorized_ = chain_solver_ && (border_eliminates(mass_coefficient_) || !chain_solver_->needs_mass_term());
  if (chain_factorized_)
    chain_solver_->factorize(matrix_);
  else
    solver_.factorize(matrix_);
  timings_.factorization += w.lap();
  timings_.factorizations++;
}

void CpuBackend::solve(const Vector& rhs_dofs, const Vector& rhs_constraints, Vector& x, Vector& y) {
  Stopwatch w;
  const int n = dof_count(), m = constraint_count();
  solve_rhs_.resize(n + m);
  solve_rhs_ << host(rhs_dofs), host(rhs_constraints);
  if (chain_factorized_)
    chain_solver_->solve(solve_rhs_, solve_x_);
  else
    solver_.solve(solve_rhs_, solve_x_);
  host(x) = solve_x_.head(n);
  host(y) = solve_x_.tail(m);
  timings_.solve += w.lap();
}

void CpuBackend::constraint_product(const Vector& x, Vector& y) { host(y) = constraints_ * host(x); }

void CpuBackend::add_constraint_transpose_product(double a, const Vector& mu, Vector& y) {
  const ListedRows& t = constraint_transpose_rows_;
  const AddListedRowProducts f{
      t.row.data(), t.ptr.data(), t.col.data(), t.val.data(), host(mu).data(), host(y).data(), a};
  for (int i = 0; i < static_cast<int>(t.row.size()); ++i) f(i);
}

void CpuBackend::add_block_entries(const std::vector<double>& values) {
  double* matrix = matrix_.valuePtr();
  for (size_t k = 0; k < values.size(); ++k) matrix[pattern_.block_slot[k]] += values[k];
}

void CpuBackend::gather(const Vector& x_, const std::vector<int>& index, std::vector<double>& out) {
  const Eigen::VectorXd& x = host(x_);
  out.resize(index.size());
  for (size_t k = 0; k < index.size(); ++k) out[k] = x[index[k]];
}

void CpuBackend::scatter_add(const std::vector<int>& index, const std::vector<double>& values, Vector& x_) {
  Eigen::VectorXd& x = host(x_);
  for (size_t k = 0; k < index.size(); ++k) x[index[k]] += values[k];
}

}  // namespace catenary
