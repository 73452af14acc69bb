#pragma once
// The element-level pieces of assembly that every backend shares (host and device): the local
// Newton matrix c_m M + c_k K + c_d D of one element, the mass product M x, and the weighted
// entry of the convergence norm. Backends differ only in how they loop and sum.
#include <cmath>

#include "catenary/core/host_device.hpp"
#include "catenary/core/record_array.hpp"
#include "catenary/elements/gradient_deficient_math.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

struct NewtonMatrixCoefficients {
  double mass = 0.0;        // times M
  double stiffness = 0.0;   // times K = d f_int / dq
  double damping = 0.0;     // times D = d f_int / dv
  double constraint = 1.0;  // times Phi_q in both off-diagonal blocks
};

// Bytes an element pass moves at least in the backends' layouts (per element: node indices,
// force and energy written; with the Jacobian also the local Newton matrix and its rows' sums of
// |entries| written), plus the coordinates and velocities read once each, and with a mass term
// (ForceTerms) its vector; and the element records read (properties, the reference at the
// quadrature points, and with the Jacobian or the mass term the scalar mass): `records` of them,
// one an element or fewer shared through a record number an element (model/element_records.hpp).
// The element stage's achieved bandwidth is this over its time.
template <int D>
constexpr double element_pass_bytes(long elements, long dofs, bool jacobian, bool mass_term, long records) {
  constexpr int n = 4 * D;
  const double per_element =
      2 * sizeof(int) + sizeof(double) * (n + 1) + (jacobian ? sizeof(double) * (n * n + n) : 0);
  const double per_record = sizeof(ElementProperties) + sizeof(ReferenceQuadrature) +
                            (jacobian || mass_term ? sizeof(double) * 16 : 0);
  const double record_numbers = records < elements ? sizeof(int) * static_cast<double>(elements) : 0.0;
  return static_cast<double>(elements) * per_element + static_cast<double>(records) * per_record + record_numbers +
         (mass_term ? 3.0 : 2.0) * sizeof(double) * dofs;
}

// The Jacobian weights of the Newton matrix c.mass M + c.stiffness K + c.damping D.
CATENARY_HD JacobianWeights newton_jacobian_weights(const NewtonMatrixCoefficients& c) {
  return {c.stiffness, c.damping};
}

// Where element e's local entry l of N (a row of its force, a row's sum of |entries|) lies in the
// element-local arrays: element-major at N e + l (the CPU backend's), or entry-major at
// elements l + e (the CUDA backend's: a warp's threads, one element each, write each entry in one
// coalesced store; element-major, a store of 32 lanes 96 bytes apart touched 24 cache lines).
template <int N>
struct LocalEntryLayout {
  long elements;  // 0: element-major
  CATENARY_HD long index(long e, int l) const { return elements > 0 ? l * elements + e : N * e + l; }
  CATENARY_HD long element_of(long index) const { return elements > 0 ? index % elements : index / N; }
  CATENARY_HD int entry_of(long index) const { return static_cast<int>(elements > 0 ? index / elements : index % N); }
  // Element e's entries l0, l0 + 1, ...
  CATENARY_HD StridedSlots entries(double* base, long e, int l0) const {
    return {base + index(e, l0), elements > 0 ? elements : 1};
  }
};

// An element's 4 x 4 scalar mass (M_e = scalar_mass (x) I_D) is read as scalar_mass[4 k + l]: a
// pointer to the element's 16 values (Model's element-major layout), or the StridedValues of a
// RecordArray (core/record_array.hpp: the CUDA backend's field-major layout).

// Entry (i, j) of c.mass M + jacobian_ij, M = scalar_mass (x) I_D.
template <int D, class ScalarMass>
CATENARY_HD double newton_matrix_entry(const ScalarMass& scalar_mass, const NewtonMatrixCoefficients& c, int i, int j,
                                       double jacobian_ij) {
  // Nonzero mass only between equal components of the node blocks.
  const double mass = (i % D == j % D) ? scalar_mass[(i / D) * 4 + (j / D)] : 0.0;
  return c.mass * mass + jacobian_ij;
}

