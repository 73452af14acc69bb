// The CUDA backend: element kernels over the shared element math, assembly into a CSR matrix
// by the gather maps of device_pattern.cuh, a block-tridiagonal or sparse QR solve, and the vector operations of
// the HHT step, all on device-resident arrays. Written once over a MemorySpace: DeviceSpace is
// the GPU backend, HostSpace runs the same code on the CPU for the tests.
#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "backend_functors.cuh"
#include "catenary/assembly/block_chain_ordering.hpp"
#include "catenary/assembly/unknown_ordering.hpp"
#include "catenary/assembly/vector_kernels.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/core/stopwatch.hpp"
#include "catenary/kernels/cuda_backend.hpp"
#include "catenary/model/element_records.hpp"
#include "catenary/model/model_operators.hpp"
#include "catenary/model/multibody_layout.hpp"
#include "catenary/solve/block_layout.hpp"
#include "catenary/solve/border_split.hpp"
#include "catenary/solve/csr_solver.hpp"
#include "catenary/solve/held_rows.hpp"
#include "chain_forces_pass.cuh"
#include "device_pattern.cuh"
#include "jacobian_block_pass.cuh"
#include "pinned_staging.cuh"
#include "water_pass.cuh"

namespace catenary::cuda {

namespace {

template <class Space>
struct ArrayVector : Vector::Storage {
  explicit ArrayVector(int n) : x(n, 0.0) {}
  ArrayOf<Space, double> x;
};

template <class Space>
class CudaBackend : public Backend {
  using Doubles = ArrayOf<Space, double>;
  using Floats = ArrayOf<Space, float>;
  using Ints = ArrayOf<Space, int>;

 public:
  // shared: shared_element_records(m.elements), which make_cuda_backend's estimate has found already
  // (hashing a 1,000,000-element model's records takes 0.09 s). reuses_factorizations: as
  // make_cuda_backend's.
  CudaBackend(const Model& m, LinearSolver solver, const SharedElementRecords& shared, bool reuses_factorizations,
              const BackendOptions& options)
      : Backend(m.dof_count(), m.constraint_count()),
        baseline_device_bytes_(device_bytes_in_use()),
        dimension_(m.dimension),
        elements_(m.elements.size()),
        nodes_(m.node_count),
        local_dofs_(2 * m.coordinates_per_node()),
        damped_(m.elements.damped()) {
    Stopwatch w;
    const ElementBlock& el = m.elements;
    node_a_ = Ints(el.node_a.begin(), el.node_a.end());
    node_b_ = Ints(el.node_b.begin(), el.node_b.end());
    // The element records field-major (core/record_array.hpp): the same numbers the CPU backend
    // reads from finalize_model's element-major ones; shared between the elements that hold the
    // same ones where those are few (model/element_records.hpp).
    const auto upload = [](const std::vector<double>& host) { return Doubles(host.begin(), host.end()); };
    const bool share = reads_shared_records(shared.count(), elements_, options.share_element_records);
    records_ = share ? shared.count() : elements_;
    if (share) record_of_ = Ints(shared.record_of.begin(), shared.record_of.end());
    properties_ = upload(to_field_major(share ? shared.properties : el.properties));
    quadrature_ = upload(to_field_major(share ? shared.quadrature : el.quadrature));
    scalar_mass_ = upload(to_field_major((share ? shared.scalar_mass : el.scalar_mass).data(), records_, 16));
    static_assert(sizeof(ContactSurface) % sizeof(double) == 0, "a contact surface is doubles only");
    const double* surfaces = reinterpret_cast<const double*>(el.contact_surfaces.data());
    contact_surfaces_ =
        Doubles(surfaces, surfaces + el.contact_surfaces.size() * (sizeof(ContactSurface) / sizeof(double)));
    contact_count_ = static_cast<int>(el.contact_surfaces.size());
    contact_heights_ = Doubles(el.contact_heights.begin(), el.contact_heights.end());
    static_assert(sizeof(FluidLoad) % sizeof(double) == 0, "a fluid load is doubles only");
    const double* fluids = reinterpret_cast<const double*>(el.fluid_loads.data());
    fluid_loads_ = Doubles(fluids, fluids + el.fluid_loads.size() * (sizeof(FluidLoad) / sizeof(double)));
    fluid_count_ = static_cast<int>(el.fluid_loads.size());
    fluid_values_ = Doubles(el.fluid_values.begin(), el.fluid_values.end());
    gravity_ = m.gravity;
    // Residuals summed in the forces pass where the elements run along chains of nodes
    // (chain_forces_pass.cuh); the dofs of no element (rigid bodies, free nodes) take from alone.
    // Models in water sum through the gather: their water pass adds to the element-local rows.
    chain_forces_ = options.chain_forces_pass && elements_ > 0 && fluid_count_ == 0 &&
                    elements_along_node_chains(el.node_a, el.node_b, nodes_);
    if (chain_forces_) {
      std::vector<bool> covered(m.dof_count(), false);
      for (int e = 0; e < elements_; ++e)
        for (int i = 0; i < local_dofs_; ++i) covered[local_to_global_dof(el.node_a[e], el.node_b[e], local_dofs_ / 2, i)] = true;
      std::vector<int> uncovered;
      for (int d = 0; d < m.dof_count(); ++d)
        if (!covered[d]) uncovered.push_back(d);
      elementless_dofs_ = Ints(uncovered.begin(), uncovered.end());
      const size_t carry = static_cast<size_t>(ChainForcesPass<3, false>::blocks(elements_)) * local_dofs_ / 2;
      carry_first_ = Doubles(carry, 0.0);
      carry_last_ = Doubles(carry, 0.0);
    }
    end_setup_phase_on_device("element data", w);

    const Eigen::SparseMatrix<double, Eigen::RowMajor> C = constraint_matrix(m);
    copy_csr(C, c_ptr_, c_col_, c_val_);
    const ListedRows Ct = constraint_transpose_rows(m);
    ct_row_ = Ints(Ct.row.begin(), Ct.row.end());
    ct_ptr_ = Ints(Ct.ptr.begin(), Ct.ptr.end());
    ct_col_ = Ints(Ct.col.begin(), Ct.col.end());
    ct_val_ = Doubles(Ct.val.begin(), Ct.val.end());
    const Eigen::VectorXf scales = coordinate_scales(m).cast<float>();  // converted on the host
    coordinate_scales_ = Floats(scales.data(), scales.data() + scales.size());
    end_setup_phase_on_device("operators", w);

    std::string why;
    const bool krylov = solver == LinearSolver::Krylov;
    const std::optional<BlockChainOrdering> chain = krylov ? node_block_ordering(m, &why)
                                                    : solver == LinearSolver::SparseQr ? std::nullopt
                                                                                       : bordered_chain_ordering(m, &why);
    const bool block_method = solver == LinearSolver::BlockTridiagonal || solver == LinearSolver::ChainElimination;
    if ((block_method || krylov) && !chain)
      throw BackendUnavailable(std::string(krylov ? "GMRES" : "the block-tridiagonal solver") +
                               " needs node blocks: " + why);
    const std::vector<int> unknown_order = chain ? chain->original_of : newton_unknown_order(m);
    end_setup_phase_on_device("ordering", w);
    pattern_ = build_device_pattern<Space>(m, node_a_, node_b_, C, unknown_order);
    end_setup_phase_on_device("pattern", w);
    values_ = Doubles(pattern_.nonzeros, 0.0);
    local_forces_ = Doubles(static_cast<size_t>(elements_) * local_dofs_, 0.0);
    local_matrices_ = Doubles(static_cast<size_t>(elements_) * local_dofs_ * local_dofs_, 0.0);
    local_row_sums_ = Doubles(static_cast<size_t>(elements_) * local_dofs_, 0.0);
    energy_ = Doubles(elements_, 0.0);
    end_setup_phase_on_device("work arrays", w);
    std::string name_details;  // after the layout's note: what the chains hold besides cables
    if (krylov) {
      solver_ = make_gmres_solver(chain->block_ptr, Space::on_device);
      solver_name_ = "GMRES";
    } else if (chain) {
      // Auto: the block solver's own choice (its method named after analyze).
      const std::optional<BlockMethod> method =
          solver == LinearSolver::BlockTridiagonal   ? std::optional(BlockMethod::CyclicReduction)
          : solver == LinearSolver::ChainElimination ? std::optional(BlockMethod::ChainElimination)
                                                     : std::nullopt;
      const int border = chain->border_size();
      solver_ = make_block_tridiagonal_solver(chain->block_ptr, chain->chain_ptr, method, Space::on_device,
                                              border > 0 ? kBorderRightHandSides : 1, reuses_factorizations,
                                              options.block_solver);
      name_details = chain_order_details(chain->rigid_blocks, border);
      if (border > 0) solver_ = make_bordered_solver(std::move(solver_), border, Space::on_device);
      needs_mass_term_ = chain->needs_mass_term();
    } else {
      solver_ = Space::on_device ? make_cusolver_qr_solver() : make_host_csr_solver();
      solver_name_ = Space::on_device ? "sparse QR" : "UMFPACK";
    }
    end_setup_phase_on_device("solver", w);
    solver_->analyze(pattern_.size, pattern_.nonzeros, raw<int>(pattern_.row_ptr), raw<int>(pattern_.col_index));
    const thrust::host_vector<int> original_of = pattern_.original_of;
    solver_takes_outer_order_ =
        solver_->take_outer_order(std::vector<int>(original_of.begin(), original_of.end()), dof_count());
    end_setup_phase_on_device("analyze", w);
    solver_name_ += solver_->method() + solver_->layout_note() + name_details;
    note_device_memory();
  }

