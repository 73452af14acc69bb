#pragma once
// Element math of the two-node gradient-deficient ANCF element, written once for the planar
// beam (D = 2, Shabana's element: per node r and dr/ds in the plane) and the spatial cable
// (D = 3). Host and device code both call these functions.
//
// Energy per element (x in [0, L] is the element parameter, r0 the stress-free reference):
//   U = int_0^L [ 1/2 EA eps^2 + 1/2 EI (kappa - kappa0)^2 ] |r0'| dx
//   eps   = (r'.r' - r0'.r0') / (2 r0'.r0')      Green-Lagrange axial strain w.r.t. the reference
//   kappa = |r' x r''| / |r'|^3                  exact curvature (signed in the plane)
// The kappa^2 part is evaluated through N = |r'|^2 |r''|^2 - (r'.r'')^2 = |r' x r''|^2, which is
// smooth everywhere; the kappa0 part (curved references only) needs kappa itself.
// Material damping is Kelvin-Voigt in the strain rates: the dissipation function
//   R = eta int [ 1/2 EA epsdot^2 + 1/2 EI |kappadot_vec|^2 ] |r0'| dx,  kappa_vec = r' x r'' / |r'|^3,
// gives the damping force D(e) edot with D = eta int (EA g_eps g_eps^T + EI G_k^T G_k) |r0'| dx.
#include <math.h>

#include "catenary/core/small_matrix.hpp"
#include "catenary/elements/hermite_shape.hpp"

namespace catenary {

// Constant properties of one element.
struct ElementProperties {
  double length;  // element parameter length L
  double EA;      // axial stiffness (N)
  double EI;      // bending stiffness (N m^2)
  double rhoA;    // mass per reference length (kg/m)
  double eta;     // Kelvin-Voigt damping time (s); 0 for none
};

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

// Gradient and Hessian of a scalar function of z = (a, b) = (r', r''), stored as D-blocks.
template <int D>
struct PointDerivatives {
  Vec<D> ga, gb;
  Mat<D, D> haa, hab, hbb;  // hba = hab^T
  CATENARY_HD static PointDerivatives zero() {
    PointDerivatives p;
    p.ga = Vec<D>::zero();
    p.gb = Vec<D>::zero();
    p.haa = Mat<D, D>::zero();
    p.hab = Mat<D, D>::zero();
    p.hbb = Mat<D, D>::zero();
    return p;
  }
};

// The scalar s with kappa = s / |a|^3: the signed cross product in 2D, |a x b| in 3D, and its
// first and second derivatives.
template <int D>
struct CrossMagnitude;

template <>
struct CrossMagnitude<2> {
  // s alone (N = |a x b|^2, unused in 2D); eval adds its derivatives.
  CATENARY_HD static double value(const Vec<2>& a, const Vec<2>& b, double) { return a[0] * b[1] - a[1] * b[0]; }
  CATENARY_HD static void eval(const Vec<2>& a, const Vec<2>& b, double N, double& s,
                               PointDerivatives<2>& d) {
    s = value(a, b, N);
    d = PointDerivatives<2>::zero();
    d.ga[0] = b[1];
    d.ga[1] = -b[0];
    d.gb[0] = -a[1];
    d.gb[1] = a[0];
    d.hab(0, 1) = 1.0;
    d.hab(1, 0) = -1.0;
  }
};

template <>
struct CrossMagnitude<3> {
  CATENARY_HD static double value(const Vec<3>&, const Vec<3>&, double N) { return sqrt(fmax(N, 1e-300)); }
  CATENARY_HD static void eval(const Vec<3>& a, const Vec<3>& b, double N, double& s,
                               PointDerivatives<3>& d) {
    // |a x b| is not differentiable at zero curvature; it is only needed for curved references,
    // where kappa stays near kappa0 != 0. The floor keeps the value finite if it ever passes 0.
    const double A = dot(a, a), B = dot(b, b), C = dot(a, b);
    s = value(a, b, N);
    d = PointDerivatives<3>::zero();
    Vec<3> Na, Nb;
    for (int i = 0; i < 3; ++i) {
      Na[i] = 2.0 * B * a[i] - 2.0 * C * b[i];
      Nb[i] = 2.0 * A * b[i] - 2.0 * C * a[i];
    }
    const double inv2s = 0.5 / s, inv4s3 = 0.25 / (s * s * s);
    for (int i = 0; i < 3; ++i) {
      d.ga[i] = Na[i] * inv2s;
      d.gb[i] = Nb[i] * inv2s;
    }
    // N's second derivatives: Naa = 2B I - 2 b b^T, Nab = 4 a b^T - 2 b a^T - 2C I,
    // Nbb = 2A I - 2 a a^T.
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double I = (i == j) ? 1.0 : 0.0;
        const double naa = 2.0 * B * I - 2.0 * b[i] * b[j];
        const double nab = 4.0 * a[i] * b[j] - 2.0 * b[i] * a[j] - 2.0 * C * I;
        const double nbb = 2.0 * A * I - 2.0 * a[i] * a[j];
        d.haa(i, j) = naa * inv2s - Na[i] * Na[j] * inv4s3;
        d.hab(i, j) = nab * inv2s - Na[i] * Nb[j] * inv4s3;
        d.hbb(i, j) = nbb * inv2s - Nb[i] * Nb[j] * inv4s3;
      }
  }
};

