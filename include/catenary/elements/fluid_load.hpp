#pragma once
// The water's loads on a cable's or beam's element, per unit reference length, host and device
// code: buoyancy, Morison drag and the fluid inertia (Froude-Krylov), in the element's own rows
// with their analytic Jacobian (fluid_kinematics.hpp for the water).
//
// With A = pi d^2 / 4 the displaced area, t = r' / |r'| the tangent and u_r = u - v the water's
// velocity relative to the centreline (u_r = s t + u_n, s = t.u_r):
//   buoyancy        f_b = -rho_w A g                        on the wet part of the element,
//   drag            f_d = 1/2 rho_w C_dn d |u_n| u_n + 1/2 rho_w C_dt pi d |s| s t,
//   fluid inertia   f_i = rho_w A a_w                       (a_w: the water's acceleration),
// the tangential drag on the wetted perimeter pi d, as lumped-mass mooring codes (MoorDyn) take it.
// Drag and inertia act at the five bending quadrature points that are below the surface; buoyancy
// is integrated over the wet part of the element exactly: the element is cut where its centreline
// crosses the instantaneous surface (eta, with the waves), found by sampling the height above it at
// kSurfaceSamples + 1 points and refining each sign change, and each wet interval has its own
// five-point rule, with the reference stretch |r0'| between the element's points the quartic
// through its five values (exact for straight references). The cut points move with the
// coordinates; their motion is in the Jacobian. A crossing and its return within one sample
// interval (1 / kSurfaceSamples of the element) are not seen.
//
// The loads enter as internal forces fp = -(f_b + f_d + f_i) (line_load.hpp), with
//   dfp/dv = G,  dfp/dr = -(G du/dr + rho_w A da_w/dr),  dfp/da = -(df_d/dt) P / |r'|,
//   G = df_d/du_r = 1/2 rho_w d [C_dn (|u_n| P + u_n u_n^T / |u_n|) + 2 C_dt pi |s| t t^T],
//   df_d/dt = 1/2 rho_w d [-C_dn (|u_n| I + u_n u_n^T / |u_n|) (t u_r^T + s I) + C_dt pi |s| (2 t u_r^T + s I)],
// P = I - t t^T. Neither load has a potential: none adds to the strain energy.
#include <math.h>

#include "catenary/core/small_matrix.hpp"
#include "catenary/elements/fluid_kinematics.hpp"
#include "catenary/elements/gradient_deficient_math.hpp"
#include "catenary/elements/line_load.hpp"

namespace catenary {

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
  for (int i = 0; i < D; ++i)
    out.force[i] = -(cn * n * un[i] + ct * as * s * t[i] + f.density * area * water.acceleration[i]);
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
      dfd_dt(i, j) = -cn * Nt + ct * as * (2.0 * t[i] * ur[j] + (i == j ? s : 0.0));
    }
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      double du = 0.0, dt = 0.0;
      for (int m = 0; m < D; ++m) {
        du += G(i, m) * water.velocity_gradient(m, j);
        dt += dfd_dt(i, m) * ((m == j ? 1.0 : 0.0) - t[m] * t[j]) * inv;
      }
      out.d_v(i, j) = G(i, j);
      out.d_r(i, j) = -(du + f.density * area * water.acceleration_gradient(i, j));
      out.d_a(i, j) = -dt;
    }
}

}  // namespace detail

// Adds the water's loads on element e (p.fluid; none where negative) to an evaluation of its rows
// (evaluate_element's out, after it: the blocks are not symmetric). e and edot are the element's
// coordinates and velocities; ReadsVelocity = false (a model without drag or damping: the element
// pass's Damped) evaluates at zero velocity.
template <int D, int S, bool ReadsVelocity, class Quadrature>
CATENARY_HD void add_fluid_load(const FluidLoadList& list, const ElementProperties& p, const Quadrature& ref,
                                const double* e, const double* edot, bool want_jacobian, ElementEvaluation<D, S>& out,
                                JacobianWeights weights = {}) {
  if (!(p.fluid >= 0.0)) return;
  const FluidLoad& f = list.loads[static_cast<int>(p.fluid)];
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
  }
}

}  // namespace catenary
