#pragma once
// The water's loads (fluid_load.hpp) in the CUDA backend: a pass after the element pass that adds
// each wet element's buoyancy, Morison and added-mass terms to the rows the element pass wrote, and
// the added mass's share of a mass product. The loads live in a pass of their own, not in a branch
// of the element pass: inlined there, they cost every model's pass (water or not) spills, and
// out of line their arrays went to the stack (docs/performance.md, Water).
#include <cmath>

#include "backend_functors.cuh"

namespace catenary::cuda {

// Adds the water's loads to the element-local rows of an element pass (ElementPass<D, *,
// Jacobian>, same thread layout: with the Jacobian one shape function of one element per thread,
// else one element): force rows force_scale f_w + mass_scale M_a(q) (q - origin) where the terms
// have a mass term (f_w without), and with the Jacobian its weighted blocks (the added mass's with
// c.mass) added to the matrix rows, whose sums of |entries| are then taken again. Elements out of
// the water return at once. v null: evaluated at rest (a model whose passes read no velocities).
template <int D, bool Jacobian>
struct WaterPass {
  using Pass = ElementPass<D, true, Jacobian>;
  static constexpr int kLocal = Pass::kLocal, kShapes = Pass::kShapes, kRows = kShapes * D;
  RecordArray properties, quadrature;
  const int *node_a, *node_b;
  const double *q, *v, *origin;
  double force_scale, mass_scale;
  NewtonMatrixCoefficients c;
  double *local_forces, *local_matrices, *local_row_sums;
  LocalEntryLayout<kLocal> local;
  FluidLoadList fluids;

  CATENARY_HD void operator()(int t) const {
    const int e = t / Pass::kThreadsPerElement;
    const ElementProperties p = element_properties_from(properties[e]);
    if (!(p.fluid >= 0.0)) return;
    double qe[kLocal], ve[kLocal], we[kLocal], mass_rows[kRows] = {};
    for (int i = 0; i < kLocal; ++i) {
      const int g = local_to_global_dof(node_a[e], node_b[e], 2 * D, i);
      qe[i] = q[g];
      ve[i] = v ? v[g] : 0.0;
      we[i] = origin ? q[g] - origin[g] : 0.0;
    }
    ElementEvaluation<D, kShapes> out;
    out.first = (t % Pass::kThreadsPerElement) * kShapes;
    out.force = Vec<kRows>::zero();
    out.jacobian = Mat<kRows, kLocal>::zero();
    add_fluid_load<D, kShapes, true>(fluids, p, ReferenceQuadratureValues<StridedValues>(quadrature[e]), qe, ve,
                                     Jacobian, out, newton_jacobian_weights(c),
                                     {origin ? we : nullptr, mass_scale, c.mass, mass_rows});
    const StridedSlots rows = local.entries(local_forces, e, out.first * D);
    for (int i = 0; i < kRows; ++i)
      rows[i] += origin ? force_scale * out.force[i] + mass_scale * mass_rows[i] : out.force[i];
    if constexpr (Jacobian) {
      double* Ke = local_matrices + static_cast<size_t>(Pass::kRowValues) * t;
      const StridedSlots sums = local.entries(local_row_sums, e, out.first * D);
      for (int r = 0; r < kRows; ++r) {
        double abs_sum = 0.0;
        for (int j = 0; j < kLocal; ++j) {
          Ke[r * kLocal + j] += out.jacobian(r, j);
          abs_sum += fabs(Ke[r * kLocal + j]);
        }
        sums[r] = abs_sum;
      }
    }
  }
};

// The water's added mass times x for one element a thread (add_added_mass_product), into the
// element's local force entries, for GatherSum to sum per dof (Backend::mass_product with q).
template <int D>
struct AddedMassPass {
  static constexpr int kLocal = 4 * D;
  RecordArray properties, quadrature;
  const int *node_a, *node_b;
  const double *q, *x;
  FluidLoadList fluids;
  double* local_forces;
  LocalEntryLayout<kLocal> local;
  CATENARY_HD void operator()(int e) const {
    double qe[kLocal], xe[kLocal], rows[kLocal] = {};
    for (int i = 0; i < kLocal; ++i) {
      const int g = local_to_global_dof(node_a[e], node_b[e], 2 * D, i);
      qe[i] = q[g];
      xe[i] = x[g];
    }
    add_added_mass_product<D>(fluids, element_properties_from(properties[e]),
                              ReferenceQuadratureValues<StridedValues>(quadrature[e]), qe, xe, rows);
    const StridedSlots out = local.entries(local_forces, e, 0);
    for (int i = 0; i < kLocal; ++i) out[i] = rows[i];
  }
};

}  // namespace catenary::cuda
