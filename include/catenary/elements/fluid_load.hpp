#pragma once
// The water's loads on a cable's or beam's element, per unit reference length, host and device
// code: buoyancy, Morison drag, the fluid inertia and the added mass, in the element's own rows
// with their analytic Jacobian (fluid_kinematics.hpp for the water).
//
// With A = pi d^2 / 4 the displaced area, t = r' / |r'| the tangent, P = I - t t^T, u_r = u - v
// the water's velocity relative to the centreline (u_r = s t + u_n, s = t.u_r) and a_w the water's
// acceleration:
//   buoyancy        f_b = -rho_w A g                        on the wet part of the element,
//   drag            f_d = 1/2 rho_w C_dn d |u_n| u_n + 1/2 rho_w C_dt pi d |s| s t,
//   fluid inertia   f_i = rho_w A a_w + m_a a_w             (Froude-Krylov and its added mass),
//   added mass      -m_a r'',  m_a = rho_w A (C_an P + C_at t t^T),
// the tangential drag on the wetted perimeter pi d, as lumped-mass mooring codes (MoorDyn) take it.
// The added mass is a mass that turns with the line: it joins the mass term M (q - origin) of a
// pass (ForceTerms, assembly/backend.hpp) as M_a(q) (q - origin), with c_m M_a + d(M_a w)/dq in
// the Newton matrix (w = q - origin held fixed, as the rigid bodies' M(q) has it), and the mass
// products (Backend::mass_product with q). Drag, inertia and added mass act at the five bending
// quadrature points that are below the surface; buoyancy is integrated over the wet part of the
// element exactly: the element is cut where its centreline crosses the instantaneous surface
// (eta, with the waves; an element whose Bezier hull lies below the lowest trough or above the
// highest crest is not sampled), found by sampling the height above it at kSurfaceSamples + 1 points and
// refining each sign change, and each wet interval has its own five-point rule, with the
// reference stretch |r0'| between the element's points the quartic through its five values
// (exact for straight references). The cut points move with the coordinates; their motion is in
// the Jacobian. A crossing and its return within one sample interval (1 / kSurfaceSamples of the
// element) are not seen.
//
// The loads enter as internal forces fp = -(f_b + f_d + f_i) (line_load.hpp), with
//   dfp/dv = G,  dfp/dr = -(G du/dr + (rho_w A I + m_a) da_w/dr),
//   dfp/da = -(df_d/dt + d(m_a a_w)/dt) P / |r'|,
//   G = df_d/du_r = 1/2 rho_w d [C_dn (|u_n| P + u_n u_n^T / |u_n|) + 2 C_dt pi |s| t t^T],
//   df_d/dt = 1/2 rho_w d [-C_dn (|u_n| I + u_n u_n^T / |u_n|) (t u_r^T + s I) + C_dt pi |s| (2 t u_r^T + s I)],
//   d(m_a x)/dt = rho_w A (C_at - C_an) ((t.x) I + t x^T)   (m_a x = rho_w A (C_an x + (C_at - C_an) t (t.x))).
// None of these loads has a potential: none adds to the strain energy.
#include <math.h>

#include "catenary/core/small_matrix.hpp"
#include "catenary/elements/fluid_kinematics.hpp"
#include "catenary/elements/gradient_deficient_math.hpp"
#include "catenary/elements/line_load.hpp"