  std::string name() const override { return Space::on_device ? "cuda" : "cuda-code-on-host"; }
  std::string linear_solver() const override { return solver_name_; }

  // The matrix last assembled, in the original unknown order (for tests).
  Eigen::SparseMatrix<double> assembled_matrix() const {
    const thrust::host_vector<int> row_ptr = pattern_.row_ptr, col = pattern_.col_index, original = pattern_.original_of;
    const thrust::host_vector<double> values = values_;
    std::vector<Eigen::Triplet<double>> entries;
    for (int row = 0; row < pattern_.size; ++row)
      for (int k = row_ptr[row]; k < row_ptr[row + 1]; ++k) entries.emplace_back(original[row], original[col[k]], values[k]);
    Eigen::SparseMatrix<double> A(pattern_.size, pattern_.size);
    A.setFromTriplets(entries.begin(), entries.end());
    return A;
  }

  // --- vectors
  Vector make_vector(int size) override { return Vector(size, std::make_unique<ArrayVector<Space>>(size)); }
  void upload(const Eigen::VectorXd& host, Vector& x) override {
    if constexpr (Space::on_device)
      staging_.to_device(host.data(), raw<double>(array(x)), static_cast<size_t>(host.size()));
    else
      thrust::copy(host.data(), host.data() + host.size(), array(x).begin());
  }
  void download(const Vector& x, Eigen::VectorXd& host) override {
    host.resize(x.size());
    to_host(array(x), host.data());
  }
  void copy(const Vector& x, Vector& y) override {
    thrust::copy(Space::policy(), array(x).begin(), array(x).end(), array(y).begin());
  }
  void axpby(double a, const Vector& x, double b, Vector& y) override {
    thrust::transform(Space::policy(), array(x).begin(), array(x).end(), array(y).begin(), array(y).begin(), Axpby{a, b});
  }
  using Backend::combine;
  void combine(const Combinations& c) override {
    const LinearCombinations f = linear_combinations(c, [](auto& v) { return raw<double>(array(v)); });
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + c.y[0]->size(), f);
  }
  double dot(const Vector& x, const Vector& y) override {
    return thrust::inner_product(Space::policy(), array(x).begin(), array(x).end(), array(y).begin(), 0.0);
  }
  double max_abs(const Vector& x) override {
    return thrust::transform_reduce(Space::policy(), array(x).begin(), array(x).end(), AbsOrInfinity(), 0.0, Maximum());
  }
  void max_abs_each(std::initializer_list<const Vector*> xs, double* maxima) override {
    check_maxima_count(xs.size());
    MaximaAt at{0, {}, {0}};
    for (const Vector* x : xs) {
      at.x[at.count] = raw<double>(array(*x));
      at.start[at.count + 1] = at.start[at.count] + x->size();
      ++at.count;
    }
    if (at.count == 0) return;
    const thrust::counting_iterator<int> first(0);
    const Maxima m = thrust::transform_reduce(Space::policy(), first, first + at.start[at.count], at, Maxima{},
                                              LargerEach());
    for (int k = 0; k < at.count; ++k) maxima[k] = m.m[k];
  }
  double weighted_norm(const Vector& dx, const Vector& x, double tol, int* worst) override {
    const WeightedEntry w = largest_entry(
        WeightedEntryAt{raw<double>(array(dx)), raw<double>(array(x)), raw<float>(coordinate_scales_), tol}, dx.size());
    if (worst) *worst = w.index;
    return w.value;
  }
  double weighted_difference_norm(double factor, const Vector& a, const Vector& b, const Vector& x,
                                  double tol) override {
    return largest_entry(WeightedEntryAt{raw<double>(array(a)), raw<double>(array(x)), raw<float>(coordinate_scales_),
                                         tol, raw<double>(array(b)), factor},
                         a.size())
        .value;
  }
  // The largest of n weighted entries, reduced where the vectors are.
  static WeightedEntry largest_entry(const WeightedEntryAt& at, int n) {
    const thrust::counting_iterator<int> first(0);
    return thrust::transform_reduce(Space::policy(), first, first + n, at, WeightedEntry{0.0, 0}, LargerEntry());
  }
  UpdateNorms add_update(const Vector& dx, Vector& x, std::initializer_list<Increment> also, double tol) override {
    const NewtonUpdate f =
        newton_update(dx, x, also, raw<float>(coordinate_scales_), tol, [](auto& v) { return raw<double>(array(v)); });
    const thrust::counting_iterator<int> first(0);
    return thrust::transform_reduce(Space::policy(), first, first + x.size(), f, UpdateNorms{}, LargerUpdate());
  }

