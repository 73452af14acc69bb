#pragma once
// Element math of the two-node gradient-deficient ANCF element, written once for the planar
// beam (D = 2, Shabana's element: per node r and dr/ds in the plane) and the spatial cable
// (D = 3). Host and device code both call these functions.
//
// Energy per element (x in [0, L] is the element parameter, r0 the stress-free reference):
//   U = int_0^L [ 1/2 EA eps^2 + 1/2 EI (kappa - kappa0)^2 ] |r0'| dx
// with one of two strain laws (StrainLaw):
//   Reissner (the geometrically exact rod):  eps = |r'| / |r0'| - 1 (Biot),
//                                            kappa = |r' x r''| / (|r'|^2 |r0'|), the material
//                                            curvature per unit reference length;
//   Green-Lagrange:                          eps = (r'.r' - r0'.r0') / (2 r0'.r0'),
//                                            kappa = |r' x r''| / |r'|^3, the spatial curvature.
// Both curvatures are |r' x r''| A^-h c^1/2 with A = r'.r' (h = 1, c = 1 / |r0'|^2 for
// Reissner; h = 3/2, c = 1 for Green-Lagrange; CurvatureMeasure). Both densities are functions
// of the invariants A, B = r''.r'' and C = r'.r'' (kappa^2 = (A B - C^2) A^-2h c, smooth
// everywhere), except the planar beam's kappa0 kappa with its signed kappa: forces and Jacobians
// follow from derivatives in (A, B, C) (invariant_point_derivatives). The kappa0 part (curved
// references only) needs kappa itself.
// Material damping is Kelvin-Voigt in the same strain rates: the dissipation function
//   R = eta int [ 1/2 EA epsdot^2 + 1/2 EI |kappadot_vec|^2 ] |r0'| dx,  kappa_vec = r' x r'' A^-h c^1/2,
// gives the damping force D(e) edot with D = eta int (EA g_eps g_eps^T + EI G_k^T G_k) |r0'| dx.
#include <math.h>

#include <type_traits>

#include "catenary/core/small_matrix.hpp"
#include "catenary/elements/hermite_shape.hpp"

namespace catenary {

// The elastic law of an element (see the top of this file). Its values are the doubles an
// ElementProperties holds (element records hold doubles only).
enum class StrainLaw { reissner = 0, green_lagrange = 1 };

// Constant properties of one element.
struct ElementProperties {
  double length;  // element parameter length L
  double EA;      // axial stiffness (N)
  double EI;      // bending stiffness (N m^2)
  double rhoA;    // mass per reference length (kg/m)
  double eta;     // Kelvin-Voigt damping time (s); 0 for none
  double strain_law = double(StrainLaw::reissner);  // a StrainLaw's value
  double contact = -1.0;  // index of the element's contact plane (surface_contact.hpp); -1: none
  double fluid = -1.0;    // index of the element's fluid load (fluid_load.hpp); -1: none
};

CATENARY_HD bool reissner_law(const ElementProperties& p) {
  return p.strain_law == double(StrainLaw::reissner);
}

// The properties from their 8 values in declaration order, values[f] (a pointer or the
// StridedValues of a RecordArray, core/record_array.hpp). Field by field, so that a device thread
// keeps them in registers.
template <class Values>
CATENARY_HD ElementProperties element_properties_from(const Values& values) {
  static_assert(sizeof(ElementProperties) == 8 * sizeof(double), "eight doubles, in this order");
  return {values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7]};
}

// What an evaluation's Jacobian holds: stiffness K = d2U/de2 (exact) and damping D(e) = d f /
// d edot, weighted (the Newton matrix's c_k and c_d). One weighted sum rather than two matrices
// halves the Jacobian's storage and its accumulation.
struct JacobianWeights {
  double stiffness = 1.0, damping = 0.0;
};

// One element's strain energy and the rows of its force and Jacobian that belong to S of its four
// shape functions, first .. first + S - 1 (rows k D + i for those k). S = 4 is the whole element;
// the CUDA kernel gives each shape function its own thread (S = 1), so that a thread's results
// (3 + 36 values in 3D, not 12 + 144) can stay in registers.
template <int D, int S = 4>
struct ElementEvaluation {
  static constexpr int kDofs = 4 * D, kRows = S * D;
  int first = 0;                  // first shape function of the rows
  Vec<kRows> force;               // internal force dU/de + D(e) edot
  Mat<kRows, kDofs> jacobian;     // w_k K + w_d D (JacobianWeights); filled only when asked for
  double energy;                  // strain energy U
};

namespace detail {

template <int D>
CATENARY_HD Vec<D> interpolate(const double* sk, const double* e) {
  Vec<D> r = Vec<D>::zero();
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < D; ++i) r[i] += sk[k] * e[k * D + i];
  return r;
}