namespace catenary {

// The added mass's share of a pass's mass term (ForceTerms: mass_scale M (q - origin)): w, the
// element's 4D values of q - origin (null: no mass term); scale, the term's mass_scale; weight, the
// Newton matrix's c_m; rows, where the element's rows of M_a w go (unscaled; null: none).
struct AddedMassTerm {
  const double* w = nullptr;
  double scale = 0.0, weight = 0.0;
  double* rows = nullptr;
};

// Whether f has added mass.
CATENARY_HD bool has_added_mass(const FluidLoad& f) {
  return f.added_mass_normal > 0.0 || f.added_mass_tangential > 0.0;
}

// Whether the loads of f read velocities (drag).
CATENARY_HD bool fluid_reads_velocity(const FluidLoad& f) { return f.drag_normal > 0.0 || f.drag_tangential > 0.0; }

namespace detail {

constexpr int kSurfaceSamples = 8;

// The height of the centreline above the instantaneous surface at xi, with its derivative in x
// and the gradient of the height in r (e_up - d eta / d x_h).
template <int D>
struct SurfaceHeight {
  double value, slope;
  Vec<D> gradient;
};

template <int D>
CATENARY_HD SurfaceHeight<D> surface_height(const FluidLoad& f, const double* values, double t,
                                            const ElementProperties& p, const double* e, double xi) {
  const HermiteShape h = hermite_shape(xi, p.length);
  const Vec<D> r = interpolate<D>(h.s, e), a = interpolate<D>(h.sx, e);
  Vec<D> eta_slope;
  const double eta = wave_elevation<D>(f, values, r, t, eta_slope);
  SurfaceHeight<D> s;
  s.value = r[D - 1] - f.surface - eta;
  for (int i = 0; i < D; ++i) s.gradient[i] = (i == D - 1 ? 1.0 : 0.0) - eta_slope[i];
  s.slope = dot(s.gradient, a);
  return s;
}

// The surface crossing in [lo, hi] (values of the height h_lo, h_hi of opposite signs): the
// Illinois variant of the false position method, to 1e-13 of the element.
template <int D>
CATENARY_HD double surface_crossing(const FluidLoad& f, const double* values, double t, const ElementProperties& p,
                                    const double* e, double lo, double hi, double h_lo, double h_hi) {
  int side = 0;
  double x = lo;
  for (int it = 0; it < 100 && hi - lo > 1e-13; ++it) {
    x = (lo * h_hi - hi * h_lo) / (h_hi - h_lo);
    if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
    const double hx = surface_height<D>(f, values, t, p, e, x).value;
    if (hx == 0.0) return x;
    if ((hx < 0.0) == (h_lo < 0.0)) {
      lo = x;
      h_lo = hx;
      if (side == -1) h_hi *= 0.5;
      side = -1;
    } else {
      hi = x;
      h_hi = hx;
      if (side == 1) h_lo *= 0.5;
      side = 1;
    }
  }
  return x;
}

// |r0'| at xi: the quartic through its values at the five bending points.
template <class Quadrature>
CATENARY_HD double reference_stretch(const Quadrature& ref, double xi) {
  double sum = 0.0;
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    double l = 1.0;
    for (int m = 0; m < GaussRule5::kPoints; ++m)
      if (m != g) l *= (xi - GaussRule5::point(m)) / (GaussRule5::point(g) - GaussRule5::point(m));
    sum += l / ref.bending_inverse_slope[g];
  }
  return sum;
}

// Buoyancy f_b on the wet interval [x0, x1] of the element (in xi), with the motion of its ends
// that are surface crossings (moving0, moving1) in the Jacobian.
template <int D, int S, class Quadrature>
CATENARY_HD void add_wet_interval(const FluidLoad& f, const FluidLoadList& list, const ElementProperties& p,
                                  const Quadrature& ref, const double* e, const Vec<D>& fb, double x0, double x1,
                                  bool moving0, bool moving1, bool want_jacobian, const JacobianWeights& weights,
                                  ElementEvaluation<D, S>& out) {
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const double xi = x0 + (x1 - x0) * GaussRule5::point(g);
    const HermiteShape h = hermite_shape(xi, p.length);
    const double w = GaussRule5::weight(g) * (x1 - x0) * p.length * reference_stretch(ref, xi);
    for (int k = 0; k < S; ++k)
      for (int i = 0; i < D; ++i) out.force[k * D + i] -= w * h.s[out.first + k] * fb[i];
  }
  if (!want_jacobian) return;
  // An end xi* with height H(xi*) = 0 moves by d xi* / dq_lj = -S_l grad_j / (L H_x): the force
  // F_k = int fb S_k L |r0'| d xi gains sigma fb S_k(xi*) L |r0'| d xi* / dq (sigma = +1 at the
  // upper end, -1 at the lower), so the internal rows -F_k gain sigma fb S_k S_l |r0'| grad_j / H_x.
  for (int end = 0; end < 2; ++end) {
    if (!(end == 0 ? moving0 : moving1)) continue;
    const double xi = end == 0 ? x0 : x1, sigma = end == 0 ? -1.0 : 1.0;
    const SurfaceHeight<D> s = surface_height<D>(f, list.values, list.time, p, e, xi);
    if (!(fabs(s.slope) > 1e-12)) continue;  // the centreline along the surface: no defined cut
    const HermiteShape h = hermite_shape(xi, p.length);
    const double c = weights.stiffness * sigma * reference_stretch(ref, xi) / s.slope;
    for (int k = 0; k < S; ++k)
      for (int l = 0; l < 4; ++l) {
        const double ckl = c * h.s[out.first + k] * h.s[l];
        for (int i = 0; i < D; ++i)
          for (int j = 0; j < D; ++j) out.jacobian(k * D + i, l * D + j) += ckl * fb[i] * s.gradient[j];
      }
  }
}