// The evaluated rows of Ke (row-major (4D)^2) = c.mass M + c.stiffness K + c.damping D of one
// element, whose Jacobian was evaluated with newton_jacobian_weights(c); Ke points at the
// element's first evaluated row (row out.first D), and row_abs_sums[r] takes that row's sum of
// |entries|: a pointer to the element's local dof out.first D, or LocalEntryLayout::entries from
// there. scalar_mass is the element's 4x4 scalar mass
// (M = scalar_mass (x) I_D).
template <int D, int S, class ScalarMass, class RowSums>
CATENARY_HD void element_newton_matrix(const ElementEvaluation<D, S>& out, const ScalarMass& scalar_mass,
                                       const NewtonMatrixCoefficients& c, double* Ke, const RowSums& row_abs_sums) {
  constexpr int n = 4 * D;
  for (int r = 0; r < S * D; ++r) {
    const int i = out.first * D + r;
    double abs_sum = 0.0;
    for (int j = 0; j < n; ++j) {
      const double entry = newton_matrix_entry<D>(scalar_mass, c, i, j, out.jacobian(r, j));
      Ke[r * n + j] = entry;
      abs_sum += fabs(entry);
    }
    row_abs_sums[r] = abs_sum;
  }
}

// The sum of values[sources[ptr[k] .. ptr[k+1])]: what an assembled slot or dof gathers from the
// element-local entries (SystemPattern's gather maps).
CATENARY_HD double gathered_sum(const int* ptr, const int* sources, const double* values, int k) {
  double s = 0.0;
  for (int t = ptr[k]; t < ptr[k + 1]; ++t) s += values[sources[t]];
  return s;
}

// Row k D + i of M_e xe for one element (shape function k, component i; xe: 4D local values, an
// array or anything indexed like one).
template <int D, class ScalarMass, class Values>
CATENARY_HD double element_mass_row(const ScalarMass& scalar_mass, const Values& xe, int k, int i) {
  double s = 0.0;
  for (int l = 0; l < 4; ++l) s += scalar_mass[k * 4 + l] * xe[l * D + i];
  return s;
}

// An element pass's force output in row k D + i (ForceTerms, backend.hpp): the force, or with the
// mass term force_scale force + mass_scale (M_e we)_{k D + i}, we the element's 4D values of the
// term's vector.
template <int D, class ScalarMass, class Values>
CATENARY_HD double element_force_output(double force, bool mass_term, double force_scale, double mass_scale,
                                        const ScalarMass& scalar_mass, const Values& we, int k, int i) {
  return mass_term ? force_scale * force + mass_scale * element_mass_row<D>(scalar_mass, we, k, i) : force;
}

// What node_mass_product writes at entry i: scale (M x)_i, plus plus_scale plus[i] where plus is
// set (Backend::mass_product: HHT's force history is a combination of M a1 and the one before).
struct MassProductOutput {
  double scale = 1.0;
  const double* plus = nullptr;
  double plus_scale = 0.0;
  CATENARY_HD double operator()(double mass_times_x, int i) const {
    return plus ? scale * mass_times_x + plus_scale * plus[i] : scale * mass_times_x;
  }
};

// The 2D entries of M x at one node (its dofs 2D node on), M the sum of the elements' M_e =
// scalar_mass (x) I_D, without element-local copies of M_e x_e: the node's first dof gathers from
// one local entry l = k D of each element at the node (ptr and sources as in gathered_sum, the
// sources' places in the layout `local`; k = 0 at the element's node a, 2 at node b), and the node's other
// dofs from entries l + 1 .. l + 2D - 1 of the same elements in the same order (an element covers
// all coordinates of both its nodes). So each entry is the same sum in the same order as M_e x_e
// per element followed by gathered_sum, without writing the element-local products and reading
// them back. x and the y this fills must be distinct. scalar_mass: the elements' scalar masses,
// records of 16. out: what is written (MassProductOutput).
template <int D>
CATENARY_HD void node_mass_product(const int* ptr, const int* sources, const LocalEntryLayout<4 * D>& local,
                                   const RecordArray& scalar_mass, const int* node_a, const int* node_b,
                                   const double* x, int node, double* y, const MassProductOutput& out) {
  constexpr int n = 4 * D;
  const int first = 2 * D * node;
  double sum[2 * D] = {};
  for (int t = ptr[first]; t < ptr[first + 1]; ++t) {
    const long e = local.element_of(sources[t]);
    const int k = local.entry_of(sources[t]) / D;
    double xe[n];
    for (int i = 0; i < n; ++i) xe[i] = x[local_to_global_dof(node_a[e], node_b[e], 2 * D, i)];
    for (int j = 0; j < 2 * D; ++j)
      sum[j] += element_mass_row<D>(scalar_mass[e], xe, k + j / D, j % D);
  }
  for (int j = 0; j < 2 * D; ++j) y[first + j] = out(sum[j], first + j);
}

// One entry of the weighted convergence norm max_i |dx_i| / (tol (scale_i + |x_i|)); a
// non-finite entry counts as infinite so that it is always the worst.
CATENARY_HD double weighted_entry(double dx, double x, double scale, double tol) {
  const double value = fabs(dx) / (tol * (scale + fabs(x)));
  return value < INFINITY ? value : INFINITY;  // NaN compares false
}

}  // namespace catenary