  // --- model operators
  using Backend::assemble_newton_matrix;
  using Backend::constraint_product;
  using Backend::internal_force;
  using Backend::mass_product;
  using Backend::solve;

  void internal_force(const Vector& q, const Vector& v, const ForceTerms& terms, Vector& f) override {
    Stopwatch w;
    if (chain_forces_ && terms.from) {
      dimension_ == 3 ? chain_forces_of<3>(q, v, terms, f) : chain_forces_of<2>(q, v, terms, f);
      timings_.element += finish_stage(w);
      return;
    }
    element_pass(q, v, false, NewtonMatrixCoefficients(), terms);
    timings_.element += finish_stage(w);
    gather_forces(f, terms.from);
    timings_.assembly += finish_stage(w);
  }

  double strain_energy() override { return thrust::reduce(Space::policy(), energy_.begin(), energy_.end(), 0.0); }

  void element_energies(std::vector<double>& energies) override {
    energies.resize(energy_.size());
    to_host(energy_, energies.data());
  }

  void mass_product(const Vector& x, Vector& y, double scale, const Scaled& plus, const MassAt& at) override {
    const thrust::counting_iterator<int> first(0);
    const int *ptr = raw<int>(pattern_.dof_source_ptr), *sources = raw<int>(pattern_.dof_sources);
    const int *a = raw<int>(node_a_), *b = raw<int>(node_b_);
    const RecordArray Ms = records(scalar_mass_);
    const double* xs = raw<double>(array(x));
    double* ys = raw<double>(array(y));
    const long entry_major = elements_;  // the local entries' layout (LocalEntryLayout)
    const MassProductOutput out{scale, plus.x ? raw<double>(array(*plus.x)) : nullptr, plus.a};
    if (dimension_ == 3)
      thrust::for_each(Space::policy(), first, first + nodes_,
                       NodeMassProduct<3>{ptr, sources, {entry_major}, Ms, a, b, xs, ys, out});
    else
      thrust::for_each(Space::policy(), first, first + nodes_,
                       NodeMassProduct<2>{ptr, sources, {entry_major}, Ms, a, b, xs, ys, out});
    // Rigid bodies' coordinates: the plus term alone (System adds their mass product).
    const long node_dofs = static_cast<long>(nodes_) * 2 * dimension_;
    if (plus.x)
      thrust::transform(Space::policy(), array(*plus.x).begin() + node_dofs, array(*plus.x).end(),
                        array(y).begin() + node_dofs, Times{plus.a});
    else
      thrust::fill(Space::policy(), array(y).begin() + node_dofs, array(y).end(), 0.0);
    if (at.q && fluid_count_ > 0)
      dimension_ == 3 ? add_added_mass<3>(*at.q, at.time, x, scale, y) : add_added_mass<2>(*at.q, at.time, x, scale, y);
  }

  // y += scale M_a(q) x, the water's added mass at q and time t: element by element into the
  // local force entries (AddedMassPass), summed per dof as the forces are.
  template <int D>
  void add_added_mass(const Vector& q, double t, const Vector& x, double scale, Vector& y) {
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + elements_,
                     AddedMassPass<D>{records(properties_), records(quadrature_), raw<int>(node_a_), raw<int>(node_b_),
                                      raw<double>(array(q)), raw<double>(array(x)), fluid_list(t),
                                      raw<double>(local_forces_), {elements_}});
    if (added_mass_.size() != static_cast<size_t>(dof_count())) added_mass_ = Doubles(dof_count(), 0.0);
    thrust::for_each(Space::policy(), first, first + dof_count(),
                     GatherSum{raw<int>(pattern_.dof_source_ptr), raw<int>(pattern_.dof_sources),
                               raw<double>(local_forces_), raw<double>(added_mass_)});
    thrust::transform(Space::policy(), added_mass_.begin(), added_mass_.end(), array(y).begin(), array(y).begin(),
                      PlusScaled{scale});
  }

