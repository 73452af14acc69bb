#pragma once
// The per-element and per-entry loop bodies of the CUDA backend, as Thrust functors over raw
// pointers: each runs as one CUDA thread per element (or slot, or dof) in DeviceSpace and as a
// plain loop in HostSpace. The element math itself is the shared host+device code.
#include <cmath>

#include "catenary/assembly/backend.hpp"
#include "catenary/assembly/element_assembly.hpp"
#include "catenary/model/model.hpp"

namespace catenary::cuda {

// The element pass. With the Jacobian: one shape function of one element per thread (t = 4 e +
// k), which evaluates the force rows of shape function k and those rows of the local Newton matrix
// c_m M + c_k K + c_d D. Four threads per element repeat the quadrature-point geometry, but each
// holds 3 + 36 results rather than a whole element's 12 + 144, and together they write the
// element's slots as four adjacent runs. Forces only: one thread per element (no matrix, so the
// whole element's 12 results are few; repeating the geometry would only cost).
// The element records (properties, reference quadrature, scalar mass) are RecordArrays
// (core/record_array.hpp): the backend's are field-major, so that a warp reads each field of its
// 32 elements in one coalesced load.
// Each thread gathers the element's coordinates and velocities and writes its rows to the
// element's local slots (the forces and row sums entry-major, LocalEntryLayout: coalesced stores);
// the thread of shape function 0 writes the energy. Damped = false (a model without material
// damping and without contacts that read velocities) compiles the damping terms out and never
// reads the velocities. Elements that touch a surface add its contact to their rows
// (add_surface_contact), the same call as the CPU backend's; the water's loads follow in a pass of
// their own (water_pass.cuh).
template <int D, bool Damped, bool Jacobian>
struct ElementPass {
  static constexpr int kLocal = 4 * D;
  static constexpr int kShapes = Jacobian ? 1 : 4;  // shape functions per thread
  static constexpr int kThreadsPerElement = 4 / kShapes;
  // A thread's rows of the local Newton matrix: kRowValues values at local_matrices + kRowValues t
  // (the element's matrix row-major, its shape functions' rows one after another).
  static constexpr int kRowValues = kShapes * D * kLocal;
  RecordArray properties, quadrature, scalar_mass;  // ElementProperties, ReferenceQuadrature, 16 doubles
  const int *node_a, *node_b;
  const double *q, *v;
  const double* origin;  // ForceTerms: the mass term's M (q - origin) (null: forces alone) and the scales
  double force_scale, mass_scale;
  NewtonMatrixCoefficients c;
  double *local_forces, *local_matrices, *local_row_sums, *energy;
  LocalEntryLayout<kLocal> local;  // of local_forces and local_row_sums (local_matrices: element-major)
  ContactSurfaceList contacts;     // the surfaces elements touch (surface_contact.hpp), in the pass's memory

  CATENARY_HD void operator()(int t) const { evaluate(t, local_matrices + static_cast<size_t>(kRowValues) * t); }

  // The pass of thread t, its matrix rows (with the Jacobian) written to matrix_rows: in place, or
  // staged in shared memory to be copied out coalesced (for_each_staged, memory_space.cuh).
  CATENARY_HD void evaluate(int t, double* matrix_rows) const {
    const int e = t / kThreadsPerElement, shape = (t % kThreadsPerElement) * kShapes;
    evaluate_into(e, shape, matrix_rows, LocalForceRows{local, local_forces});
  }

  // Where element e's force rows from first_row on go: the element-local array (entry-major), or
  // for a pass that sums them itself (ChainForcesPass) its shared memory.
  struct LocalForceRows {
    LocalEntryLayout<kLocal> local;
    double* forces;
    CATENARY_HD StridedSlots operator()(int e, int first_row) const { return local.entries(forces, e, first_row); }
  };