// Energy density f(A, B, C) at one point as a function of the invariants A = a.a, B = b.b and
// C = a.b of a = r' and b = r'': its value and its first and second derivatives.
struct InvariantDerivatives {
  double value = 0.0;
  double fA = 0.0, fB = 0.0, fC = 0.0;
  double fAA = 0.0, fAB = 0.0, fAC = 0.0, fBB = 0.0, fBC = 0.0, fCC = 0.0;
};

// Axial density 1/2 EA eps^2 at g0 = |r0'|^2: a function of A alone. Green-Lagrange: eps = (A -
// g0) / (2 g0); Reissner: eps = sqrt(A / g0) - 1 = A u - 1 with u = 1 / sqrt(A g0), eps_A = u / 2
// and eps_AA = -eps_A / (2 A) = -eps_A g0 u^2 / 2 (one division).
CATENARY_HD InvariantDerivatives axial_density(double EA, double g0, double A, bool reissner) {
  InvariantDerivatives f;
  if (reissner) {
    const double u = 1.0 / sqrt(A * g0), eps = A * u - 1.0, eps_A = 0.5 * u;
    f.value = 0.5 * EA * eps * eps;
    f.fA = EA * eps * eps_A;
    f.fAA = EA * eps_A * (eps_A - 0.5 * eps * g0 * u * u);
    return f;
  }
  const double half_inverse = 0.5 / g0;  // one division: the others would wait on it
  const double eps = (A - g0) * half_inverse;
  f.value = 0.5 * EA * eps * eps;
  f.fA = EA * eps * half_inverse;
  f.fAA = EA * half_inverse * half_inverse;
  return f;
}

// The curvature of a strain law at one point, kappa = |a x b| A^-h c^1/2 (see the top of this
// file), as h, 1 / A and the factor Q = A^-h c^1/2, from inverse_slope = 1 / |r0'| at the point.
// One division, which the curvature's derivatives share.
struct CurvatureMeasure {
  double h;   // 1 (Reissner) or 3/2 (Green-Lagrange)
  double iA;  // 1 / A
  double Q;   // A^-h c^1/2
};

CATENARY_HD CurvatureMeasure curvature_measure(bool reissner, double A, double inverse_slope) {
  const double iA = 1.0 / A;
  if (reissner) return {1.0, iA, iA * inverse_slope};
  return {1.5, iA, iA / sqrt(A)};
}

// Bending density EI (1/2 kappa^2 - kappa0_abs |kappa|), with kappa = sqrt(N) Q, N = A B - C^2 =
// |a x b|^2 and Q = A^-h c^1/2 (curvature_measure; the constant 1/2 EI kappa0^2 is left to the
// caller). kappa0_abs is the spatial cable's reference curvature, 0 for straight references and
// for the planar beam, whose curvature is signed (signed_curvature). The density is g(A, N); its
// derivatives in (A, B, C) follow by the chain rule through N_A = B, N_B = A, N_C = -2C, N_AB =
// 1, N_CC = -2. Second derivatives only with hessian (forces alone do not need them).
CATENARY_HD InvariantDerivatives bending_density(double EI, double A, double B, double C, double kappa0_abs,
                                                 const CurvatureMeasure& m, bool hessian) {
  const double N = A * B - C * C;
  const double iA = m.iA, h = m.h, P = m.Q * m.Q;  // P = A^-2h c
  // g = 1/2 EI N P, P_A = -2h P / A
  double g = 0.5 * EI * N * P, gA = -h * EI * N * P * iA, gN = 0.5 * EI * P;
  double gAA = h * (2.0 * h + 1.0) * EI * N * P * iA * iA, gAN = -h * EI * P * iA, gNN = 0.0;
  if (kappa0_abs != 0.0) {  // - EI kappa0 sqrt(N) Q = -c s
    // |a x b| is not differentiable at zero curvature; this term exists only for curved
    // references, where kappa stays near kappa0 != 0. The floor keeps it finite if it passes 0.
    const double s = sqrt(fmax(N, 1e-300)), c = EI * kappa0_abs * m.Q, c_s = c / s;
    g -= c * s;
    gA += h * c * s * iA;
    gN -= 0.5 * c_s;
    gAA -= h * (h + 1.0) * c * s * iA * iA;
    gAN += 0.5 * h * c_s * iA;
    gNN += 0.25 * c_s / (s * s);
  }
  InvariantDerivatives f;
  f.value = g;
  f.fA = gA + gN * B;
  f.fB = gN * A;
  f.fC = -2.0 * C * gN;
  if (!hessian) return f;
  f.fAA = gAA + 2.0 * gAN * B + gNN * B * B;
  f.fAB = gAN * A + gNN * A * B + gN;
  f.fAC = -2.0 * C * (gAN + gNN * B);
  f.fBB = gNN * A * A;
  f.fBC = -2.0 * C * A * gNN;
  f.fCC = 4.0 * C * C * gNN - 2.0 * gN;
  return f;
}