  void assemble_newton_matrix(const Vector& q, const Vector& v, const NewtonMatrixCoefficients& c,
                              const ForceTerms& terms, Vector& f) override {
    Stopwatch w;
    mass_coefficient_ = c.mass;
    element_pass(q, v, true, c, terms);
    timings_.element += finish_stage(w);
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + pattern_.nonzeros,
                     GatherSum{raw<int>(pattern_.slot_source_ptr), raw<int>(pattern_.slot_sources),
                               raw<double>(local_matrices_), raw<double>(values_)});
    thrust::for_each(Space::policy(), first, first + static_cast<int>(pattern_.constraint_coefficient.size()),
                     AddConstraintBlocks{raw<int>(pattern_.constraint_lower_slot), raw<int>(pattern_.constraint_upper_slot),
                                         raw<double>(pattern_.constraint_coefficient), c.constraint, raw<double>(values_)});
    gather_forces(f, terms.from);
    matrix_norm_ = thrust::transform_reduce(
        Space::policy(), first, first + dof_count(),
        GatheredSum{raw<int>(pattern_.dof_source_ptr), raw<int>(pattern_.dof_sources), raw<double>(local_row_sums_)},
        0.0, Maximum());
    timings_.assembly += finish_stage(w);
  }

  double newton_matrix_norm() const override { return matrix_norm_; }

  // cuSOLVER's batched QR factorizes inside solve(); its time counts as factorization there.
  void factorize_matrix() override {
    Stopwatch w;
    factorized_ = needs_mass_term_ && !border_eliminates(mass_coefficient_) ? &general_solver() : solver_.get();
    factorized_->factorize(raw<double>(values_));
    timings_.factorization += finish_stage(w);
    timings_.factorizations++;
  }

  void solve(const Vector& rhs_dofs, const Vector& rhs_constraints, Vector& x, Vector& y) override {
    solve_permuted(rhs_dofs, rhs_constraints, x, y, false);
  }

  void solve_newton_update(const Vector& rhs_dofs, const Vector& rhs_constraints, Vector& x, Vector& y) override {
    solve_permuted(rhs_dofs, rhs_constraints, x, y, true);
  }

  void constraint_product(const Vector& x, Vector& y) override {
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + constraint_count(),
                     CsrRowProduct{raw<int>(c_ptr_), raw<int>(c_col_), raw<double>(c_val_), raw<double>(array(x)),
                                   raw<double>(array(y))});
  }

  void add_constraint_transpose_product(double a, const Vector& mu, Vector& y) override {
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + static_cast<int>(ct_row_.size()),
                     AddListedRowProducts{raw<int>(ct_row_), raw<int>(ct_ptr_), raw<int>(ct_col_), raw<double>(ct_val_),
                                          raw<double>(array(mu)), raw<double>(array(y)), a});
  }

  void add_block_entries(const std::vector<double>& values) override {
    upload_to(block_values_, values);
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + static_cast<int>(values.size()),
                     AddAtSlots{raw<int>(pattern_.block_slot), raw<double>(block_values_), raw<double>(values_)});
  }

  void gather(const Vector& x, const std::vector<int>& index, std::vector<double>& out) override {
    upload_to(block_index_, index);
    block_values_.resize(index.size());
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + static_cast<int>(index.size()),
                     GatherAt{raw<int>(block_index_), raw<double>(array(x)), raw<double>(block_values_)});
    out.resize(index.size());
    thrust::copy(block_values_.begin(), block_values_.begin() + index.size(), out.begin());
  }

  // x[index[k]] += values[k]: the same slot addition as the matrix entries', on a vector.
  void scatter_add(const std::vector<int>& index, const std::vector<double>& values, Vector& x) override {
    upload_to(block_index_, index);
    upload_to(block_values_, values);
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + static_cast<int>(index.size()),
                     AddAtSlots{raw<int>(block_index_), raw<double>(block_values_), raw<double>(array(x))});
  }

 private:
  // [x; y] = A^-1 [rhs_dofs; rhs_constraints] through the solver's order (pattern_.original_of):
  // by the solver itself where it took that order (CsrSolver::take_outer_order), else through
  // permuted copies.
  void solve_permuted(const Vector& rhs_dofs, const Vector& rhs_constraints, Vector& x, Vector& y, bool newton_update) {
    CsrSolver& solver = factorized_ ? *factorized_ : *solver_;
    if (&solver == solver_.get() && solver_takes_outer_order_) {
      Stopwatch w;
      solver.solve_outer(raw<double>(array(rhs_dofs)), raw<double>(array(rhs_constraints)), raw<double>(array(x)),
                         raw<double>(array(y)), newton_update);
      timings_.solve += finish_stage(w);
      timings_.linear_iterations = solver.iterations();
      return;
    }
    if (permuted_rhs_.empty()) {  // made at the first solve that needs them
      permuted_rhs_ = Doubles(pattern_.size, 0.0);
      permuted_solution_ = Doubles(pattern_.size, 0.0);
    }
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + pattern_.size,
                     GatherPermuted{raw<int>(pattern_.original_of), raw<double>(array(rhs_dofs)),
                                    raw<double>(array(rhs_constraints)), raw<double>(permuted_rhs_), dof_count()});
    Stopwatch w;
    if (newton_update)
      solver.solve_newton_update(raw<double>(permuted_rhs_), raw<double>(permuted_solution_));
    else
      solver.solve(raw<double>(permuted_rhs_), raw<double>(permuted_solution_));
    timings_.solve += finish_stage(w);
    timings_.linear_iterations = solver.iterations();
    thrust::for_each(Space::policy(), first, first + pattern_.size,
                     ScatterPermuted{raw<int>(pattern_.original_of), raw<double>(permuted_solution_),
                                     raw<double>(array(x)), raw<double>(array(y)), dof_count()});
  }

  static Doubles& array(Vector& v) { return v.storage<ArrayVector<Space>>().x; }
  static const Doubles& array(const Vector& v) { return v.storage<ArrayVector<Space>>().x; }

  // Backend::end_setup_phase with the device's queued work finished first.
  void end_setup_phase_on_device(const char* name, Stopwatch& w) {
    if (Space::on_device) check_cuda(cudaDeviceSynchronize(), name);
    end_setup_phase(name, w.lap());
  }

  // Stage time, with the device's queued work finished first (0 with stage timing off); samples
  // the device memory in use at the first stage ends. By the end of the first Newton iteration
  // every array and the solver's workspace exist, and cudaMemGetInfo is a driver call: later
  // stage ends skip it.
  double finish_stage(Stopwatch& w) {
    if (!Space::on_device) return w.lap();
    if (!stage_timing_) return 0.0;
    check_cuda(cudaDeviceSynchronize(), "a stage's kernels");
    if (memory_samples_ < kMemorySamples) {
      note_device_memory();
      ++memory_samples_;
    }
    return w.lap();
  }
  static constexpr int kMemorySamples = 16;
  int memory_samples_ = 0;

  // Device memory in use (all of the device's, as cudaMemGetInfo reports it); 0 on the host.
  static size_t device_bytes_in_use() {
    if (!Space::on_device) return 0;
    size_t free_bytes = 0, total_bytes = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    return total_bytes - free_bytes;
  }
  // The backend's share: in use now less what was in use before it allocated anything. Sampled
  // at stage ends, so the peak misses allocations that live only inside one library call.
  void note_device_memory() {
    const size_t in_use = device_bytes_in_use();
    if (in_use > baseline_device_bytes_)
      timings_.peak_device_bytes = std::max(timings_.peak_device_bytes, in_use - baseline_device_bytes_);
  }

  // Copies host values into a reused array: the multibody block's entries and indices come each
  // Newton iteration, and a fresh device array each time would be an allocation and a free.
  template <class A, class T>
  static void upload_to(A& array, const std::vector<T>& host) {
    array.resize(host.size());
    if (!host.empty()) thrust::copy(host.begin(), host.end(), array.begin());
  }

  static void copy_csr(const Eigen::SparseMatrix<double, Eigen::RowMajor>& A, Ints& ptr, Ints& col, Doubles& val) {
    ptr = Ints(A.outerIndexPtr(), A.outerIndexPtr() + A.outerSize() + 1);
    col = Ints(A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
    val = Doubles(A.valuePtr(), A.valuePtr() + A.nonZeros());
  }

  ContactSurfaceList contact_list() const {
    return {reinterpret_cast<const ContactSurface*>(raw<double>(contact_surfaces_)), contact_count_,
            raw<double>(contact_heights_)};
  }
  FluidLoadList fluid_list(double t) const {
    return {reinterpret_cast<const FluidLoad*>(raw<double>(fluid_loads_)), fluid_count_, raw<double>(fluid_values_), t,
            {gravity_[0], gravity_[1], gravity_[2]}};
  }

  // The element pass's inputs and outputs for q, v, c and terms.
  template <int D, bool Damped, bool Jacobian>
  ElementPass<D, Damped, Jacobian> element_pass_fields(const Vector& q, const Vector& v,
                                                      const NewtonMatrixCoefficients& c, const ForceTerms& terms) {
    return {records(properties_),
            records(quadrature_),
            records(scalar_mass_),
            raw<int>(node_a_),
            raw<int>(node_b_),
            raw<double>(array(q)),
            raw<double>(array(v)),
            terms.origin ? raw<double>(array(*terms.origin)) : nullptr,
            terms.force_scale,
            terms.mass_scale,
            c,
            raw<double>(local_forces_),
            raw<double>(local_matrices_),
            raw<double>(local_row_sums_),
            raw<double>(energy_),
            {elements_},  // local forces and row sums entry-major, as the pattern's sources
            contact_list()};
  }

  template <int D, bool Damped, bool Jacobian>
  void launch_element_pass(const Vector& q, const Vector& v, const NewtonMatrixCoefficients& c,
                           const ForceTerms& terms) {
    using Pass = ElementPass<D, Damped, Jacobian>;
    const int threads = Pass::kThreadsPerElement * elements_;
    const Pass pass = element_pass_fields<D, Damped, Jacobian>(q, v, c, terms);
    // Each pass in the launch shape that measured fastest (docs/performance.md, Element passes).
    // With the Jacobian, undamped models take the block pass (jacobian_block_pass.cuh: a thread
    // per quadrature point, then a pair of the element's 16 blocks per thread); damped ones take
    // the row pass, whose matrix rows go out through shared memory (for_each_staged) so that the
    // stores coalesce. The undamped forces pass is capped at two thread blocks an SM, which trades
    // a small spill (3D) for more warps in flight; the damped forces pass runs uncapped.
    // Models with contact surfaces take the row pass also undamped: the block pass's points are
    // the elastic energy's alone.
    if constexpr (Jacobian && !Damped) {
      if (contact_count_ == 0)
        launch_jacobian_blocks<Space, D>(elements_, JacobianBlockPass<D>{pass});
      else
        for_each_staged<Space, Pass::kRowValues>(threads, pass, pass.local_matrices);
    } else if constexpr (Jacobian) {
      for_each_staged<Space, Pass::kRowValues>(threads, pass, pass.local_matrices);
    } else if constexpr (!Damped) {
      for_each_item<Space, 256, 2>(threads, pass);
    } else {
      const thrust::counting_iterator<int> first(0);
      thrust::for_each(Space::policy(), first, first + threads, pass);
    }
    if (fluid_count_ > 0) add_water<D, Jacobian>(threads, q, v, c, terms);
    timings_.element_bytes += element_pass_bytes<D>(elements_, dof_count(), Jacobian, terms.origin != nullptr, records_);
  }
  // The water's loads added to the element pass's rows (WaterPass, its thread layout).
  template <int D, bool Jacobian>
  void add_water(int threads, const Vector& q, const Vector& v, const NewtonMatrixCoefficients& c,
                 const ForceTerms& terms) {
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first, first + threads,
                     WaterPass<D, Jacobian>{records(properties_), records(quadrature_), raw<int>(node_a_),
                                            raw<int>(node_b_), raw<double>(array(q)),
                                            damped_ ? raw<double>(array(v)) : nullptr,
                                            terms.origin ? raw<double>(array(*terms.origin)) : nullptr,
                                            terms.force_scale, terms.mass_scale, c, raw<double>(local_forces_),
                                            raw<double>(local_matrices_), raw<double>(local_row_sums_), {elements_},
                                            fluid_list(terms.time)});
  }
  // The pass compiled for this model's dimension and damping.
  template <int D, bool Damped>
  void element_pass_of(const Vector& q, const Vector& v, bool jacobian, const NewtonMatrixCoefficients& c,
                       const ForceTerms& terms) {
    jacobian ? launch_element_pass<D, Damped, true>(q, v, c, terms)
             : launch_element_pass<D, Damped, false>(q, v, c, terms);
  }
  template <int D>
  void element_pass_of(const Vector& q, const Vector& v, bool jacobian, const NewtonMatrixCoefficients& c,
                       const ForceTerms& terms) {
    damped_ ? element_pass_of<D, true>(q, v, jacobian, c, terms) : element_pass_of<D, false>(q, v, jacobian, c, terms);
  }
  void element_pass(const Vector& q, const Vector& v, bool jacobian, const NewtonMatrixCoefficients& c,
                    const ForceTerms& terms) {
    dimension_ == 3 ? element_pass_of<3>(q, v, jacobian, c, terms) : element_pass_of<2>(q, v, jacobian, c, terms);
  }

  // f = terms.from - (the element rows summed per dof) by ChainForcesPass, its seams between thread
  // blocks, and from alone where no element is; capped at two blocks an SM undamped, as the plain
  // forces pass is.
  template <int D>
  void chain_forces_of(const Vector& q, const Vector& v, const ForceTerms& terms, Vector& f) {
    damped_ ? chain_forces_of<D, true>(q, v, terms, f) : chain_forces_of<D, false>(q, v, terms, f);
  }
  template <int D, bool Damped>
  void chain_forces_of(const Vector& q, const Vector& v, const ForceTerms& terms, Vector& f) {
    using Chain = ChainForcesPass<D, Damped>;
    const double* from = raw<double>(array(*terms.from));
    double* r = raw<double>(array(f));
    const int blocks = Chain::blocks(elements_);
    const Chain pass{element_pass_fields<D, Damped, false>(q, v, NewtonMatrixCoefficients(), terms), elements_, from, r,
                     raw<double>(carry_first_), raw<double>(carry_last_)};
    run_blocks<Space, Chain::kThreads, Chain::kSharedValues, Damped ? 0 : 2>(blocks, pass);
    const thrust::counting_iterator<int> first(0);
    thrust::for_each(Space::policy(), first + 1, first + blocks,
                     ChainForceSeams{raw<int>(node_a_), raw<int>(node_b_), Chain::kNodeDofs, Chain::kThreads, from, r,
                                     raw<double>(carry_first_), raw<double>(carry_last_)});
    thrust::copy(Space::policy(), thrust::make_permutation_iterator(from, elementless_dofs_.begin()),
                 thrust::make_permutation_iterator(from, elementless_dofs_.end()),
                 thrust::make_permutation_iterator(r, elementless_dofs_.begin()));
    timings_.element_bytes += element_pass_bytes<D>(elements_, dof_count(), false, terms.origin != nullptr, records_);
  }

  // f = the element rows summed per dof, or from - that sum (ForceTerms::from).
  void gather_forces(Vector& f, const Vector* from) {
    const thrust::counting_iterator<int> first(0);
    const GatherSum sum{raw<int>(pattern_.dof_source_ptr), raw<int>(pattern_.dof_sources), raw<double>(local_forces_),
                        raw<double>(array(f))};
    if (from)
      thrust::for_each(Space::policy(), first, first + dof_count(), GatherDifference{sum, raw<double>(array(*from))});
    else
      thrust::for_each(Space::policy(), first, first + dof_count(), sum);
  }

  // One of the element record arrays, field-major, shared where record_of_ is kept.
  RecordArray records(const Doubles& values) const {
    return field_major(raw<double>(values), records_, record_of_.empty() ? nullptr : raw<int>(record_of_));
  }

  // An array's values to the host; on the device through the pinned buffers.
  void to_host(const Doubles& values, double* host) {
    if constexpr (Space::on_device)
      staging_.to_host(raw<double>(values), host, values.size());
    else
      thrust::copy(values.begin(), values.end(), host);
  }

  PinnedStaging staging_;  // vectors to and from the host (a frame's, the initial state's)
  size_t baseline_device_bytes_;
  int dimension_, elements_, nodes_, local_dofs_;
  bool damped_;  // damping, contacts or drag that read velocities: the element pass reads them
  Ints node_a_, node_b_;
  bool chain_forces_ = false;  // residuals summed in the forces pass (ChainForcesPass)
  Ints elementless_dofs_;      // the dofs of no element, where the residual is from alone
  Doubles carry_first_, carry_last_;  // ChainForcesPass's rows at the seams between its thread blocks
  int records_ = 0;                                // element records held (elements_ unless shared)
  Ints record_of_;                                 // each element's record where they are shared, else empty
  Doubles properties_, quadrature_, scalar_mass_;  // field-major RecordArrays
  Doubles contact_surfaces_;                       // the model's ContactSurfaces, as their doubles
  int contact_count_ = 0;
  Doubles contact_heights_;                        // the height grids' values
  Doubles fluid_loads_;                            // the model's FluidLoads, as their doubles
  int fluid_count_ = 0;
  Doubles fluid_values_;                           // their current profiles and wave components
  Vec<3> gravity_ = Vec<3>::zero();                // buoyancy's (FluidLoadList::gravity)
  Doubles added_mass_;                             // M_a x summed per dof (add_added_mass)
  Ints c_ptr_, c_col_, ct_row_, ct_ptr_, ct_col_;  // C in CSR, C^T by its listed rows
  Doubles c_val_, ct_val_;
  Floats coordinate_scales_;  // float (vector_kernels.hpp, WeightedEntryAt)
  DevicePattern<Space> pattern_;
  Doubles values_, local_forces_, local_matrices_, energy_, permuted_rhs_, permuted_solution_;
  Doubles local_row_sums_;  // the local matrices' rows' sums of |entries|, for newton_matrix_norm
  Ints block_index_;  // the multibody block's indices and values, uploaded each call (upload_to)
  Doubles block_values_;
  std::unique_ptr<CsrSolver> solver_;
  // Matrices without a mass term of a model with rigid bodies or a border go to the general solver
  // (BlockChainOrdering::needs_mass_term), made at the first of them.
  bool needs_mass_term_ = false;
  double mass_coefficient_ = 1.0;  // of the last assembled matrix
  bool solver_takes_outer_order_ = false;  // solver_ solves in the original order (solve_permuted)
  std::unique_ptr<CsrSolver> general_solver_;
  CsrSolver* factorized_ = nullptr;  // the solver of the last factorization
  CsrSolver& general_solver() {
    if (!general_solver_) {
      general_solver_ = Space::on_device ? make_cusolver_qr_solver() : make_host_csr_solver();
      general_solver_->analyze(pattern_.size, pattern_.nonzeros, raw<int>(pattern_.row_ptr),
                               raw<int>(pattern_.col_index));
    }
    return *general_solver_;
  }
  std::string solver_name_;
  double matrix_norm_ = 0.0;
};

}  // namespace