  // Element e's pass for shape functions shape on, its force rows written where force_rows says.
  template <class ForceRows>
  CATENARY_HD void evaluate_into(int e, int shape, double* matrix_rows, const ForceRows& force_rows) const {
    double qe[kLocal], ve[Damped ? kLocal : 1];
    for (int i = 0; i < kLocal; ++i) {
      const int g = local_to_global_dof(node_a[e], node_b[e], 2 * D, i);
      qe[i] = q[g];
      if constexpr (Damped) ve[i] = v[g];
    }
    ElementEvaluation<D, kShapes> out;
    const ElementProperties p = element_properties_from(properties[e]);
    const ReferenceQuadratureValues<StridedValues> ref(quadrature[e]);
    evaluate_element<D, kShapes, Damped>(p, ref, qe, ve, Jacobian, out, newton_jacobian_weights(c), shape);
    if (contacts.count > 0)
      add_surface_contact<D, kShapes, Damped>(contacts, p, ref, qe, ve, Jacobian, out, newton_jacobian_weights(c));
    write_forces<kShapes * D>(e, shape, out.force.v, force_rows);
    if (shape == 0) energy[e] = out.energy;
    if constexpr (Jacobian)
      element_newton_matrix<D>(out, scalar_mass[e], c, matrix_rows, local.entries(local_row_sums, e, shape * D));
  }

  // Element e's force rows of shape functions first_shape on (Rows values, the element math's
  // force), with the mass term M (q - origin) where ForceTerms has one. Its values are loaded where
  // each row's product reads them (MassTermValues), not gathered into an array first: gathered, the
  // 12 differences spill in the summing pass (ptxas sm_90: ChainForcesPass<3, false> 136 / 428
  // bytes of spill stores / loads, against 40 / 44 loaded in place); their loads hit the cache
  // lines the element's coordinates were just read from.
  template <int Rows, class ForceRows>
  CATENARY_HD void write_forces(int e, int first_shape, const double* force, const ForceRows& force_rows) const {
    const MassTermValues we{q, origin, node_a[e], node_b[e]};
    const StridedSlots rows = force_rows(e, first_shape * D);
    for (int i = 0; i < Rows; ++i)
      rows[i] = element_force_output<D>(
          force[i], origin != nullptr, force_scale, mass_scale, scalar_mass[e], we, first_shape + i / D, i % D);
  }

  // The element's local values of q - origin, entry l loaded when asked for.
  struct MassTermValues {
    const double *q, *origin;
    int a, b;  // the element's nodes
    CATENARY_HD double operator[](int l) const {
      const int g = local_to_global_dof(a, b, 2 * D, l);
      return q[g] - origin[g];
    }
  };
};

// The entries of y = M x at one node a thread (node_mass_product).
template <int D>
struct NodeMassProduct {
  const int *ptr, *sources;
  LocalEntryLayout<4 * D> local;
  RecordArray scalar_mass;
  const int *node_a, *node_b;
  const double* x;
  double* y;
  MassProductOutput out;
  CATENARY_HD void operator()(int node) const {
    node_mass_product<D>(ptr, sources, local, scalar_mass, node_a, node_b, x, node, y, out);
  }
};

// b + s a.
struct PlusScaled {
  double s;
  CATENARY_HD double operator()(double a, double b) const { return b + s * a; }
};

// out[k] = sum of values[sources[ptr[k] .. ptr[k+1])]: matrix slots and force entries alike.
struct GatherSum {
  const int *ptr, *sources;
  const double* values;
  double* out;
  CATENARY_HD void operator()(int k) const { out[k] = gathered_sum(ptr, sources, values, k); }
};
// out[k] = from[k] - the same sum (a Newton residual, ForceTerms::from).
struct GatherDifference {
  GatherSum sum;
  const double* from;
  CATENARY_HD void operator()(int k) const {
    sum.out[k] = from[k] - gathered_sum(sum.ptr, sum.sources, sum.values, k);
  }
};
// The same sum, returned (for a reduction over k).
struct GatheredSum {
  const int *ptr, *sources;
  const double* values;
  CATENARY_HD double operator()(int k) const { return gathered_sum(ptr, sources, values, k); }
};

// Adds c times the constraint Jacobian to both off-diagonal blocks (each slot appears once).
struct AddConstraintBlocks {
  const int *lower, *upper;
  const double* coefficient;
  double scale;
  double* values;
  CATENARY_HD void operator()(int t) const {
    values[lower[t]] += scale * coefficient[t];
    values[upper[t]] += scale * coefficient[t];
  }
};

// values[slot[k]] += add[k] (slots without repeats).
struct AddAtSlots {
  const int* slot;
  const double* add;
  double* values;
  CATENARY_HD void operator()(int k) const { values[slot[k]] += add[k]; }
};

// out[k] = x[index[k]]
struct GatherAt {
  const int* index;
  const double* x;
  double* out;
  CATENARY_HD void operator()(int k) const { out[k] = x[index[k]]; }
};

// sum_k a[k] x[col[k]] over CSR row r.
CATENARY_HD double csr_row_dot(const int* row_ptr, const int* col, const double* a, const double* x, int r) {
  double s = 0.0;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) s += a[k] * x[col[k]];
  return s;
}

