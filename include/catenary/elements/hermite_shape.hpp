#pragma once
// Cubic Hermite shape functions of the two-node gradient-deficient ANCF element.
// Element coordinates are ordered node by node: e = [r_A, r'_A, r_B, r'_B], each a D-vector,
// so r(x) = sum_k S_k(x) e_k with S = [S1, S2, S3, S4] acting on the four D-blocks.
#include "catenary/core/host_device.hpp"

namespace catenary {

struct HermiteShape {
  double s[4];    // S_k
  double sx[4];   // dS_k/dx
  double sxx[4];  // d2S_k/dx2
};

// xi = x / L in [0, 1], L the element's length parameter. One division (1 / L), which the
// element's point loops can hoist, instead of six per point: each element evaluation reads the
// shapes at eight points, and a double division is a called subroutine on the device and the
// slowest arithmetic instruction on the CPU.
CATENARY_HD HermiteShape hermite_shape(double xi, double L) {
  const double xi2 = xi * xi, xi3 = xi2 * xi, iL = 1.0 / L, iL2 = iL * iL;
  HermiteShape h;
  h.s[0] = 1.0 - 3.0 * xi2 + 2.0 * xi3;
  h.s[1] = L * (xi - 2.0 * xi2 + xi3);
  h.s[2] = 3.0 * xi2 - 2.0 * xi3;
  h.s[3] = L * (xi3 - xi2);
  h.sx[0] = (-6.0 * xi + 6.0 * xi2) * iL;
  h.sx[1] = 1.0 - 4.0 * xi + 3.0 * xi2;
  h.sx[2] = (6.0 * xi - 6.0 * xi2) * iL;
  h.sx[3] = 3.0 * xi2 - 2.0 * xi;
  h.sxx[0] = (-6.0 + 12.0 * xi) * iL2;
  h.sxx[1] = (-4.0 + 6.0 * xi) * iL;
  h.sxx[2] = (6.0 - 12.0 * xi) * iL2;
  h.sxx[3] = (6.0 * xi - 2.0) * iL;
  return h;
}

// Five-point Gauss-Legendre rule on [0, 1]: exact for polynomials up to degree 9, which covers
// the mass matrix (degree 6) and the axial energy of a straight element (degree 8) exactly.
// The rules' tables are static: a local array indexed by the run-time point would be built in a
// device thread's local memory at every call (40 bytes of stack in each element pass, ptxas sm_90).
struct GaussRule5 {
  static constexpr int kPoints = 5;
  CATENARY_HD static double point(int i) {
    static constexpr double p[5] = {0.04691007703066800, 0.23076534494715845, 0.5, 0.76923465505284155,
                                    0.95308992296933200};
    return p[i];
  }
  CATENARY_HD static double weight(int i) {
    static constexpr double w[5] = {0.11846344252809454, 0.23931433524968324, 0.28444444444444444, 0.23931433524968324,
                                    0.11846344252809454};
    return w[i];
  }
};

// Gauss-Legendre rules on [0, 1] with two and three points.
struct GaussRule2 {
  static constexpr int kPoints = 2;
  CATENARY_HD static double point(int i) { return i == 0 ? 0.21132486540518712 : 0.78867513459481288; }
  CATENARY_HD static double weight(int) { return 0.5; }
};

struct GaussRule3 {
  static constexpr int kPoints = 3;
  CATENARY_HD static double point(int i) {
    static constexpr double p[3] = {0.11270166537925831, 0.5, 0.88729833462074169};
    return p[i];
  }
  CATENARY_HD static double weight(int i) {
    static constexpr double w[3] = {0.27777777777777778, 0.44444444444444444, 0.27777777777777778};
    return w[i];
  }
};

// Rule for the axial strain energy (see evaluate_element).
using AxialRule = GaussRule3;

}  // namespace catenary