// Buoyancy on the wet part of the element (see the top of this file).
template <int D, int S, class Quadrature>
CATENARY_HD void add_buoyancy(const FluidLoad& f, const FluidLoadList& list, const ElementProperties& p,
                              const Quadrature& ref, const double* e, bool want_jacobian,
                              const JacobianWeights& weights, ElementEvaluation<D, S>& out) {
  const double area = 0.25 * M_PI * f.diameter * f.diameter;
  Vec<D> fb;
  bool any = false;
  for (int i = 0; i < D; ++i) {
    fb[i] = -f.density * area * list.gravity[i];
    any = any || fb[i] != 0.0;
  }
  if (!any) return;
  // The element's heights lie within the hull of its Bezier control values z_A, z_A + L z'_A / 3,
  // z_B - L z'_B / 3, z_B; the surface within wave_reach of its mean level. An element below the
  // lowest trough is wet all along, one above the highest crest dry: no cut to look for.
  const double third = p.length / 3.0;
  const double controls[4] = {e[D - 1], e[D - 1] + third * e[2 * D - 1], e[3 * D - 1] - third * e[4 * D - 1],
                              e[3 * D - 1]};
  double lowest = controls[0], highest = controls[0];
  for (double z : controls) {
    lowest = z < lowest ? z : lowest;
    highest = z > highest ? z : highest;
  }
  if (lowest > f.surface + f.wave_reach) return;
  if (highest < f.surface - f.wave_reach) {
    add_wet_interval<D, S>(f, list, p, ref, e, fb, 0.0, 1.0, false, false, want_jacobian, weights, out);
    return;
  }
  double x_prev = 0.0, h_prev = surface_height<D>(f, list.values, list.time, p, e, 0.0).value;
  double wet_from = h_prev < 0.0 ? 0.0 : -1.0;  // start of the wet interval being walked; -1: dry
  bool from_crossing = false;
  for (int j = 1; j <= kSurfaceSamples; ++j) {
    const double x = double(j) / kSurfaceSamples;
    const double hx = surface_height<D>(f, list.values, list.time, p, e, x).value;
    if ((hx < 0.0) != (h_prev < 0.0)) {
      const double cut = surface_crossing<D>(f, list.values, list.time, p, e, x_prev, x, h_prev, hx);
      if (wet_from >= 0.0) {
        add_wet_interval<D, S>(f, list, p, ref, e, fb, wet_from, cut, from_crossing, true, want_jacobian, weights,
                               out);
        wet_from = -1.0;
      } else {
        wet_from = cut;
        from_crossing = true;
      }
    }
    x_prev = x;
    h_prev = hx;
  }
  if (wet_from >= 0.0)
    add_wet_interval<D, S>(f, list, p, ref, e, fb, wet_from, 1.0, from_crossing, false, want_jacobian, weights, out);
}

// m_a x at a point of tangent t (slope a, 1 / |a| = inv) and, where d_t is set, d(m_a x)/dt.
template <int D>
CATENARY_HD Vec<D> added_mass_times(const FluidLoad& f, const Vec<D>& t, const Vec<D>& x, Mat<D, D>* d_t) {
  const double mass = f.density * 0.25 * M_PI * f.diameter * f.diameter;
  const double cn = mass * f.added_mass_normal, ct = mass * f.added_mass_tangential, tx = dot(t, x);
  Vec<D> out;
  for (int i = 0; i < D; ++i) out[i] = cn * x[i] + (ct - cn) * t[i] * tx;
  if (d_t)
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) (*d_t)(i, j) = (ct - cn) * ((i == j ? tx : 0.0) + t[i] * x[j]);
  return out;
}