// Gradient and Hessian of a scalar function of (a, b), stored as D-blocks.
template <int D>
struct PointDerivatives {
  Vec<D> ga, gb;
  Mat<D, D> haa, hab, hbb;  // hba = hab^T
};

// The (a, b) gradient and (with hessian) Hessian of f(A, B, C), by the chain rule through
// dA = 2 a.da, dB = 2 b.db, dC = b.da + a.db:
//   ga = 2 f_A a + f_C b,   gb = 2 f_B b + f_C a,
//   haa = 2 f_A I + a (4 f_AA a + 2 f_AC b)^T + b (2 f_AC a + f_CC b)^T,
//   hab = f_C I + a (2 f_AC a + 4 f_AB b)^T + b (f_CC a + 2 f_BC b)^T,
//   hbb = 2 f_B I + a (f_CC a + 2 f_BC b)^T + b (2 f_BC a + 4 f_BB b)^T.
// UsesB = false for a density of A alone (the axial term): gb, hab and hbb are left unset.
// Formed once per point, the Hessian serves all of the evaluation's row blocks (scatter_point).
template <int D, bool UsesB = true>
CATENARY_HD PointDerivatives<D> invariant_point_derivatives(const Vec<D>& a, const Vec<D>& b,
                                                            const InvariantDerivatives& f, bool hessian) {
  PointDerivatives<D> d;
  for (int i = 0; i < D; ++i) {
    d.ga[i] = UsesB ? 2.0 * f.fA * a[i] + f.fC * b[i] : 2.0 * f.fA * a[i];
    if constexpr (UsesB) d.gb[i] = 2.0 * f.fB * b[i] + f.fC * a[i];
  }
  if (!hessian) return d;
  for (int j = 0; j < D; ++j) {
    // Column j of the rank-two parts' right-hand factors.
    const double aa_a = UsesB ? 4.0 * f.fAA * a[j] + 2.0 * f.fAC * b[j] : 4.0 * f.fAA * a[j];
    const double aa_b = 2.0 * f.fAC * a[j] + f.fCC * b[j];
    const double ab_a = 2.0 * f.fAC * a[j] + 4.0 * f.fAB * b[j], ab_b = f.fCC * a[j] + 2.0 * f.fBC * b[j];
    const double bb_b = 2.0 * f.fBC * a[j] + 4.0 * f.fBB * b[j];
    for (int i = 0; i < D; ++i) {
      const double I = (i == j) ? 1.0 : 0.0;
      if constexpr (!UsesB) {
        d.haa(i, j) = 2.0 * f.fA * I + a[i] * aa_a;
      } else {
        d.haa(i, j) = 2.0 * f.fA * I + a[i] * aa_a + b[i] * aa_b;
        d.hab(i, j) = f.fC * I + a[i] * ab_a + b[i] * ab_b;
        d.hbb(i, j) = 2.0 * f.fB * I + a[i] * ab_b + b[i] * bb_b;
      }
    }
  }
  return d;
}

// The planar beam's signed curvature kappa = s Q, s = a x b = a0 b1 - a1 b0 and Q = A^-h c^1/2
// (curvature_measure), with its gradient and (with hessian) Hessian in (a, b): ds/da = (b1,
// -b0), ds/db = (-a1, a0), d2s/da db = [[0, 1], [-1, 0]], d2s/da2 = d2s/db2 = 0, dQ/da = -2h Q a
// / A. Not a function of the invariants: its sign is not.
CATENARY_HD double signed_curvature(const Vec<2>& a, const Vec<2>& b, const CurvatureMeasure& m,
                                    PointDerivatives<2>& d, bool hessian) {
  const double s = a[0] * b[1] - a[1] * b[0];
  const double iA = m.iA, Q = m.Q, Q_A = Q * iA, two_h = 2.0 * m.h;
  const double sa[2] = {b[1], -b[0]}, sb[2] = {-a[1], a[0]}, sab[2][2] = {{0.0, 1.0}, {-1.0, 0.0}};
  double Qa[2];  // dQ/da
  for (int i = 0; i < 2; ++i) Qa[i] = -two_h * Q_A * a[i];
  for (int i = 0; i < 2; ++i) {
    d.ga[i] = sa[i] * Q + s * Qa[i];
    d.gb[i] = sb[i] * Q;
  }
  if (!hessian) return s * Q;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      const double qaa = -two_h * Q_A * (i == j ? 1.0 : 0.0) + two_h * (two_h + 2.0) * Q_A * iA * a[i] * a[j];
      d.haa(i, j) = sa[i] * Qa[j] + Qa[i] * sa[j] + s * qaa;
      d.hab(i, j) = sab[i][j] * Q + Qa[i] * sb[j];
      d.hbb(i, j) = 0.0;
    }
  return s * Q;
}