std::atomic<size_t> HostArrayBytes::in_use{0}, HostArrayBytes::peak{0};

size_t host_array_peak_bytes() { return HostArrayBytes::peak; }
void reset_host_array_peak_bytes() { HostArrayBytes::peak = HostArrayBytes::in_use.load(); }

bool device_available(std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    why = std::string("no usable CUDA driver or device: ") + cudaGetErrorString(status);
    return false;
  }
  if (count == 0) {
    why = "no CUDA device present";
    return false;
  }
  return true;
}

int device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

double peak_memory_bandwidth() {
  int device = 0, clock_khz = 0, bus_bits = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
    return 0.0;
  return 2.0 * 1e3 * clock_khz * (bus_bits / 8.0);  // double data rate
}

std::string device_name() {
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&properties, device) != cudaSuccess) return "";
  return properties.name;
}

namespace {

// The Newton matrix's CSR slots, at most: a full node block for each node of an element and, both
// ways, for each distinct pair of nodes an element joins; the diagonal of the other coordinates;
// the constraint entries in both off-diagonal blocks; the multibody block's entries (some of
// which may share slots already counted).
size_t newton_matrix_slot_bound(const Model& m, size_t constraint_entries, size_t block_entries) {
  const ElementBlock& el = m.elements;
  std::vector<char> in_element(m.node_count, 0);
  std::vector<unsigned long long> pairs;
  for (int e = 0; e < el.size(); ++e) {
    const unsigned long long a = el.node_a[e], b = el.node_b[e];
    in_element[a] = in_element[b] = 1;
    if (a != b) pairs.push_back(std::min(a, b) << 32 | std::max(a, b));
  }
  std::sort(pairs.begin(), pairs.end());
  const size_t distinct_pairs = std::unique(pairs.begin(), pairs.end()) - pairs.begin();
  const size_t per_node = m.coordinates_per_node(), nodes = std::count(in_element.begin(), in_element.end(), 1);
  return per_node * per_node * (nodes + 2 * distinct_pairs) + (m.dof_count() - per_node * nodes) +
         2 * constraint_entries + block_entries;
}

// The held rows the block solvers will find in the Newton matrix (solve/held_rows.hpp), from its
// coordinates' diagonal and its constraint rows' entries alone: the element and mechanism entries
// make no constraint row's or column's count one, so the linear rows found are the same (a
// mechanism row of one entry, found in the matrix only, can only lower the need).
HeldRows model_held_rows(const Model& m, const BlockChainOrdering& o, bool take_out_held_rows) {
  if (!take_out_held_rows) return {};
  const int dofs = m.dof_count();
  const std::vector<int> position_of = positions_of(o.original_of);
  std::vector<int> rows, cols;
  for (int d = 0; d < dofs; ++d) rows.push_back(position_of[d]), cols.push_back(position_of[d]);
  for (int r = 0; r < m.linear_constraint_count(); ++r)
    for (int dof : m.constraint_rows[r].dofs) {
      rows.push_back(position_of[dofs + r]), cols.push_back(position_of[dof]);
      rows.push_back(position_of[dof]), cols.push_back(position_of[dofs + r]);
    }
  return find_held_rows(o.block_ptr, rows, cols);
}

// estimated_device_bytes with the model's count of distinct element records
// (shared_element_records) given.
size_t device_bytes_estimate(const Model& m, int vectors, const BackendOptions& options, int shared_records) {
  const bool float_copy = options.block_solver.float_factors;
  const size_t ne = m.elements.size(), nl = 2 * m.coordinates_per_node(), local_entries = ne * nl * nl;
  const size_t n = m.dof_count(), unknowns = n + m.constraint_count(), local_forces = ne * nl;
  const size_t constraint_entries = constraint_matrix(m).nonZeros(), block_entries = multibody_layout(m).entries.size();
  // The pattern's sort keys: each local matrix entry, each dof's diagonal, the constraint entries
  // of both blocks and the multibody block's entries; they reduce to the CSR slots.
  const size_t keys = local_entries + n + 2 * constraint_entries + block_entries;
  const size_t slots = std::min(keys, newton_matrix_slot_bound(m, constraint_entries, block_entries));
  // Held throughout: element data (nodes; properties, reference, scalar mass, shared or not, as the
  // backend holds them), the constraint Jacobian (CSR) and its transpose (listed rows: at most two
  // ints a row, one row an entry), load patterns (System::load_vectors) and coordinate scales, the
  // unknown order both ways.
  const bool shared = reads_shared_records(shared_records, static_cast<int>(ne), options.share_element_records);
  const size_t records = shared ? shared_records : ne;
  const size_t model_data = ne * (8 + (shared ? 4 : 0)) +
                            records * (sizeof(ElementProperties) + sizeof(ReferenceQuadrature) + 8 * 16) +
                            constraint_entries * (12 + 20) + unknowns * 4 + 8 * n * load_pattern_count(m) + 4 * n +
                            8 * unknowns;
  // While the pattern is built: the keys and their sources (with the sort's second buffer, or, once
  // sorted, the reduced keys and their counts: 12 bytes a key either way), then the slots' rows,
  // columns and source pointers.
  const size_t pattern_build = keys * (8 + 4 + 12) + slots * 12 + 4 * unknowns;
  // Once it runs: the CSR pattern and gather maps (the slots' sources keep the keys' room), the
  // values, the element results, the permuted right-hand side and solution (a block solver that
  // takes the original order holds two int maps instead, 8 bytes an unknown less), the
  // integrator's vectors.
  const size_t pattern = 4 * unknowns + slots * (4 + 4) + keys * 4 + 4 * n + 4 * local_forces +
                         constraint_entries * (4 + 4 + 8) + 4 * block_entries;
  const size_t results = 8 * (slots + 2 * local_forces + local_entries + ne + 2 * unknowns);
  const size_t vector_bytes = static_cast<size_t>(vectors) * 8 * unknowns;
  // Block cyclic reduction, where the model is a chain: D, L, U and the saved L, U of about one
  // block per node, each its own rows, B wide (B: the largest node block, coordinates and
  // constraint rows less its held rows), the scatter's destinations, the vectors' indices both
  // ways, and three padded vectors. Chain elimination and
  // GMRES need less (measured), so this bounds them too.
  size_t solver = 0;
  if (const std::optional<BlockChainOrdering> chain = bordered_chain_ordering(m)) {
    const BlockLayout layout(chain->block_ptr, model_held_rows(m, *chain, options.block_solver.take_out_held_rows));
    const size_t B = layout.B, blocks = layout.blocks;
    solver = 5 * layout.slots() * 8 + 4 * slots + 8 * unknowns + blocks * (3 * B * 8 + B * 4 + 3 * 8);
    if (float_copy) solver += 5 * layout.slots() * 4;  // the Newton updates' float copy
    // A border's solver: T's values and slots again, B's row pointers, and for each of the
    // kBorderRightHandSides solved per pass two vectors of T's size and the block solver's three.
    if (chain->border_size() > 0) solver += slots * (8 + 2 * 4) + B * blocks * (4 + kBorderRightHandSides * 5 * 8);
  }
  return model_data + std::max(pattern_build, pattern + results + solver + vector_bytes) + kDevicePageAllowance;
}

}  // namespace

