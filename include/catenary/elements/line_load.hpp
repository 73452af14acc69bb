#pragma once
// A load per unit reference length that acts at one quadrature point of an element and depends on
// the centreline there (its position r, slope a = r' and velocity v): its share of the element's
// internal-force rows and of their Newton-matrix blocks, host and device code. Contacts with
// surfaces (surface_contact.hpp) and the water's loads (fluid_load.hpp) act this way.
#include "catenary/core/small_matrix.hpp"
#include "catenary/elements/gradient_deficient_math.hpp"

namespace catenary::detail {

// At one point: the load as an internal force fp (minus the load per unit length) and its
// derivatives in r, a and v.
template <int D>
struct LinePointLoad {
  Vec<D> force;
  Mat<D, D> d_r, d_a, d_v;
};

// Adds w S_k fp to the rows of shape functions out.first .. out.first + S - 1 and, with the
// Jacobian, w S_k (c_k (S_l dfp/dr + S_l' dfp/da) + c_d S_l dfp/dv) to their blocks (the
// weights' c_k and c_d); w is the quadrature weight times the reference arc length element.
template <int D, int S>
CATENARY_HD void add_line_point(const HermiteShape& h, double w, const LinePointLoad<D>& point, bool want_jacobian,
                                const JacobianWeights& weights, ElementEvaluation<D, S>& out) {
  for (int k = 0; k < S; ++k) {
    const double wk = w * h.s[out.first + k];
    for (int i = 0; i < D; ++i) out.force[k * D + i] += wk * point.force[i];
  }
  if (!want_jacobian) return;
  // Column block l, formed once for all row blocks.
  for (int l = 0; l < 4; ++l) {
    const double cr = w * weights.stiffness * h.s[l], ca = w * weights.stiffness * h.sx[l];
    const double cv = w * weights.damping * h.s[l];
    Mat<D, D> column;
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) column(i, j) = cr * point.d_r(i, j) + ca * point.d_a(i, j) + cv * point.d_v(i, j);
    for (int k = 0; k < S; ++k) {
      const double sk = h.s[out.first + k];
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j) out.jacobian(k * D + i, l * D + j) += sk * column(i, j);
    }
  }
}

}  // namespace catenary::detail