// sum += c x, for the gradient and (with hessian) the Hessian.
template <int D>
CATENARY_HD void add_scaled(double c, const PointDerivatives<D>& x, PointDerivatives<D>& sum, bool hessian) {
  for (int i = 0; i < D; ++i) {
    sum.ga[i] += c * x.ga[i];
    sum.gb[i] += c * x.gb[i];
    if (hessian)
      for (int j = 0; j < D; ++j) {
        sum.haa(i, j) += c * x.haa(i, j);
        sum.hab(i, j) += c * x.hab(i, j);
        sum.hbb(i, j) += c * x.hbb(i, j);
      }
  }
}

// Rows of d(kappa_vec)/d(a, b), kappa_vec = a x b Q with Q = A^-h c^1/2 (curvature_measure; one
// component in 2D, three in 3D).
template <int D>
struct CurvatureVectorJacobian {
  static constexpr int kRows = (D == 2) ? 1 : 3;
  Vec<D> da[kRows];
  Vec<D> db[kRows];
};

template <int D>
CATENARY_HD CurvatureVectorJacobian<D> curvature_vector_jacobian(const Vec<D>& a, const Vec<D>& b,
                                                                 const CurvatureMeasure& m) {
  CurvatureVectorJacobian<D> J;
  const double Q = m.Q, Q_A = 2.0 * m.h * Q * m.iA;  // dQ/da = -Q_A a
  if constexpr (D == 2) {
    const double c = a[0] * b[1] - a[1] * b[0];
    J.da[0][0] = b[1] * Q - c * Q_A * a[0];
    J.da[0][1] = -b[0] * Q - c * Q_A * a[1];
    J.db[0][0] = -a[1] * Q;
    J.db[0][1] = a[0] * Q;
  } else {
    const double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                         a[0] * b[1] - a[1] * b[0]};
    // d(a x b)/da = -[b]x, d(a x b)/db = [a]x
    const double bx[3][3] = {{0, -b[2], b[1]}, {b[2], 0, -b[0]}, {-b[1], b[0], 0}};
    const double ax[3][3] = {{0, -a[2], a[1]}, {a[2], 0, -a[0]}, {-a[1], a[0], 0}};
    for (int r = 0; r < 3; ++r)
      for (int j = 0; j < 3; ++j) {
        J.da[r][j] = -bx[r][j] * Q - c[r] * Q_A * a[j];
        J.db[r][j] = ax[r][j] * Q;
      }
  }
  return J;
}

// Row shape function k's force rows at one point, w (sx_k ga + sxx_k gb), added to force[0 .. D)
// (a = sum sx_k e_k, b = sum sxx_k e_k). UsesB = false for a function of a = r' alone (the axial
// term: gb is zero and skipped).
template <int D, bool UsesB = true>
CATENARY_HD void add_point_force(const HermiteShape& h, double w, const PointDerivatives<D>& p, int k, double* force) {
  const double sxk = pick(h.sx, k), sxxk = pick(h.sxx, k);
  for (int i = 0; i < D; ++i) force[i] += w * (UsesB ? sxk * p.ga[i] + sxxk * p.gb[i] : sxk * p.ga[i]);
}

// The Jacobian blocks of row shape function k and column shape functions l0 .. l0 + L - 1 at one
// point, added to J(row0 + i, col0 + (l - l0) D + j). The block (k, l) is w [sx_k sx_l haa + sx_k
// sxx_l hab + sxx_k sx_l hab^T + sxx_k sxx_l hbb] = sx_l X_k + sxx_l Y_k with X_k = w (sx_k haa +
// sxx_k hab^T) and Y_k = w (sx_k hab + sxx_k hbb): two D x D combinations per row block, then two
// products per column block instead of four. w here is the quadrature weight times the Jacobian's
// stiffness weight.
template <int D, int L, bool UsesB, class Matrix>
CATENARY_HD void add_point_jacobian(const HermiteShape& h, double w, const PointDerivatives<D>& p, int k, int l0,
                                    Matrix& J, int row0, int col0) {
  const double sxk = pick(h.sx, k), sxxk = pick(h.sxx, k);
  Mat<D, D> X, Y;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      X(i, j) = w * (UsesB ? sxk * p.haa(i, j) + sxxk * p.hab(j, i) : sxk * p.haa(i, j));
      if constexpr (UsesB) Y(i, j) = w * (sxk * p.hab(i, j) + sxxk * p.hbb(i, j));
    }
  for (int c = 0; c < L; ++c) {
    const double sxl = pick(h.sx, l0 + c), sxxl = pick(h.sxx, l0 + c);
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j)
        J(row0 + i, col0 + c * D + j) += UsesB ? sxl * X(i, j) + sxxl * Y(i, j) : sxl * X(i, j);
  }
}