// kappa^2 = N / A^3 with N = A B - C^2: gradient and (with hessian) Hessian in (a, b).
template <int D>
CATENARY_HD double curvature_squared(const Vec<D>& a, const Vec<D>& b, PointDerivatives<D>* d, bool hessian) {
  const double A = dot(a, a), B = dot(b, b), C = dot(a, b);
  const double N = A * B - C * C;
  const double P = 1.0 / (A * A * A);
  const double k2 = N * P;
  if (!d) return k2;
  Vec<D> Na, Nb, Pa;
  for (int i = 0; i < D; ++i) {
    Na[i] = 2.0 * B * a[i] - 2.0 * C * b[i];
    Nb[i] = 2.0 * A * b[i] - 2.0 * C * a[i];
    Pa[i] = -6.0 * P / A * a[i];
  }
  for (int i = 0; i < D; ++i) {
    d->ga[i] = P * Na[i] + N * Pa[i];
    d->gb[i] = P * Nb[i];
  }
  if (!hessian) return k2;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      const double I = (i == j) ? 1.0 : 0.0;
      const double naa = 2.0 * B * I - 2.0 * b[i] * b[j];
      const double nab = 4.0 * a[i] * b[j] - 2.0 * b[i] * a[j] - 2.0 * C * I;
      const double nbb = 2.0 * A * I - 2.0 * a[i] * a[j];
      const double paa = -6.0 * P / A * I + 48.0 * P / (A * A) * a[i] * a[j];
      d->haa(i, j) = P * naa + Na[i] * Pa[j] + Pa[i] * Na[j] + N * paa;
      d->hab(i, j) = P * nab + Pa[i] * Nb[j];
      d->hbb(i, j) = P * nbb;
    }
  return k2;
}

// kappa = s / A^{3/2}: gradient and Hessian in (a, b).
template <int D>
CATENARY_HD double curvature(const Vec<D>& a, const Vec<D>& b, PointDerivatives<D>& d) {
  const double A = dot(a, a), B = dot(b, b), C = dot(a, b);
  double s;
  PointDerivatives<D> ds;
  CrossMagnitude<D>::eval(a, b, A * B - C * C, s, ds);
  const double Q = 1.0 / (A * sqrt(A));
  Vec<D> Qa;
  for (int i = 0; i < D; ++i) Qa[i] = -3.0 * Q / A * a[i];
  for (int i = 0; i < D; ++i) {
    d.ga[i] = ds.ga[i] * Q + s * Qa[i];
    d.gb[i] = ds.gb[i] * Q;
  }
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      const double I = (i == j) ? 1.0 : 0.0;
      const double qaa = -3.0 * Q / A * I + 15.0 * Q / (A * A) * a[i] * a[j];
      d.haa(i, j) = ds.haa(i, j) * Q + ds.ga[i] * Qa[j] + Qa[i] * ds.ga[j] + s * qaa;
      d.hab(i, j) = ds.hab(i, j) * Q + Qa[i] * ds.gb[j];
      d.hbb(i, j) = ds.hbb(i, j) * Q;
    }
  return s * Q;
}

