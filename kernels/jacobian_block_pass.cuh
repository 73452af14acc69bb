#pragma once
// The element pass with the Jacobian for models without material damping, its work split by what
// the element's rows share: eight threads an element, one per quadrature point (three axial, five
// bending), then one per pair of 3 x 3 blocks.
//   1. Each thread evaluates its point's energy derivatives in (a, b) = (r', r'') with their
//      Hessian (gradient_deficient_math.hpp: axial_point_energy, bending_point_energy) and leaves
//      them in shared memory: 37 values a point in 3D (haa and hbb, symmetric, by the 6 entries
//      on and above their diagonals).
//   2. Thread t sums over the eight points the blocks of row shape function k = t / 2 and column
//      shape functions l = 2 (t % 2), 2 (t % 2) + 1 (add_point_jacobian, as the CPU's
//      evaluate_element), and the even threads the force rows of k.
//   3. The blocks, with c_m M added (newton_matrix_entry), are staged in shared memory, summed by
//      row (|entries|) and copied out as one contiguous run per thread block.
// Why not the row pass (ElementPass: four threads an element, a row block each): each of its
// threads evaluates all eight points for its own rows (the points' work four times over) and
// holds 36 matrix values plus a point's Hessian, 220 registers: one thread block an SM, 8 warps,
// whose dependent FP64 chains leave the SM idle two cycles in three (ncu on an H100: 30 % of the
// bandwidth bound). Here a point is evaluated once and a thread holds 18 values.
// Why every block and not the 10 on and above the diagonal, mirrored (as the CPU's
// evaluate_element does; six tasks an element on three of the four warps): on an H100 the six
// tasks take 1.31 ms at 1,000,000 elements against the eight's 1.02 (element pass benchmark;
// docs/performance.md, Element passes). A block below the diagonal is formed, so it may differ
// from the CPU's mirrored one in the last bit.
// The damped pass keeps the row design (its damping terms need the whole element's gradients).
#include <algorithm>
#include <limits>
#include <vector>

#include "backend_functors.cuh"
#include "memory_space.cuh"

namespace catenary::cuda {

template <int D>
struct JacobianBlockPass {
  using Fields = ElementPass<D, false, true>;  // the same inputs and outputs as the row pass
  static constexpr int kLocal = 4 * D, kMatrixValues = kLocal * kLocal;
  static constexpr int kThreads = AxialRule::kPoints + GaussRule5::kPoints;  // per element
  static_assert(kThreads == 8, "a point per thread, then two blocks of one row block per thread");
  // A point in shared memory: w, w x energy density, sx[4], sxx[4], ga, gb, haa (packed), hab
  // (row-major), hbb (packed). haa and hbb are symmetric, so only their entries on and above the
  // diagonal are kept, row by row: a phase-2 thread reads 234 values instead of 273 (3D), and
  // shared memory holds 16 elements' points in 38 kB instead of 44. (Formed as the shared math
  // forms them, an entry below the diagonal may differ from its mirror in the last bit, which the
  // CPU's evaluate_element keeps: the two Jacobians may differ by as much. Mirroring them in the
  // shared math instead makes the CPU's forces-only evaluation 6 % slower under GCC 14:
  // catenary_element_benchmark; docs/performance.md, Element passes.)
  static constexpr int kSymmetric = D * (D + 1) / 2;
  static constexpr int kW = 0, kEnergy = 1, kSx = 2, kSxx = 6, kGa = 10, kGb = kGa + D, kHaa = kGb + D,
                       kHab = kHaa + kSymmetric, kHbb = kHab + D * D, kPointValues = kHbb + kSymmetric;
  // Where entry (i, j) of a symmetric D x D block lies in its packed upper triangle.
  CATENARY_HD static constexpr int packed(int i, int j) {
    return i <= j ? i * D - i * (i - 1) / 2 + (j - i) : j * D - j * (j - 1) / 2 + (i - j);
  }
  // An element's points and (later, in the same memory) its staged matrix, each an odd number of
  // doubles apart: the four elements of a warp then read distinct banks.
  static constexpr int kElementValues = (kThreads * kPointValues) | 1, kStagedValues = kMatrixValues | 1;
  // 16 elements a thread block: 38 kB of shared memory in 3D, under the 48 kB any device gives a
  // block without asking.
  static constexpr int kElementsPerBlock = 16, kBlockThreads = kElementsPerBlock * kThreads;
  static constexpr int kSharedBytes = kElementsPerBlock * kElementValues * sizeof(double);
  static_assert(kSharedBytes <= 48 * 1024, "the default shared memory of a thread block");