// Scatter the (a, b) gradient and Hessian at one point into the evaluation's rows: all four column
// blocks of each of its row blocks, or for the whole element (S = 4) the blocks on and above the
// diagonal only, 10 of 16 (the Jacobian is symmetric: evaluate_element mirrors them at its end).
template <int D, int S, bool UsesB = true>
CATENARY_HD_FORCE_INLINE void scatter_point(const HermiteShape& h, double w, const PointDerivatives<D>& p,
                                            ElementEvaluation<D, S>& out, const JacobianWeights* jacobian) {
  for (int r = 0; r < S; ++r) add_point_force<D, UsesB>(h, w, p, out.first + r, &out.force[r * D]);
  if (!jacobian || jacobian->stiffness == 0.0) return;
  const double ws = w * jacobian->stiffness;
  if constexpr (S == 4) {
    add_point_jacobian<D, 4, UsesB>(h, ws, p, 0, 0, out.jacobian, 0, 0);
    add_point_jacobian<D, 3, UsesB>(h, ws, p, 1, 1, out.jacobian, D, D);
    add_point_jacobian<D, 2, UsesB>(h, ws, p, 2, 2, out.jacobian, 2 * D, 2 * D);
    add_point_jacobian<D, 1, UsesB>(h, ws, p, 3, 3, out.jacobian, 3 * D, 3 * D);
  } else {
    for (int r = 0; r < S; ++r) add_point_jacobian<D, 4, UsesB>(h, ws, p, out.first + r, 0, out.jacobian, r * D, 0);
  }
}

// The whole element's Jacobian below its diagonal blocks from the blocks above (scatter_point and
// add_damping_term fill those only).
template <int D>
CATENARY_HD void mirror_lower_blocks(Mat<4 * D, 4 * D>& J) {
  for (int i = D; i < 4 * D; ++i)
    for (int j = 0; j < (i / D) * D; ++j) J(i, j) = J(j, i);
}

// A Kelvin-Voigt term c (g . edot) g of the force, and c g g^T of the damping matrix, in the
// evaluation's rows (g: the full gradient of one strain measure).
template <int D, int S>
CATENARY_HD void add_damping_term(double c, const Vec<4 * D>& g, const double* edot, ElementEvaluation<D, S>& out,
                                  const JacobianWeights* jacobian) {
  constexpr int n = 4 * D;
  double rate = 0.0;
  for (int m = 0; m < n; ++m) rate += g[m] * edot[m];
  const int first_row = out.first * D;
  const double cd = jacobian ? c * jacobian->damping : 0.0;
  for (int r = 0; r < S * D; ++r) {
    const double gr = pick(g.v, first_row + r);
    out.force[r] += c * rate * gr;
    if (cd == 0.0) continue;
    // The whole element's matrix from its diagonal block on (the rest is mirrored).
    for (int m = S == 4 ? (r / D) * D : 0; m < n; ++m) out.jacobian(r, m) += cd * gr * g[m];
  }
}

}  // namespace detail

namespace detail {

// Whether the stress-free reference is curved at a point of reference shape e_ref, and N0 =
// |a0 x b0|^2 (a0 = r0', b0 = r0''): N0 above its round-off. b0 sums terms sxx_k e_k of size up to
// |sxx| |e|, about 1e4 times b0's own size for short elements far from the origin, so a straight
// line's b0 carries an error of eps |sxx| |e| in any direction; and N0 = A0 B0 - C0^2 cancels to
// about eps A0 B0 where b0 is parallel to a0. Below 1e-12 times either, the curvature is round-off
// and taken as zero: a round-off kappa0 would bring in the kappa0 term, singular at zero curvature.
template <int D>
CATENARY_HD bool curved_reference_at(const HermiteShape& h, const Vec<D>& a0, const Vec<D>& b0,
                                     const double* e_ref, double& N0) {
  const double A0 = dot(a0, a0), B0 = dot(b0, b0), C0 = dot(a0, b0);
  N0 = A0 * B0 - C0 * C0;
  double b0_terms = 0.0;  // sum_k |sxx_k| |e_k|_1
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < D; ++i) b0_terms += fabs(h.sxx[k] * e_ref[k * D + i]);
  return N0 > 1e-12 * A0 * (B0 + 1e-12 * b0_terms * b0_terms);
}

}  // namespace detail