// Rows of d(kappa_vec)/d(a, b), kappa_vec = a x b / |a|^3 (one component in 2D, three in 3D).
template <int D>
struct CurvatureVectorJacobian {
  static constexpr int kRows = (D == 2) ? 1 : 3;
  Vec<D> da[kRows];
  Vec<D> db[kRows];
};

template <int D>
CATENARY_HD CurvatureVectorJacobian<D> curvature_vector_jacobian(const Vec<D>& a, const Vec<D>& b) {
  CurvatureVectorJacobian<D> J;
  const double A = dot(a, a);
  const double Q = 1.0 / (A * sqrt(A));
  if constexpr (D == 2) {
    const double c = a[0] * b[1] - a[1] * b[0];
    J.da[0][0] = b[1] * Q - 3.0 * c * Q / A * a[0];
    J.da[0][1] = -b[0] * Q - 3.0 * c * Q / A * a[1];
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
        J.da[r][j] = -bx[r][j] * Q - 3.0 * c[r] * Q / A * a[j];
        J.db[r][j] = ax[r][j] * Q;
      }
  }
  return J;
}

// Scatter the (a, b) gradient and Hessian at one point into the evaluation's rows: a = sum sx_k
// e_k, b = sum sxx_k e_k. The Jacobian block of row shape function k and column shape function l
// is w [sx_k sx_l haa + sx_k sxx_l hab + sxx_k sx_l hab^T + sxx_k sxx_l hbb] = sx_l X_k + sxx_l Y_k
// with X_k = w (sx_k haa + sxx_k hab^T) and Y_k = w (sx_k hab + sxx_k hbb): two D x D
// combinations per row block, then two products per column block instead of four. UsesB = false
// for a function of a = r' alone (the axial term: gb, hab and hbb are zero and skipped).
template <int D, int S, bool UsesB = true>
CATENARY_HD void scatter_point(const HermiteShape& h, double w, const PointDerivatives<D>& p,
                               ElementEvaluation<D, S>& out, const JacobianWeights* jacobian) {
  for (int r = 0; r < S; ++r) {
    const int k = out.first + r;
    const double sxk = pick(h.sx, k), sxxk = pick(h.sxx, k);
    for (int i = 0; i < D; ++i)
      out.force[r * D + i] += w * (UsesB ? sxk * p.ga[i] + sxxk * p.gb[i] : sxk * p.ga[i]);
  }
  if (!jacobian || jacobian->stiffness == 0.0) return;
  const double wk = w * jacobian->stiffness;
  for (int r = 0; r < S; ++r) {
    const int k = out.first + r;
    const double sxk = pick(h.sx, k), sxxk = pick(h.sxx, k);
    Mat<D, D> X, Y;
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) {
        X(i, j) = wk * (UsesB ? sxk * p.haa(i, j) + sxxk * p.hab(j, i) : sxk * p.haa(i, j));
        if constexpr (UsesB) Y(i, j) = wk * (sxk * p.hab(i, j) + sxxk * p.hbb(i, j));
      }
    for (int l = 0; l < 4; ++l)
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j)
          out.jacobian(r * D + i, l * D + j) += UsesB ? h.sx[l] * X(i, j) + h.sxx[l] * Y(i, j) : h.sx[l] * X(i, j);
  }
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
    if (cd != 0.0)
      for (int m = 0; m < n; ++m) out.jacobian(r, m) += cd * gr * g[m];
  }
}

}  // namespace detail