  Fields f;

  // Phase 1: quadrature point g (0 .. 2 axial, 3 .. 7 bending) of element e into slot.
  CATENARY_HD void evaluate_point(int e, int g, double* slot) const {
    double qe[kLocal];
    for (int i = 0; i < kLocal; ++i) qe[i] = f.q[local_to_global_dof(f.node_a[e], f.node_b[e], 2 * D, i)];
    // The element's records field-major: the properties' fields and this point's quadrature
    // values, each a coalesced load across the warp's 16 elements.
    const ElementProperties p = element_properties_from(f.properties[e]);
    const ReferenceQuadratureValues<StridedValues> ref(f.quadrature[e]);
    if (g < AxialRule::kPoints) {
      const catenary::detail::CurrentPoint<D> r = catenary::detail::current_point<D, AxialRule>(p, qe, g);
      store(catenary::detail::axial_point_energy<D>(p, r, ref.axial_g0[g], ref.axial_w[g], true), r.h, ref.axial_w[g],
            false, slot);
    } else {
      const int b = g - AxialRule::kPoints;
      const catenary::detail::CurrentPoint<D> r = catenary::detail::current_point<D, GaussRule5>(p, qe, b);
      const catenary::detail::CurvatureMeasure m =
          catenary::detail::point_curvature_measure(p, r, ref.bending_inverse_slope[b]);
      store(catenary::detail::bending_point_energy<D>(p, r, m, ref.bending_w[b], ref.kappa0[b], true), r.h,
            ref.bending_w[b], true, slot);
    }
  }

  // Phase 2: thread t's two blocks of the stiffness part, summed over the element's points in the
  // row pass's order; the even threads write row block t / 2 of the forces, thread 0 the energy.
  // Both threads of a row block sum its forces: skipping them in the odd threads made two versions
  // of the point loop, 140 registers instead of 96 (ptxas sm_90).
  CATENARY_HD Mat<D, 2 * D> sum_blocks(int e, int t, const double* points) const {
    const int k = t / 2, l0 = 2 * (t % 2);
    const double stiffness = f.c.stiffness;
    Mat<D, 2 * D> J = Mat<D, 2 * D>::zero();
    double force[D];
    for (int i = 0; i < D; ++i) force[i] = 0.0;
    for (int g = 0; g < AxialRule::kPoints; ++g)
      add_point<false>(points + g * kPointValues, k, l0, stiffness, force, J);
    for (int g = AxialRule::kPoints; g < kThreads; ++g)
      add_point<true>(points + g * kPointValues, k, l0, stiffness, force, J);
    if (t % 2 == 0) f.template write_forces<D>(e, k, force, typename Fields::LocalForceRows{f.local, f.local_forces});
    if (t == 0) {
      double energy = 0.0;
      for (int g = 0; g < kThreads; ++g) energy += points[g * kPointValues + kEnergy];
      f.energy[e] = energy;
    }
    return J;
  }

  // Thread t's blocks of c_m M + J into the element's row-major local matrix.
  CATENARY_HD void store_blocks(int e, int t, const Mat<D, 2 * D>& J, double* matrix) const {
    const int k = t / 2, l0 = 2 * (t % 2);
    const StridedValues scalar_mass = f.scalar_mass[e];
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < 2 * D; ++j) {
        const int row = k * D + i, column = l0 * D + j;
        matrix[row * kLocal + column] = newton_matrix_entry<D>(scalar_mass, f.c, row, column, J(i, j));
      }
  }

  // Phase 3: the sums of |entries| of rows t and t + 8 (those that exist) of the element's matrix.
  CATENARY_HD void row_sums(int e, int t, const double* matrix) const {
    for (int row = t; row < kLocal; row += kThreads) {
      double abs_sum = 0.0;
      for (int j = 0; j < kLocal; ++j) abs_sum += fabs(matrix[row * kLocal + j]);
      f.local_row_sums[f.local.index(e, row)] = abs_sum;
    }
  }