// The larger of the construction's two phases, array by array as the backend allocates them (the
// host build's counted arrays check it: tests/test_cuda_backend.cpp).
size_t estimated_device_bytes(const Model& m, int vectors, const BackendOptions& options) {
  require_finalized(m);
  return device_bytes_estimate(m, vectors, options, shared_element_records(m.elements).count());
}

std::unique_ptr<Backend> make_cuda_backend(const Model& m, LinearSolver solver, int vectors,
                                           bool reuses_factorizations, const BackendOptions& options) {
  if (options.cuda_device >= 0) {
    const cudaError_t status = cudaSetDevice(options.cuda_device);
    if (status != cudaSuccess)
      throw BackendUnavailable("CUDA device " + std::to_string(options.cuda_device) +
                               " cannot be used: " + cudaGetErrorString(status));
  }
  size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  require_finalized(m);
  const SharedElementRecords shared = shared_element_records(m.elements);
  const size_t needed = device_bytes_estimate(m, vectors, options, shared.count());
  if (needed > free_bytes) {
    // The float copy counts because the backend does not know the Newton method; full Newton never
    // allocates it.
    BackendOptions without_copy_options = options;
    without_copy_options.block_solver.float_factors = false;
    const size_t without_copy = device_bytes_estimate(m, vectors, without_copy_options, shared.count());
    const std::string hint = without_copy < needed && without_copy <= free_bytes
                                 ? " (" + std::to_string(without_copy >> 20) +
                                       " MiB without the float copy of the block factors that modified Newton "
                                       "reads: analysis.float_factors = false leaves it out)"
                                 : "";
    throw BackendUnavailable("the model needs about " + std::to_string(needed >> 20) + " MiB of device memory before the "
                             "sparse QR factor, " + std::to_string(free_bytes >> 20) + " MiB are free" + hint);
  }
  try {
    return std::make_unique<CudaBackend<DeviceSpace>>(m, solver, shared, reuses_factorizations, options);
  } catch (const std::bad_alloc&) {  // thrust::system::detail::bad_alloc derives from it
    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    throw BackendUnavailable("the model does not fit in device memory (" + std::to_string(free_bytes >> 20) + " of " +
                             std::to_string(total_bytes >> 20) + " MiB free)");
  }
}

std::unique_ptr<Backend> make_cuda_backend(const Model& m, LinearSolver solver) {
  return make_cuda_backend(m, solver, kMostBackendVectors);
}

std::unique_ptr<Backend> make_cuda_backend_on_host(const Model& m, LinearSolver solver, bool reuses_factorizations,
                                                   const BackendOptions& options) {
  require_finalized(m);
  return std::make_unique<CudaBackend<HostSpace>>(m, solver, shared_element_records(m.elements),
                                                  reuses_factorizations, options);
}

std::unique_ptr<Backend> make_cuda_backend_on_host(const Model& m, LinearSolver solver) {
  return make_cuda_backend_on_host(m, solver, false);
}

Eigen::SparseMatrix<double> assembled_matrix(const Backend& backend) {
  if (const auto* device = dynamic_cast<const CudaBackend<DeviceSpace>*>(&backend)) return device->assembled_matrix();
  if (const auto* host = dynamic_cast<const CudaBackend<HostSpace>*>(&backend)) return host->assembled_matrix();
  throw std::invalid_argument("assembled_matrix: not a CUDA backend");
}

}  // namespace catenary::cuda
