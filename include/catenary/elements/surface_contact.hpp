#pragma once
// Contact of a cable's or beam's centreline tube (radius R) with a fixed plane (the ground, a
// seabed), host and device code. A penalty force per unit reference length acts at the element's
// five bending quadrature points (reference arc-length weights), in the element's own rows, with
// its analytic Jacobian: the chain and block solvers see the same pattern as without contact.
//
// At a point r with velocity v, plane {x : n.x = offset} (n unit, out of the solid):
//   gap g = n.r - offset - R, penetration delta = -g where g < 0, its rate delta' = -n.v,
//   normal force per length  F = max(0, K delta^e + C delta^m delta')   (ContactPlane's law),
//   contact energy           K delta^(e+1) / (e + 1)  (counted with the strain energy),
//   friction per length      -F [mu_a phi(v_a) t + mu_l phi(v_l) l],  phi(u) = u / sqrt(u^2 + u_s^2),
// with t = P r' / |P r'| the centreline's direction in the plane (P = I - n n^T), l = n x t the
// lateral direction (3D only), v_a = t.v, v_l = l.v, and u_s the slip velocity scale: Coulomb's
// law regularized, with separate axial and lateral coefficients as seabed practice has them.
// Friction acts on velocities only, so statics is frictionless; where the centreline stands
// normal to the plane (|P r'| below 1e-12 |r'|) t is undefined and the point takes no friction.
//
// The element's internal-force rows take -(contact force): f_k += w S_k (-F n + F G), G = mu_a
// phi(v_a) t + mu_l phi(v_l) l, and the Jacobian w S_k [c_k (S_l dfp/dr + S_l' dfp/da) + c_d S_l
// dfp/dv] with fp = -F n + F G per unit length: not symmetric where friction acts.
#include <math.h>

#include "catenary/core/small_matrix.hpp"
#include "catenary/elements/gradient_deficient_math.hpp"