  // Thread `thread` of thread block `block` in phases 2 and 3: its element e (local-th of the
  // block's), its row-block pair t, and the block's first element.
  struct Place {
    int first, local, e, t;
    bool active;
  };
  CATENARY_HD static Place place(int block, int thread, int elements) {
    return place_of(block, thread / kThreads, thread % kThreads, elements);
  }
  // The same thread in phase 1, whose t is its point: a warp's threads take one point each of
  // consecutive elements (thread / 16 the point, thread % 16 the element), so that the first
  // warp evaluates axial points only and the last two bending points only, and one warp in four
  // runs both kinds. By element (place) every warp held both kinds, one after the other: 3 of 8
  // threads idle in the bending branch and 5 of 8 in the axial one.
  // PointsByElement: phase 1 as before that change (place), which the element pass benchmark still
  // times against it.
  template <bool PointsByElement = false>
  CATENARY_HD static Place point_place(int block, int thread, int elements) {
    if constexpr (PointsByElement)
      return place(block, thread, elements);
    else
      return place_of(block, thread % kElementsPerBlock, thread / kElementsPerBlock, elements);
  }
  CATENARY_HD static Place place_of(int block, int local, int t, int elements) {
    Place p;
    p.first = block * kElementsPerBlock;
    p.local = local;
    p.t = t;
    p.e = p.first + local;
    p.active = p.e < elements;
    return p;
  }

  // The kernel's phases, a barrier after each but the last; `shared` is the thread block's
  // shared memory, first its elements' points, then (phase 3 on) their staged matrices.
  CATENARY_HD void points_phase(const Place& p, double* shared) const {
    if (p.active) evaluate_point(p.e, p.t, shared + p.local * kElementValues + p.t * kPointValues);
  }
  CATENARY_HD Mat<D, 2 * D> blocks_phase(const Place& p, const double* shared) const {
    return p.active ? sum_blocks(p.e, p.t, shared + p.local * kElementValues) : Mat<D, 2 * D>::zero();
  }
  CATENARY_HD void stage_phase(const Place& p, const Mat<D, 2 * D>& J, double* shared) const {
    if (p.active) store_blocks(p.e, p.t, J, shared + p.local * kStagedValues);
  }
  // Row sums, and the block's matrices copied out as one contiguous run: neighbouring threads on
  // neighbouring doubles, as for_each_staged does for the row pass.
  CATENARY_HD void copy_phase(const Place& p, int thread, const double* shared, int elements) const {
    if (p.active) row_sums(p.e, p.t, shared + p.local * kStagedValues);
    const int block_elements = elements - p.first < kElementsPerBlock ? elements - p.first : kElementsPerBlock;
    double* out = f.local_matrices + static_cast<size_t>(p.first) * kMatrixValues;
    for (int i = thread; i < block_elements * kMatrixValues; i += kBlockThreads)
      out[i] = shared[(i / kMatrixValues) * kStagedValues + i % kMatrixValues];
  }

 private:
  CATENARY_HD static void store(const catenary::detail::PointEnergy<D>& point, const HermiteShape& h, double w,
                                bool uses_b, double* slot) {
    slot[kW] = w;
    slot[kEnergy] = point.energy;
    for (int k = 0; k < 4; ++k) {
      slot[kSx + k] = h.sx[k];
      slot[kSxx + k] = h.sxx[k];
    }
    for (int i = 0; i < D; ++i) {
      slot[kGa + i] = point.d.ga[i];
      if (uses_b) slot[kGb + i] = point.d.gb[i];
      for (int j = 0; j < D; ++j) {
        if (uses_b) slot[kHab + i * D + j] = point.d.hab(i, j);
        if (j < i) continue;
        slot[kHaa + packed(i, j)] = point.d.haa(i, j);
        if (uses_b) slot[kHbb + packed(i, j)] = point.d.hbb(i, j);
      }
    }
  }