// All evaluate_element needs of the stress-free reference, at the element's quadrature points:
// g0 = |r0'|^2, the quadrature weight times the arc length element L |r0'|, the reference
// curvature kappa0 (signed in the plane, |r0' x r0''| / |r0'|^3 in space, the same under both
// strain laws; zero where curved_reference_at says the reference is straight) and 1 / |r0'| at
// the bending points. Constant over a run: the backends compute it once per element, and the
// element pass reads these 21 numbers instead of interpolating the reference (and testing its
// curvature) at every point of every evaluation.
struct ReferenceQuadrature {
  double axial_g0[AxialRule::kPoints], axial_w[AxialRule::kPoints];
  double bending_w[GaussRule5::kPoints], kappa0[GaussRule5::kPoints], bending_inverse_slope[GaussRule5::kPoints];
};

// A ReferenceQuadrature read where its 21 values lie, values[f] in the struct's declaration order
// (the StridedValues of a RecordArray, core/record_array.hpp), each value when the element math
// asks for it: a device thread's copy of the struct, indexed by a run-time point, would sit in
// local memory.
template <class Values>
struct ReferenceQuadratureValues {
  struct Field {
    Values values;
    int first;
    CATENARY_HD double operator[](int g) const { return values[first + g]; }
  };
  static constexpr int A = AxialRule::kPoints, B = GaussRule5::kPoints;
  static_assert(sizeof(ReferenceQuadrature) == (2 * A + 3 * B) * sizeof(double), "these arrays, in this order");
  Field axial_g0, axial_w, bending_w, kappa0, bending_inverse_slope;
  CATENARY_HD explicit ReferenceQuadratureValues(const Values& v)
      : axial_g0{v, 0}, axial_w{v, A}, bending_w{v, 2 * A}, kappa0{v, 2 * A + B},
        bending_inverse_slope{v, 2 * A + 2 * B} {}
};

// What evaluate_element reads the reference quadrature from.
template <class T>
struct IsReferenceQuadrature : std::false_type {};
template <>
struct IsReferenceQuadrature<ReferenceQuadrature> : std::true_type {};
template <class Values>
struct IsReferenceQuadrature<ReferenceQuadratureValues<Values>> : std::true_type {};

template <int D>
CATENARY_HD ReferenceQuadrature reference_quadrature(const ElementProperties& p, const double* e_ref) {
  ReferenceQuadrature r;
  for (int g = 0; g < AxialRule::kPoints; ++g) {
    const HermiteShape h = hermite_shape(AxialRule::point(g), p.length);
    const Vec<D> a0 = detail::interpolate<D>(h.sx, e_ref);
    r.axial_g0[g] = dot(a0, a0);
    r.axial_w[g] = AxialRule::weight(g) * p.length * sqrt(r.axial_g0[g]);
  }
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const Vec<D> a0 = detail::interpolate<D>(h.sx, e_ref), b0 = detail::interpolate<D>(h.sxx, e_ref);
    const double g0 = dot(a0, a0);
    r.bending_w[g] = GaussRule5::weight(g) * p.length * sqrt(g0);
    r.bending_inverse_slope[g] = 1.0 / sqrt(g0);
    double N0;
    r.kappa0[g] = 0.0;
    if (detail::curved_reference_at(h, a0, b0, e_ref, N0)) {
      const double s0 = (D == 2) ? a0[0] * b0[1] - a0[1] * b0[0] : sqrt(N0);
      r.kappa0[g] = s0 / (g0 * sqrt(g0));
    }
  }
  return r;
}