// d/da of a function of t = a / |a| from its d/dt: (d/dt) P / |a|.
template <int D>
CATENARY_HD Mat<D, D> through_tangent(const Mat<D, D>& d_t, const Vec<D>& t, double inv) {
  Mat<D, D> out;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      double sum = 0.0;
      for (int m = 0; m < D; ++m) sum += d_t(i, m) * ((m == j ? 1.0 : 0.0) - t[m] * t[j]);
      out(i, j) = sum * inv;
    }
  return out;
}

// Drag and fluid inertia at one wet point (see the top of this file).
template <int D>
CATENARY_HD void morison_point(const FluidLoad& f, const FluidPoint<D>& water, const Vec<D>& a, const Vec<D>& v,
                               bool jacobian, LinePointLoad<D>& out) {
  const double area = 0.25 * M_PI * f.diameter * f.diameter;
  const double cn = 0.5 * f.density * f.diameter * f.drag_normal;
  const double ct = 0.5 * f.density * M_PI * f.diameter * f.drag_tangential;
  const double inv = 1.0 / sqrt(dot(a, a));
  Vec<D> t, ur, un;
  for (int i = 0; i < D; ++i) {
    t[i] = a[i] * inv;
    ur[i] = water.velocity[i] - v[i];
  }
  const double s = dot(t, ur);
  for (int i = 0; i < D; ++i) un[i] = ur[i] - s * t[i];
  const double n = sqrt(dot(un, un)), as = fabs(s);
  Mat<D, D> dma_dt;
  const Vec<D> ma = added_mass_times<D>(f, t, water.acceleration, jacobian ? &dma_dt : nullptr);
  for (int i = 0; i < D; ++i)
    out.force[i] = -(cn * n * un[i] + ct * as * s * t[i] + f.density * area * water.acceleration[i] + ma[i]);
  if (!jacobian) return;
  // N = |u_n| I + u_n u_n^T / |u_n| (0 where u_n = 0).
  Mat<D, D> N, G, dfd_dt;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) N(i, j) = (i == j ? n : 0.0) + (n > 0.0 ? un[i] * un[j] / n : 0.0);
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      double NP = N(i, j);  // N P
      for (int m = 0; m < D; ++m) NP -= N(i, m) * t[m] * t[j];
      G(i, j) = cn * NP + 2.0 * ct * as * t[i] * t[j];
      double Nt = 0.0;  // N (t u_r^T + s I), column j
      for (int m = 0; m < D; ++m) Nt += N(i, m) * t[m] * ur[j];
      Nt += N(i, j) * s;
      dfd_dt(i, j) = -cn * Nt + ct * as * (2.0 * t[i] * ur[j] + (i == j ? s : 0.0)) + dma_dt(i, j);
    }
  const Mat<D, D> d_a = through_tangent<D>(dfd_dt, t, inv);
  for (int j = 0; j < D; ++j) {
    Vec<D> column;  // the acceleration gradient's column j
    for (int m = 0; m < D; ++m) column[m] = water.acceleration_gradient(m, j);
    const Vec<D> ma_column = added_mass_times<D>(f, t, column, nullptr);
    for (int i = 0; i < D; ++i) {
      double du = 0.0;
      for (int m = 0; m < D; ++m) du += G(i, m) * water.velocity_gradient(m, j);
      out.d_v(i, j) = G(i, j);
      out.d_r(i, j) = -(du + f.density * area * column[i] + ma_column[i]);
      out.d_a(i, j) = -d_a(i, j);
    }
  }
}