namespace detail {

// Reference geometry at one quadrature point: a0 = r0', b0 = r0'', g0 = |r0'|^2 and the
// quadrature weight times the reference arc length element.
template <int D>
struct ReferencePoint {
  HermiteShape h;
  Vec<D> a, b, a0, b0;
  double g0, w;
};

template <int D, class Rule>
CATENARY_HD ReferencePoint<D> reference_point(const ElementProperties& p, const double* e_ref,
                                              const double* e, int g) {
  ReferencePoint<D> r;
  r.h = hermite_shape(Rule::point(g), p.length);
  r.a = interpolate<D>(r.h.sx, e);
  r.b = interpolate<D>(r.h.sxx, e);
  r.a0 = interpolate<D>(r.h.sx, e_ref);
  r.b0 = interpolate<D>(r.h.sxx, e_ref);
  r.g0 = dot(r.a0, r.a0);
  r.w = Rule::weight(g) * p.length * sqrt(r.g0);
  return r;
}

// Axial energy 1/2 EA eps^2 at one point, and the Kelvin-Voigt axial damping.
template <int D, int S, bool Damped>
CATENARY_HD void add_axial_point(const ElementProperties& p, const ReferencePoint<D>& r,
                                 const double* edot, ElementEvaluation<D, S>& out,
                                 const JacobianWeights* jacobian) {
  constexpr int n = 4 * D;
  const double g0 = r.g0;
  const double eps = (dot(r.a, r.a) - g0) / (2.0 * g0);
  PointDerivatives<D> axial = PointDerivatives<D>::zero();
  for (int i = 0; i < D; ++i) axial.ga[i] = p.EA * eps * r.a[i] / g0;
  if (jacobian)
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j)
        axial.haa(i, j) = p.EA * (r.a[i] * r.a[j] / (g0 * g0) + ((i == j) ? eps / g0 : 0.0));
  scatter_point<D, S, false>(r.h, r.w, axial, out, jacobian);
  out.energy += r.w * 0.5 * p.EA * eps * eps;
  if constexpr (!Damped) return;
  if (!(p.eta > 0.0)) return;
  Vec<n> g_eps;  // d(eps)/de
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < D; ++i) g_eps[k * D + i] = r.h.sx[k] * r.a[i] / g0;
  add_damping_term(p.eta * p.EA * r.w, g_eps, edot, out, jacobian);
}

// Whether the stress-free reference is curved at a point of reference shape e_ref, and N0 =
// |a0 x b0|^2 (a0 = r0', b0 = r0''): N0 above its round-off. b0 sums terms sxx_k e_k of size up to
// |sxx| |e|, about 1e4 times b0's own size for short elements far from the origin, so a straight
// line's b0 carries an error of eps |sxx| |e| in any direction; and N0 = A0 B0 - C0^2 cancels to
// about eps A0 B0 where b0 is parallel to a0. Below 1e-12 times either, the curvature is round-off.
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