namespace detail {

// The current configuration at one quadrature point: the shape functions, a = r' and b = r''.
template <int D>
struct CurrentPoint {
  HermiteShape h;
  Vec<D> a, b;
};

template <int D, class Rule>
CATENARY_HD CurrentPoint<D> current_point(const ElementProperties& p, const double* e, int g) {
  CurrentPoint<D> r;
  r.h = hermite_shape(Rule::point(g), p.length);
  r.a = interpolate<D>(r.h.sx, e);
  r.b = interpolate<D>(r.h.sxx, e);
  return r;
}

// One quadrature point's share of the energy: its derivatives in (a, b) (with the Hessian where
// asked) and w times its energy density (w: the quadrature weight times the reference arc length
// element).
template <int D>
struct PointEnergy {
  PointDerivatives<D> d;
  double energy;
};

// Axial energy 1/2 EA eps^2 at one point (g0 = |r0'|^2); a function of a = r' alone.
template <int D>
CATENARY_HD_FORCE_INLINE PointEnergy<D> axial_point_energy(const ElementProperties& p, const CurrentPoint<D>& r,
                                                           double g0, double w, bool hessian) {
  const InvariantDerivatives f = axial_density(p.EA, g0, dot(r.a, r.a), reissner_law(p));
  return {invariant_point_derivatives<D, false>(r.a, r.b, f, hessian), w * f.value};
}

// The element's curvature measure at a bending point (inverse_slope = 1 / |r0'| there).
template <int D>
CATENARY_HD_FORCE_INLINE CurvatureMeasure point_curvature_measure(const ElementProperties& p,
                                                                  const CurrentPoint<D>& r, double inverse_slope) {
  return curvature_measure(reissner_law(p), dot(r.a, r.a), inverse_slope);
}

// Bending energy 1/2 EI (kappa - kappa0)^2 at one point, kappa measured by m.
template <int D>
CATENARY_HD_FORCE_INLINE PointEnergy<D> bending_point_energy(const ElementProperties& p, const CurrentPoint<D>& r,
                                                             const CurvatureMeasure& m, double w, double kappa0,
                                                             bool hessian) {
  const InvariantDerivatives f =
      bending_density(p.EI, dot(r.a, r.a), dot(r.b, r.b), dot(r.a, r.b), D == 3 ? kappa0 : 0.0, m, hessian);
  PointEnergy<D> point{invariant_point_derivatives<D>(r.a, r.b, f, hessian),
                       w * (f.value + 0.5 * p.EI * kappa0 * kappa0)};
  if constexpr (D == 2) {
    if (kappa0 != 0.0) {  // - EI kappa0 kappa with the signed kappa
      PointDerivatives<2> kd;
      const double kappa = signed_curvature(r.a, r.b, m, kd, hessian);
      add_scaled(-p.EI * kappa0, kd, point.d, hessian);
      point.energy -= w * p.EI * kappa0 * kappa;
    }
  }
  return point;
}

// The axial point's energy, forces and Jacobian rows, and the Kelvin-Voigt axial damping.
template <int D, int S, bool Damped>
CATENARY_HD_FORCE_INLINE void add_axial_point(const ElementProperties& p, const CurrentPoint<D>& r, double g0,
                                              double w, const double* edot, ElementEvaluation<D, S>& out,
                                              const JacobianWeights* jacobian) {
  constexpr int n = 4 * D;
  const PointEnergy<D> point = axial_point_energy<D>(p, r, g0, w, jacobian != nullptr);
  scatter_point<D, S, false>(r.h, w, point.d, out, jacobian);
  out.energy += point.energy;
  if constexpr (!Damped) return;
  if (!(p.eta > 0.0)) return;
  Vec<n> g_eps;  // d(eps)/de = S_k' a times 1 / g0 (Green-Lagrange) or 1 / sqrt(A g0) (Reissner)
  const double scale = reissner_law(p) ? 1.0 / sqrt(dot(r.a, r.a) * g0) : 1.0 / g0;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < D; ++i) g_eps[k * D + i] = r.h.sx[k] * r.a[i] * scale;
  add_damping_term(p.eta * p.EA * w, g_eps, edot, out, jacobian);
}

// The bending point's energy, forces and Jacobian rows, and the bending damping.
template <int D, int S, bool Damped>
CATENARY_HD_FORCE_INLINE void add_bending_point(const ElementProperties& p, const CurrentPoint<D>& r, double w,
                                                double kappa0, double inverse_slope, const double* edot,
                                                ElementEvaluation<D, S>& out, const JacobianWeights* jacobian) {
  constexpr int n = 4 * D;
  const CurvatureMeasure m = point_curvature_measure(p, r, inverse_slope);
  const PointEnergy<D> point = bending_point_energy<D>(p, r, m, w, kappa0, jacobian != nullptr);
  out.energy += point.energy;
  scatter_point(r.h, w, point.d, out, jacobian);
  if constexpr (!Damped) return;
  if (!(p.eta > 0.0)) return;
  const CurvatureVectorJacobian<D> cj = curvature_vector_jacobian<D>(r.a, r.b, m);
  constexpr int R = CurvatureVectorJacobian<D>::kRows;
  const double c = p.eta * p.EI * w;
  // Unrolled in device code: a rolled loop indexes cj by a run-time row, which put cj's 18
  // doubles in local memory (ptxas: a 144-byte stack in the damped forces pass).
  CATENARY_UNROLL
  for (int row = 0; row < R; ++row) {
    Vec<n> G;  // d(kappa_vec[row])/de
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < D; ++i) G[k * D + i] = r.h.sx[k] * cj.da[row][i] + r.h.sxx[k] * cj.db[row][i];
    add_damping_term(c, G, edot, out, jacobian);
  }
}

}  // namespace detail