// The added mass's share of a pass's mass term at one wet point (weight w, shapes h, slope a):
// rows += w S_k m_a x (x the mass term's vector there) and, with the Jacobian, the blocks
// w S_k (c_m S_l m_a + mass_scale S_l' d(m_a x)/da).
template <int D, int S>
CATENARY_HD void add_added_mass_point(const FluidLoad& f, const HermiteShape& h, double w, const Vec<D>& a,
                                      const AddedMassTerm& term, bool want_jacobian, ElementEvaluation<D, S>& out) {
  const double inv = 1.0 / sqrt(dot(a, a));
  Vec<D> t;
  for (int i = 0; i < D; ++i) t[i] = a[i] * inv;
  Vec<D> x = Vec<D>::zero();
  if (term.w) x = interpolate<D>(h.s, term.w);
  Mat<D, D> dma_dt;
  const Vec<D> mx = added_mass_times<D>(f, t, x, want_jacobian && term.w ? &dma_dt : nullptr);
  if (term.rows)
    for (int k = 0; k < S; ++k)
      for (int i = 0; i < D; ++i) term.rows[k * D + i] += w * h.s[out.first + k] * mx[i];
  if (!want_jacobian) return;
  Mat<D, D> M, d_a = Mat<D, D>::zero();  // m_a, by its columns
  for (int j = 0; j < D; ++j) {
    Vec<D> unit = Vec<D>::zero();
    unit[j] = 1.0;
    const Vec<D> column = added_mass_times<D>(f, t, unit, nullptr);
    for (int i = 0; i < D; ++i) M(i, j) = column[i];
  }
  if (term.w) d_a = through_tangent<D>(dma_dt, t, inv);
  for (int k = 0; k < S; ++k)
    for (int l = 0; l < 4; ++l) {
      const double cm = w * h.s[out.first + k] * term.weight * h.s[l];
      const double ca = w * h.s[out.first + k] * term.scale * h.sx[l];
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j) out.jacobian(k * D + i, l * D + j) += cm * M(i, j) + ca * d_a(i, j);
    }
}

}  // namespace detail

// Adds the water's loads on element e (p.fluid; none where negative) to an evaluation of its rows
// (evaluate_element's out, after it: the blocks are not symmetric), and the added mass to the
// pass's mass term (AddedMassTerm). e and edot are the element's coordinates and velocities;
// ReadsVelocity = false (a model without drag or damping: the element pass's Damped) evaluates at
// zero velocity.
template <int D, int S, bool ReadsVelocity, class Quadrature>
CATENARY_HD void add_fluid_load(const FluidLoadList& list, const ElementProperties& p, const Quadrature& ref,
                                const double* e, const double* edot, bool want_jacobian, ElementEvaluation<D, S>& out,
                                JacobianWeights weights = {}, const AddedMassTerm& mass = {}) {
  if (!(p.fluid >= 0.0)) return;
  const FluidLoad& f = list.loads[static_cast<int>(p.fluid)];
  const bool added_mass = has_added_mass(f);
  detail::add_buoyancy<D, S>(f, list, p, ref, e, want_jacobian, weights, out);
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const Vec<D> r = detail::interpolate<D>(h.s, e);
    const FluidPoint<D> water = fluid_kinematics<D>(f, list.values, r, list.time);
    if (!water.wet) continue;
    const Vec<D> a = detail::interpolate<D>(h.sx, e);
    const Vec<D> v = ReadsVelocity ? detail::interpolate<D>(h.s, edot) : Vec<D>::zero();
    detail::LinePointLoad<D> point;
    detail::morison_point<D>(f, water, a, v, want_jacobian, point);
    detail::add_line_point<D, S>(h, ref.bending_w[g], point, want_jacobian, weights, out);
    if (added_mass) detail::add_added_mass_point<D, S>(f, h, ref.bending_w[g], a, mass, want_jacobian, out);
  }
}

// Rows of M_a(e) x for element e (4 D of them, added to rows): the added mass's share of a mass
// product (Backend::mass_product with q), at the wet points.
template <int D, class Quadrature>
CATENARY_HD void add_added_mass_product(const FluidLoadList& list, const ElementProperties& p, const Quadrature& ref,
                                        const double* e, const double* x, double* rows) {
  if (!(p.fluid >= 0.0)) return;
  const FluidLoad& f = list.loads[static_cast<int>(p.fluid)];
  if (!has_added_mass(f)) return;
  ElementEvaluation<D, 4> unused;
  unused.first = 0;
  const AddedMassTerm term{x, 0.0, 0.0, rows};
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const Vec<D> r = detail::interpolate<D>(h.s, e);
    Vec<D> slope;
    if (!(r[D - 1] - f.surface < wave_elevation<D>(f, list.values, r, list.time, slope))) continue;
    detail::add_added_mass_point<D, 4>(f, h, ref.bending_w[g], detail::interpolate<D>(h.sx, e), term, false, unused);
  }
}

}  // namespace catenary