// Bending energy 1/2 EI (kappa - kappa0)^2 at one point, and the bending damping. Curved = false
// compiles the kappa0 term out (see evaluate_element).
template <int D, int S, bool Damped, bool Curved>
CATENARY_HD void add_bending_point(const ElementProperties& p, const ReferencePoint<D>& r, const double* e_ref,
                                   const double* edot, ElementEvaluation<D, S>& out,
                                   const JacobianWeights* jacobian) {
  constexpr int n = 4 * D;
  PointDerivatives<D> bend = PointDerivatives<D>::zero();
  const double k2 = curvature_squared<D>(r.a, r.b, &bend, jacobian != nullptr);
  scatter_point(r.h, 0.5 * p.EI * r.w, bend, out, jacobian);
  double N0;
  if (Curved && curved_reference_at(r.h, r.a0, r.b0, e_ref, N0)) {  // - EI kappa0 kappa
    PointDerivatives<D> kd;
    const double kappa0 = CrossMagnitude<D>::value(r.a0, r.b0, N0) / (r.g0 * sqrt(r.g0));
    const double kappa = curvature<D>(r.a, r.b, kd);
    scatter_point(r.h, -p.EI * kappa0 * r.w, kd, out, jacobian);
    out.energy += r.w * 0.5 * p.EI * (k2 - 2.0 * kappa0 * kappa + kappa0 * kappa0);
  } else {
    out.energy += r.w * 0.5 * p.EI * k2;
  }
  if constexpr (!Damped) return;
  if (!(p.eta > 0.0)) return;
  const CurvatureVectorJacobian<D> cj = curvature_vector_jacobian<D>(r.a, r.b);
  constexpr int R = CurvatureVectorJacobian<D>::kRows;
  const double c = p.eta * p.EI * r.w;
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
// S - 1 (see ElementEvaluation). e_ref is the stress-free reference, e and edot the current
// coordinates and velocities; all are 4*D arrays in node order. Damped = false leaves the
// damping terms out at compile time (edot unused), for kernels over models without damping:
// fewer registers. Likewise Curved = false leaves out the term of a curved stress-free shape
// (kappa0), for elements whose reference_is_curved() is false: in the CUDA kernel with the
// Jacobian that term alone pushes the thread past 255 registers into spills.
//
// Quadrature: bending with five Gauss points; the axial term with the reduced rule AxialRule.
// Full integration of the Green strain energy of cubic Hermite elements locks in bending
// (the quadratic part of the strain cannot vanish pointwise, so spurious membrane tension
// stiffens the element); the reduced rule removes most of it.
template <int D, int S, bool Damped = true, bool Curved = true>
CATENARY_HD void evaluate_element(const ElementProperties& p, const double* e_ref, const double* e,
                                  const double* edot, bool want_jacobian, ElementEvaluation<D, S>& out,
                                  JacobianWeights weights = {}, int first = 0) {
  using Rows = ElementEvaluation<D, S>;
  const JacobianWeights* jacobian = want_jacobian ? &weights : nullptr;
  out.first = first;
  out.force = Vec<Rows::kRows>::zero();
  out.energy = 0.0;
  if (want_jacobian) out.jacobian = Mat<Rows::kRows, Rows::kDofs>::zero();
  for (int g = 0; g < AxialRule::kPoints; ++g)
    detail::add_axial_point<D, S, Damped>(p, detail::reference_point<D, AxialRule>(p, e_ref, e, g), edot, out,
                                          jacobian);
  for (int g = 0; g < GaussRule5::kPoints; ++g)
    detail::add_bending_point<D, S, Damped, Curved>(p, detail::reference_point<D, GaussRule5>(p, e_ref, e, g), e_ref,
                                                    edot, out, jacobian);
}

// Whether evaluate_element needs its curved-reference term for this element (Curved = true): the
// reference is curved at one of its bending points, by the test the term itself uses.
template <int D>
CATENARY_HD bool reference_is_curved(const ElementProperties& p, const double* e_ref) {
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    double N0;
    if (detail::curved_reference_at(h, detail::interpolate<D>(h.sx, e_ref), detail::interpolate<D>(h.sxx, e_ref),
                                    e_ref, N0))
      return true;
  }
  return false;
}

// Consistent mass as a 4x4 scalar matrix (the full matrix is this Kronecker I_D):
// M_kl = rhoA int S_k S_l |r0'| dx.
template <int D>
CATENARY_HD Mat<4, 4> element_scalar_mass(const ElementProperties& p, const double* e_ref) {
  Mat<4, 4> M = Mat<4, 4>::zero();
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const Vec<D> a0 = detail::interpolate<D>(h.sx, e_ref);
    const double w = GaussRule5::weight(g) * p.length * sqrt(dot(a0, a0)) * p.rhoA;
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 4; ++l) M(k, l) += w * h.s[k] * h.s[l];
  }
  return M;
}

// Load vector weights for a force per unit reference length f: F_k = f * int S_k |r0'| dx.
template <int D>
CATENARY_HD Vec<4> element_shape_integrals(const ElementProperties& p, const double* e_ref) {
  Vec<4> s = Vec<4>::zero();
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const Vec<D> a0 = detail::interpolate<D>(h.sx, e_ref);
    const double w = GaussRule5::weight(g) * p.length * sqrt(dot(a0, a0));
    for (int k = 0; k < 4; ++k) s[k] += w * h.s[k];
  }
  return s;
}

}  // namespace catenary