  // One point's share of the force rows and of the two blocks: a slot's shape derivatives
  // and (a, b) derivatives (gb, hab, hbb only with UsesB: the bending points).
  template <bool UsesB>
  CATENARY_HD static void add_point(const double* slot, int k, int l0, double stiffness, double* force,
                                    Mat<D, 2 * D>& J) {
    HermiteShape h;
    catenary::detail::PointDerivatives<D> d;
    for (int m = 0; m < 4; ++m) {
      h.sx[m] = slot[kSx + m];
      h.sxx[m] = slot[kSxx + m];
    }
    for (int i = 0; i < D; ++i) {
      d.ga[i] = slot[kGa + i];
      if (UsesB) d.gb[i] = slot[kGb + i];
      for (int j = 0; j < D; ++j) {
        d.haa(i, j) = slot[kHaa + packed(i, j)];
        if (UsesB) {
          d.hab(i, j) = slot[kHab + i * D + j];
          d.hbb(i, j) = slot[kHbb + packed(i, j)];
        }
      }
    }
    const double w = slot[kW];
    catenary::detail::add_point_force<D, UsesB>(h, w, d, k, force);
    if (stiffness != 0.0) catenary::detail::add_point_jacobian<D, 2, UsesB>(h, w * stiffness, d, k, l0, J, 0, 0);
  }
};

// The phases on a device: a thread block of 16 elements (128 threads). Four thread blocks an SM
// (16 warps, twice the row pass's): ptxas sm_90 fits the 3D pass in the 128 registers that allows
// without spilling (122 in 2D); their shared memory, 4 x 38 kB, fits too.
template <int D, bool PointsByElement>
__global__ void __launch_bounds__(JacobianBlockPass<D>::kBlockThreads, 4)
    jacobian_block_loop(JacobianBlockPass<D> pass, int elements) {
  using Pass = JacobianBlockPass<D>;
  extern __shared__ double shared[];
  pass.points_phase(Pass::template point_place<PointsByElement>(blockIdx.x, threadIdx.x, elements), shared);
  __syncthreads();
  const auto p = Pass::place(blockIdx.x, threadIdx.x, elements);
  const Mat<D, 2 * D> J = pass.blocks_phase(p, shared);
  __syncthreads();  // every point read: their memory takes the staged matrices
  pass.stage_phase(p, J, shared);
  __syncthreads();
  pass.copy_phase(p, threadIdx.x, shared, elements);
}

// The same phases on the host, a thread block's threads one after another in each: the kernel's
// indices and shared-memory layout, checked by the tests without a GPU.
template <int D>
void jacobian_blocks_on_host(const JacobianBlockPass<D>& pass, int elements) {
  using Pass = JacobianBlockPass<D>;
  std::vector<double> shared(Pass::kSharedBytes / sizeof(double));
  std::vector<Mat<D, 2 * D>> J(Pass::kBlockThreads);
  for (int block = 0; block * Pass::kElementsPerBlock < elements; ++block) {
    std::fill(shared.begin(), shared.end(), std::numeric_limits<double>::quiet_NaN());  // a stale read shows
    const auto place = [&](int thread) { return Pass::place(block, thread, elements); };
    for (int i = 0; i < Pass::kBlockThreads; ++i) pass.points_phase(Pass::point_place(block, i, elements), shared.data());
    for (int i = 0; i < Pass::kBlockThreads; ++i) J[i] = pass.blocks_phase(place(i), shared.data());
    for (int i = 0; i < Pass::kBlockThreads; ++i) pass.stage_phase(place(i), J[i], shared.data());
    for (int i = 0; i < Pass::kBlockThreads; ++i) pass.copy_phase(place(i), i, shared.data(), elements);
  }
}

template <class Space, int D, bool PointsByElement = false>
void launch_jacobian_blocks(int elements, const JacobianBlockPass<D>& pass) {
  using Pass = JacobianBlockPass<D>;
  if constexpr (Space::on_device) {
    if (elements <= 0) return;
    // A hint that the SM's L1/shared split should leave room for four blocks' 152 kB (by default
    // the driver may choose a smaller shared part and run fewer blocks an SM).
    static const cudaError_t carveout = cudaFuncSetAttribute(
        jacobian_block_loop<D, PointsByElement>, cudaFuncAttributePreferredSharedMemoryCarveout,
        cudaSharedmemCarveoutMaxShared);
    check_cuda(carveout, "setting the Jacobian block pass's shared-memory carveout");
    const int blocks = (elements + Pass::kElementsPerBlock - 1) / Pass::kElementsPerBlock;
    jacobian_block_loop<D, PointsByElement><<<blocks, Pass::kBlockThreads, Pass::kSharedBytes>>>(pass, elements);
    check_cuda(cudaPeekAtLastError(), "kernel launch");
  } else {
    jacobian_blocks_on_host(pass, elements);
  }
}

}  // namespace catenary::cuda