// Strain energy, internal (elastic + damping) force and, when want_jacobian, the weighted sum of
// the stiffness d2U/de2 and the damping matrix, in the rows of shape functions first .. first +
// S - 1 (see ElementEvaluation). ref is the stress-free reference at the quadrature points
// (reference_quadrature, or its values where they lie: ReferenceQuadratureValues), e and edot the
// current coordinates and velocities (4*D arrays in node order). Damped = false leaves the
// damping terms out at compile time (edot unused), for kernels over models without damping: fewer
// registers.
//
// Quadrature: bending with five Gauss points; the axial term with the reduced rule AxialRule.
// Full integration of the Green strain energy of cubic Hermite elements locks in bending
// (the quadratic part of the strain cannot vanish pointwise, so spurious membrane tension
// stiffens the element); the reduced rule removes most of it.
template <int D, int S, bool Damped = true, class Quadrature,
          std::enable_if_t<IsReferenceQuadrature<Quadrature>::value, int> = 0>
CATENARY_HD void evaluate_element(const ElementProperties& p, const Quadrature& ref, const double* e,
                                  const double* edot, bool want_jacobian, ElementEvaluation<D, S>& out,
                                  JacobianWeights weights = {}, int first = 0) {
  using Rows = ElementEvaluation<D, S>;
  const JacobianWeights* jacobian = want_jacobian ? &weights : nullptr;
  out.first = first;
  out.force = Vec<Rows::kRows>::zero();
  out.energy = 0.0;
  if (want_jacobian) out.jacobian = Mat<Rows::kRows, Rows::kDofs>::zero();
  for (int g = 0; g < AxialRule::kPoints; ++g)
    detail::add_axial_point<D, S, Damped>(p, detail::current_point<D, AxialRule>(p, e, g), ref.axial_g0[g],
                                          ref.axial_w[g], edot, out, jacobian);
  for (int g = 0; g < GaussRule5::kPoints; ++g)
    detail::add_bending_point<D, S, Damped>(p, detail::current_point<D, GaussRule5>(p, e, g), ref.bending_w[g],
                                            ref.kappa0[g], ref.bending_inverse_slope[g], edot, out, jacobian);
  if constexpr (S == 4)
    if (want_jacobian) detail::mirror_lower_blocks<D>(out.jacobian);
}

// evaluate_element's strain energy alone, by the same point energies in the same order (so the
// same double), without the forces and their scatter: for output frames, whose energies need the
// elements at a state the Newton iteration did not evaluate last (the CPU backend's
// strain_energy_at; a third of a forces pass's time).
template <int D, class Quadrature, std::enable_if_t<IsReferenceQuadrature<Quadrature>::value, int> = 0>
CATENARY_HD double element_strain_energy(const ElementProperties& p, const Quadrature& ref, const double* e) {
  double energy = 0.0;
  for (int g = 0; g < AxialRule::kPoints; ++g)
    energy += detail::axial_point_energy<D>(p, detail::current_point<D, AxialRule>(p, e, g), ref.axial_g0[g],
                                            ref.axial_w[g], false)
                  .energy;
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const detail::CurrentPoint<D> r = detail::current_point<D, GaussRule5>(p, e, g);
    energy += detail::bending_point_energy<D>(p, r, detail::point_curvature_measure(p, r, ref.bending_inverse_slope[g]),
                                              ref.bending_w[g], ref.kappa0[g], false)
                  .energy;
  }
  return energy;
}

// The same from the reference coordinates e_ref (4*D), for single evaluations (tests, the element
// benchmark); the backends keep each element's ReferenceQuadrature.
template <int D, int S, bool Damped = true>
CATENARY_HD void evaluate_element(const ElementProperties& p, const double* e_ref, const double* e,
                                  const double* edot, bool want_jacobian, ElementEvaluation<D, S>& out,
                                  JacobianWeights weights = {}, int first = 0) {
  evaluate_element<D, S, Damped>(p, reference_quadrature<D>(p, e_ref), e, edot, want_jacobian, out, weights, first);
}

// Consistent mass as a 4x4 scalar matrix (the full matrix is this Kronecker I_D):
// M_kl = rhoA int S_k S_l |r0'| dx, over the bending points' weights of the reference quadrature.
CATENARY_HD Mat<4, 4> element_scalar_mass(const ElementProperties& p, const ReferenceQuadrature& ref) {
  Mat<4, 4> M = Mat<4, 4>::zero();
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const double w = ref.bending_w[g] * p.rhoA;
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 4; ++l) M(k, l) += w * h.s[k] * h.s[l];
  }
  return M;
}

// Load vector weights for a force per unit reference length f: F_k = f * int S_k |r0'| dx.
CATENARY_HD Vec<4> element_shape_integrals(const ElementProperties& p, const ReferenceQuadrature& ref) {
  Vec<4> s = Vec<4>::zero();
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    for (int k = 0; k < 4; ++k) s[k] += ref.bending_w[g] * h.s[k];
  }
  return s;
}

}  // namespace catenary