namespace catenary {

// One plane contact: the plane, the tube radius of the bodies that touch it, the normal law and
// the friction. Doubles only (a device array of them is a plain copy).
struct ContactPlane {
  double normal[3];       // unit, out of the solid (z = 0 for planar models)
  double offset;          // n.x on the plane
  double radius;          // tube radius R of the centreline (m)
  double stiffness;       // K: N/m per m^e of penetration (per unit length)
  double exponent;        // e >= 1
  double damping;         // C: N s/m per m^(m+1) (per unit length)
  double damping_exponent;  // m >= 0
  double friction_axial, friction_lateral;  // mu_a, mu_l >= 0
  double slip_velocity;   // u_s > 0 (m/s), where friction is regularized
};

// The model's contact planes where a pass reads them (host or device memory).
struct ContactPlaneList {
  const ContactPlane* planes = nullptr;
  int count = 0;
};

// Whether the law or the friction of c reads velocities.
CATENARY_HD bool contact_reads_velocity(const ContactPlane& c) {
  return c.damping > 0.0 || c.friction_axial > 0.0 || c.friction_lateral > 0.0;
}

// x^e for x > 0, without pow for the laws' common exponents 0, 1, 1.5 and 2 (pow is most of a
// contact point's cost: docs/performance.md, Contact).
CATENARY_HD double contact_power(double x, double e) {
  if (e == 1.0) return x;
  if (e == 1.5) return x * sqrt(x);
  if (e == 2.0) return x * x;
  if (e == 0.0) return 1.0;
  return pow(x, e);
}

// The normal force per length at penetration delta > 0 and its rate, with its derivatives.
struct NormalForce {
  double value, d_delta, d_rate;
};
CATENARY_HD NormalForce contact_normal_force(const ContactPlane& c, double delta, double rate) {
  const double elastic = c.stiffness * contact_power(delta, c.exponent);
  const double damping = c.damping > 0.0 ? c.damping * contact_power(delta, c.damping_exponent) : 0.0;
  const double value = elastic + damping * rate;
  if (!(value > 0.0)) return {0.0, 0.0, 0.0};  // separating faster than the spring pushes: no pull
  double d_delta = c.exponent * elastic / delta;
  if (c.damping_exponent > 0.0) d_delta += c.damping_exponent * damping / delta * rate;
  return {value, d_delta, damping};
}

// The contact energy K delta^(e+1) / (e + 1) per unit length.
CATENARY_HD double contact_energy_density(const ContactPlane& c, double delta) {
  return c.stiffness * delta * contact_power(delta, c.exponent) / (c.exponent + 1.0);
}

// Regularized sign phi(u) = u / sqrt(u^2 + s^2) and its derivative s^2 / (u^2 + s^2)^(3/2).
struct RegularizedSign {
  double value, slope;
};
CATENARY_HD RegularizedSign regularized_sign(double u, double s) {
  const double q = 1.0 / sqrt(u * u + s * s);
  return {u * q, s * s * q * q * q};
}

namespace detail {

template <int D>
CATENARY_HD Vec<D> plane_normal(const ContactPlane& c) {
  Vec<D> n;
  for (int i = 0; i < D; ++i) n[i] = c.normal[i];
  return n;
}

// n x t in 3D (the lateral direction); unused in 2D.
template <int D>
CATENARY_HD Vec<D> lateral_of(const Vec<D>& n, const Vec<D>& t) {
  Vec<D> l = Vec<D>::zero();
  if constexpr (D == 3) {
    l[0] = n[1] * t[2] - n[2] * t[1];
    l[1] = n[2] * t[0] - n[0] * t[2];
    l[2] = n[0] * t[1] - n[1] * t[0];
  }
  return l;
}

// The contact at one point: the force per length fp = -F n + F G on the element (as an internal
// force) and its derivatives in r, a = r' and v.
template <int D>
struct ContactPoint {
  Vec<D> force;
  Mat<D, D> d_r, d_a, d_v;
  double energy;  // per length
  double normal_force;
};

// Friction G = mu_a phi(v_a) t + mu_l phi(v_l) l at a point, with F times its derivatives added to
// the point's (F, F_delta, F_rate: the normal force and its derivatives).
template <int D>
CATENARY_HD void add_friction(const ContactPlane& c, const Vec<D>& n, const Vec<D>& a, const Vec<D>& v,
                              const NormalForce& F, bool jacobian, ContactPoint<D>& out) {
  Vec<D> pa;  // P a
  const double an = dot(n, a);
  for (int i = 0; i < D; ++i) pa[i] = a[i] - an * n[i];
  const double pa2 = dot(pa, pa);
  if (!(pa2 > 1e-24 * dot(a, a))) return;  // normal to the plane: no direction to slide along
  const double inv = 1.0 / sqrt(pa2);
  Vec<D> t, l;
  for (int i = 0; i < D; ++i) t[i] = pa[i] * inv;
  l = lateral_of<D>(n, t);
  const RegularizedSign sa = regularized_sign(dot(t, v), c.slip_velocity);
  const RegularizedSign sl = regularized_sign(D == 3 ? dot(l, v) : 0.0, c.slip_velocity);
  const double ga = c.friction_axial * sa.value, gl = D == 3 ? c.friction_lateral * sl.value : 0.0;
  Vec<D> G;
  for (int i = 0; i < D; ++i) G[i] = ga * t[i] + gl * l[i];
  for (int i = 0; i < D; ++i) out.force[i] += F.value * G[i];
  if (!jacobian) return;
  // d(F G)/dr = -F_delta G n^T; d/dv = -F_rate G n^T + F (mu_a phi'_a t t^T + mu_l phi'_l l l^T);
  // d/da = F dG/da through t and l: dt/da = T = (P - t t^T) / |P a|, dl/da = [n]x T,
  //   dG/da = mu_a (phi'_a t v^T T + phi_a T) + mu_l (phi'_l l v^T [n]x T + phi_l [n]x T).
  const double ka = c.friction_axial * sa.slope, kl = D == 3 ? c.friction_lateral * sl.slope : 0.0;
  Mat<D, D> T, NT;  // T and [n]x T
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) T(i, j) = ((i == j ? 1.0 : 0.0) - n[i] * n[j] - t[i] * t[j]) * inv;
  for (int j = 0; j < D; ++j) {
    Vec<D> column;
    for (int i = 0; i < D; ++i) column[i] = T(i, j);
    const Vec<D> nc = lateral_of<D>(n, column);
    for (int i = 0; i < D; ++i) NT(i, j) = nc[i];
  }
  Vec<D> vT, vNT;  // v^T T and v^T [n]x T
  for (int j = 0; j < D; ++j) {
    vT[j] = 0.0;
    vNT[j] = 0.0;
    for (int i = 0; i < D; ++i) {
      vT[j] += v[i] * T(i, j);
      vNT[j] += v[i] * NT(i, j);
    }
  }
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      out.d_r(i, j) -= F.d_delta * G[i] * n[j];
      out.d_v(i, j) += -F.d_rate * G[i] * n[j] + F.value * (ka * t[i] * t[j] + kl * l[i] * l[j]);
      out.d_a(i, j) += F.value * (ka * t[i] * vT[j] + ga * T(i, j) + kl * l[i] * vNT[j] + gl * NT(i, j));
    }
}