// y[r] = sum_k a[k] x[col[k]] over CSR row r.
struct CsrRowProduct {
  const int *row_ptr, *col;
  const double *a, *x;
  double* y;
  CATENARY_HD void operator()(int r) const { y[r] = csr_row_dot(row_ptr, col, a, x, r); }
};

// out[r] = rhs[r] - sum_k a[k] x[col[k]] over CSR row r.
struct CsrRowResidual {
  const int *row_ptr, *col;
  const double *a, *x, *rhs;
  double* out;
  CATENARY_HD void operator()(int r) const { out[r] = rhs[r] - csr_row_dot(row_ptr, col, a, x, r); }
};

// Permuted right-hand side from the coordinate and constraint parts, and back.
struct GatherPermuted {
  const int* original_of;
  const double *top, *bottom;
  double* out;
  int dof_count;
  CATENARY_HD void operator()(int p) const {
    const int o = original_of[p];
    out[p] = o < dof_count ? top[o] : bottom[o - dof_count];
  }
};
struct ScatterPermuted {
  const int* original_of;
  const double* in;
  double *top, *bottom;
  int dof_count;
  CATENARY_HD void operator()(int p) const {
    const int o = original_of[p];
    if (o < dof_count)
      top[o] = in[p];
    else
      bottom[o - dof_count] = in[p];
  }
};

struct Axpby {
  double a, b;
  CATENARY_HD double operator()(double x, double y) const { return a * x + b * y; }
};
struct Times {
  double a;
  CATENARY_HD double operator()(double x) const { return a * x; }
};

// |x|, or infinity for a non-finite entry.
struct AbsOrInfinity {
  CATENARY_HD double operator()(double x) const {
    const double a = fabs(x);
    return a < INFINITY ? a : INFINITY;
  }
};
struct Maximum {
  CATENARY_HD double operator()(double a, double b) const { return a > b ? a : b; }
};

// The largest |x| of each of up to Backend::kMaxMaxima vectors laid end to end (vector k's entries
// from start[k] on; start[count] is the total), in one reduction.
struct Maxima {
  double m[Backend::kMaxMaxima];
};
struct MaximaAt {
  int count;
  const double* x[Backend::kMaxMaxima];
  int start[Backend::kMaxMaxima + 1];
  // Constant indices k (the loop unrolled): indexing x and start by a run-time k copied the
  // functor to each thread's local memory (ptxas: 144 bytes of stack).
  CATENARY_HD Maxima operator()(int i) const {
    Maxima out{};
    for (int k = 0; k < Backend::kMaxMaxima; ++k)
      if (k < count && i >= start[k] && i < start[k + 1]) out.m[k] = AbsOrInfinity()(x[k][i - start[k]]);
    return out;
  }
};
struct LargerEach {
  CATENARY_HD Maxima operator()(const Maxima& a, const Maxima& b) const {
    Maxima out;
    for (int k = 0; k < Backend::kMaxMaxima; ++k) out.m[k] = a.m[k] > b.m[k] ? a.m[k] : b.m[k];
    return out;
  }
};

}  // namespace catenary::cuda