// The contact of plane c at a point r (slope a, velocity v); false where there is none.
template <int D>
CATENARY_HD bool contact_point(const ContactPlane& c, const Vec<D>& r, const Vec<D>& a, const Vec<D>& v,
                               bool jacobian, ContactPoint<D>& out) {
  const Vec<D> n = plane_normal<D>(c);
  const double delta = c.offset + c.radius - dot(n, r);
  if (!(delta > 0.0)) return false;
  const NormalForce F = contact_normal_force(c, delta, -dot(n, v));
  out.energy = contact_energy_density(c, delta);
  out.normal_force = F.value;
  for (int i = 0; i < D; ++i) out.force[i] = -F.value * n[i];
  if (jacobian) {
    out.d_r = Mat<D, D>::zero();
    out.d_a = Mat<D, D>::zero();
    out.d_v = Mat<D, D>::zero();
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) {
        out.d_r(i, j) = F.d_delta * n[i] * n[j];
        out.d_v(i, j) = F.d_rate * n[i] * n[j];
      }
  }
  if (F.value > 0.0 && (c.friction_axial > 0.0 || c.friction_lateral > 0.0))
    add_friction<D>(c, n, a, v, F, jacobian, out);
  return true;
}

}  // namespace detail

// Adds the contact of element e's plane (p.contact; none where negative) to an evaluation of its
// rows (evaluate_element's out, after it: the blocks are not symmetric, so they are added to all
// of them). e and edot are the element's coordinates and velocities; ReadsVelocity = false (a
// model whose laws read none: the element pass's Damped) evaluates at zero velocity.
template <int D, int S, bool ReadsVelocity, class Quadrature>
CATENARY_HD void add_plane_contact(const ContactPlaneList& planes, const ElementProperties& p, const Quadrature& ref,
                                   const double* e, const double* edot, bool want_jacobian,
                                   ElementEvaluation<D, S>& out, JacobianWeights weights = {}) {
  if (!(p.contact >= 0.0)) return;
  const ContactPlane& c = planes.planes[static_cast<int>(p.contact)];
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const Vec<D> r = detail::interpolate<D>(h.s, e), a = detail::interpolate<D>(h.sx, e);
    const Vec<D> v = ReadsVelocity ? detail::interpolate<D>(h.s, edot) : Vec<D>::zero();
    detail::ContactPoint<D> point;
    if (!detail::contact_point<D>(c, r, a, v, want_jacobian, point)) continue;
    const double w = ref.bending_w[g];
    out.energy += w * point.energy;
    for (int k = 0; k < S; ++k) {
      const double wk = w * h.s[out.first + k];
      for (int i = 0; i < D; ++i) out.force[k * D + i] += wk * point.force[i];
    }
    if (!want_jacobian) continue;
    // Column block l of the point's derivative, w (c_k (S_l dfp/dr + S_l' dfp/da) + c_d S_l
    // dfp/dv), formed once for all row blocks.
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
}

// The contact energy of element e alone (element_strain_energy's share of it).
template <int D, class Quadrature>
CATENARY_HD double plane_contact_energy(const ContactPlaneList& planes, const ElementProperties& p,
                                        const Quadrature& ref, const double* e) {
  if (!(p.contact >= 0.0)) return 0.0;
  const ContactPlane& c = planes.planes[static_cast<int>(p.contact)];
  const Vec<D> n = detail::plane_normal<D>(c);
  double energy = 0.0;
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const double delta = c.offset + c.radius - dot(n, detail::interpolate<D>(h.s, e));
    if (delta > 0.0) energy += ref.bending_w[g] * contact_energy_density(c, delta);
  }
  return energy;
}

}  // namespace catenary
