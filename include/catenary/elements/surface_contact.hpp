#pragma once
// Contact of a cable's or beam's centreline tube (radius R) with a fixed surface: a plane (the
// ground, a seabed), the outside of a cylinder (a sheave, a drum, a pipe) or a height grid (a
// seabed's bathymetry, triangulated: a plane per triangle), host and device code.
// A penalty force per unit reference length acts at the element's five bending quadrature points
// (reference arc-length weights), in the element's own rows, with its analytic Jacobian: the chain
// and block solvers see the same pattern as without contact.
//
// At a point r with velocity v, the surface gives the outward unit normal n(r) and the
// penetration delta of the tube (plane {x : n.x = n.p}: delta = n.p + R - n.r; cylinder of axis a
// through p and radius R_c: delta = R_c + R - rho, rho = |P_a (r - p)| the distance from the axis,
// n = P_a (r - p) / rho, P_a = I - a a^T; in a planar model the cylinder is a circle about z;
// grid: the plane of the triangle under r, delta = (z(x, y) - r_z) n_z + R, n ~ (-z_x, -z_y, 1),
// with no turning within a triangle and a jump of n across its edges).
// Where delta > 0, with its rate delta' = -n.v:
//   normal force per length  F = max(0, K delta^e + C delta^m delta')   (ContactSurface's law),
//   contact energy           K delta^(e+1) / (e + 1)  (counted with the strain energy),
//   friction per length      -F [mu_a phi(v_a) t + mu_l phi(v_l) l],  phi(u) = u / sqrt(u^2 + u_s^2),
// with t = P r' / |P r'| the centreline's direction in the tangent plane (P = I - n n^T), l = n x t
// the lateral direction (3D only), v_a = t.v, v_l = l.v, and u_s the slip velocity scale:
// Coulomb's law regularized, with separate axial and lateral coefficients as seabed practice has
// them. Friction acts on velocities only, so statics is frictionless; where the centreline stands
// normal to the surface (|P r'| below 1e-12 |r'|) t is undefined and the point takes no friction.
//
// The element's internal-force rows take -(contact force): f_k += w S_k (-F n + F G), G = mu_a
// phi(v_a) t + mu_l phi(v_l) l, and the Jacobian w S_k [c_k (S_l dfp/dr + S_l' dfp/da) + c_d S_l
// dfp/dv] with fp = -F n + F G per unit length (line_load.hpp): not symmetric where friction acts. On a cylinder
// n turns with r (dn/dr = (P_a - n n^T) / rho), which adds -F dn/dr and the turning of t and l.
#include <math.h>

#include "catenary/core/small_matrix.hpp"
#include "catenary/elements/contact_law.hpp"
#include "catenary/elements/gradient_deficient_math.hpp"
#include "catenary/elements/line_load.hpp"

namespace catenary {

// What a ContactSurface is (its `kind`, as a double: records hold doubles only).
enum class SurfaceKind { plane = 0, cylinder = 1, grid = 2 };

// One contact surface: its shape, the tube radius of the bodies that touch it, the normal law and
// the friction. Doubles only (a device array of them is a plain copy).
struct ContactSurface {
  double kind;            // a SurfaceKind's value
  double direction[3];    // plane: its unit normal, out of the solid; cylinder: its unit axis
  double point[3];        // a point of the plane, or of the cylinder's axis
  double surface_radius;  // the cylinder's radius R_c (0 for a plane)
  double radius;          // tube radius R of the centreline (m)
  ContactLaw law;         // per unit length: K in N/m per m^e, C in N s/m^2 per m^m
  double friction_axial, friction_lateral;  // mu_a, mu_l >= 0
  double slip_velocity;   // u_s > 0 (m/s), where friction is regularized
  // A height grid (a seabed's bathymetry): heights z_ij above the up axis at x0 + i dx, y0 + j dy,
  // i < nx, j < ny (a planar model: a profile along x, ny = 1), held in the list's heights from
  // grid_offset on, x fastest. Each cell is two triangles split along its diagonal from (i + 1, j)
  // to (i, j + 1), each a plane; beyond the grid the edge cells' planes go on.
  double grid_origin[2], grid_spacing[2], grid_size[2], grid_offset;
};

// The model's contact surfaces where a pass reads them (host or device memory).
struct ContactSurfaceList {
  const ContactSurface* surfaces = nullptr;
  int count = 0;
  const double* heights = nullptr;  // the height grids' values (ContactSurface::grid_offset)
};

// Whether the law or the friction of c reads velocities.
CATENARY_HD bool contact_reads_velocity(const ContactSurface& c) {
  return c.law.damping > 0.0 || c.friction_axial > 0.0 || c.friction_lateral > 0.0;
}

namespace detail {

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

// The surface at a point r: its outward normal n, the tube's penetration delta and, on a curved
// surface, dn/dr.
template <int D>
struct SurfacePoint {
  Vec<D> n;
  double delta;
  bool curved;
  Mat<D, D> dn_dr;  // set where curved
};

// The plane of a height grid's triangle under r (see ContactSurface): its unit normal n ~ (-dz/dx,
// -dz/dy, 1) and the penetration (z(x, y) - r_up) n_up + R of the tube.
template <int D>
CATENARY_HD void grid_point(const ContactSurface& c, const double* heights, const Vec<D>& r, SurfacePoint<D>& s) {
  const double* z = heights + static_cast<int>(c.grid_offset);
  const int nx = static_cast<int>(c.grid_size[0]), ny = static_cast<int>(c.grid_size[1]);
  const auto cell = [](double x, double origin, double spacing, int nodes, int& i) {
    const double f = (x - origin) / spacing;
    i = f < 0.0 ? 0 : (f >= nodes - 2 ? nodes - 2 : static_cast<int>(f));
    return f - i;  // outside the grid: beyond [0, 1], on the edge cell's plane
  };
  int i = 0, j = 0;
  const double u = cell(r[0], c.grid_origin[0], c.grid_spacing[0], nx, i);
  double height, slope[2] = {0.0, 0.0};
  if constexpr (D == 2) {
    slope[0] = (z[i + 1] - z[i]) / c.grid_spacing[0];
    height = z[i] + (z[i + 1] - z[i]) * u;
  } else {
    const double w = cell(r[1], c.grid_origin[1], c.grid_spacing[1], ny, j);
    const double z00 = z[j * nx + i], z10 = z[j * nx + i + 1], z01 = z[(j + 1) * nx + i], z11 = z[(j + 1) * nx + i + 1];
    if (u + w <= 1.0) {
      slope[0] = (z10 - z00) / c.grid_spacing[0];
      slope[1] = (z01 - z00) / c.grid_spacing[1];
      height = z00 + (z10 - z00) * u + (z01 - z00) * w;
    } else {
      slope[0] = (z11 - z01) / c.grid_spacing[0];
      slope[1] = (z11 - z10) / c.grid_spacing[1];
      height = z11 + (z01 - z11) * (1.0 - u) + (z10 - z11) * (1.0 - w);
    }
  }
  const double up = 1.0 / sqrt(1.0 + slope[0] * slope[0] + slope[1] * slope[1]);
  for (int k = 0; k < D - 1; ++k) s.n[k] = -slope[k] * up;
  s.n[D - 1] = up;
  s.delta = (height - r[D - 1]) * up + c.radius;
}

template <int D>
CATENARY_HD SurfacePoint<D> surface_point(const ContactSurface& c, const double* heights, const Vec<D>& r) {
  SurfacePoint<D> s;
  s.curved = c.kind == double(SurfaceKind::cylinder);
  if (c.kind == double(SurfaceKind::grid)) {
    grid_point<D>(c, heights, r, s);
    return s;
  }
  if (!s.curved) {
    double np = 0.0, nr = 0.0;
    for (int i = 0; i < D; ++i) {
      s.n[i] = c.direction[i];
      np += c.direction[i] * c.point[i];
      nr += c.direction[i] * r[i];
    }
    s.delta = np + c.radius - nr;
    return s;
  }
  // The cylinder: radial = P_a (r - p); a planar model's circle has its axis along z (out of the
  // plane), so there P_a is the identity.
  Vec<D> radial;
  for (int i = 0; i < D; ++i) radial[i] = r[i] - c.point[i];
  if constexpr (D == 3) {
    const double along = radial[0] * c.direction[0] + radial[1] * c.direction[1] + radial[2] * c.direction[2];
    for (int i = 0; i < D; ++i) radial[i] -= along * c.direction[i];
  }
  const double rho = sqrt(dot(radial, radial));
  s.delta = c.surface_radius + c.radius - rho;
  if (!(rho > 0.0)) {  // on the axis: no normal (and far inside any cylinder a tube can touch)
    s.delta = 0.0;
    return s;
  }
  for (int i = 0; i < D; ++i) s.n[i] = radial[i] / rho;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      const double axis = D == 3 ? c.direction[i] * c.direction[j] : 0.0;
      s.dn_dr(i, j) = ((i == j ? 1.0 : 0.0) - axis - s.n[i] * s.n[j]) / rho;
    }
  return s;
}

// The contact at one point: the force per length fp = -F n + F G on the element (as an internal
// force) and its derivatives in r, a = r' and v; the normal, the penetration and F.
template <int D>
struct ContactPoint : LinePointLoad<D> {
  Vec<D> normal;
  double energy;  // per length
  double normal_force, penetration;
};

// row^T M for a D-vector row and a D x D matrix.
template <int D>
CATENARY_HD Vec<D> row_times(const Vec<D>& row, const Mat<D, D>& M) {
  Vec<D> out = Vec<D>::zero();
  for (int j = 0; j < D; ++j)
    for (int i = 0; i < D; ++i) out[j] += row[i] * M(i, j);
  return out;
}

// [x]_cross M: the cross product x x (each column of M); zero in 2D.
template <int D>
CATENARY_HD Mat<D, D> cross_columns(const Vec<D>& x, const Mat<D, D>& M) {
  Mat<D, D> out;
  for (int j = 0; j < D; ++j) {
    Vec<D> column;
    for (int i = 0; i < D; ++i) column[i] = M(i, j);
    const Vec<D> crossed = lateral_of<D>(x, column);
    for (int i = 0; i < D; ++i) out(i, j) = crossed[i];
  }
  return out;
}

// Friction G = mu_a phi(v_a) t + mu_l phi(v_l) l at a point, with F G and its derivatives added to
// the point's (F: the normal force and its derivatives; dF_dr: dF/dr). Law: a ContactSurface, or
// anything with its friction fields (multibody/cable_shape_contact.hpp).
template <int D, class Law>
CATENARY_HD void add_friction(const Law& c, const SurfacePoint<D>& s, const Vec<D>& a, const Vec<D>& v,
                              const NormalForce& F, const Vec<D>& dF_dr, bool jacobian, ContactPoint<D>& out) {
  const Vec<D>& n = s.n;
  Vec<D> pa;  // P a
  const double an = dot(n, a);
  for (int i = 0; i < D; ++i) pa[i] = a[i] - an * n[i];
  const double pa2 = dot(pa, pa);
  if (!(pa2 > 1e-24 * dot(a, a))) return;  // normal to the surface: no direction to slide along
  const double inv = 1.0 / sqrt(pa2);
  Vec<D> t;
  for (int i = 0; i < D; ++i) t[i] = pa[i] * inv;
  const Vec<D> l = lateral_of<D>(n, t);
  const RegularizedSign sa = regularized_sign(dot(t, v), c.slip_velocity);
  const RegularizedSign sl = regularized_sign(D == 3 ? dot(l, v) : 0.0, c.slip_velocity);
  const double ga = c.friction_axial * sa.value, gl = D == 3 ? c.friction_lateral * sl.value : 0.0;
  Vec<D> G;
  for (int i = 0; i < D; ++i) G[i] = ga * t[i] + gl * l[i];
  for (int i = 0; i < D; ++i) out.force[i] += F.value * G[i];
  if (!jacobian) return;
  // d(F G)/dv = -F_rate G n^T + F (mu_a phi'_a t t^T + mu_l phi'_l l l^T). Through t and l, for X
  // = a or r: dG/dX = mu_a (phi'_a t v^T dt/dX + phi_a dt/dX) + mu_l (phi'_l l v^T dl/dX + phi_l
  // dl/dX), with dt/d(P a) = (I - t t^T) / |P a|, dt/da = (P - t t^T) / |P a|, and dl/dX = [n]x
  // dt/dX - [t]x dn/dX (dn/da = 0; on a curved surface d(P a)/dr = -(n a^T + (n.a) I) dn/dr).
  const double ka = c.friction_axial * sa.slope, kl = D == 3 ? c.friction_lateral * sl.slope : 0.0;
  const auto add_turning = [&](const Mat<D, D>& dt, const Mat<D, D>& dl, Mat<D, D>& target) {
    const Vec<D> v_dt = row_times<D>(v, dt), v_dl = row_times<D>(v, dl);
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j)
        target(i, j) += F.value * (ka * t[i] * v_dt[j] + ga * dt(i, j) + kl * l[i] * v_dl[j] + gl * dl(i, j));
  };
  Mat<D, D> dt_da;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) dt_da(i, j) = ((i == j ? 1.0 : 0.0) - n[i] * n[j] - t[i] * t[j]) * inv;
  add_turning(dt_da, cross_columns<D>(n, dt_da), out.d_a);
  if (s.curved) {
    Mat<D, D> dpa_dr, dt_dr = Mat<D, D>::zero();
    const Vec<D> a_dn = row_times<D>(a, s.dn_dr);
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) dpa_dr(i, j) = -n[i] * a_dn[j] - an * s.dn_dr(i, j);
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j)
        for (int k = 0; k < D; ++k) dt_dr(i, j) += ((i == k ? 1.0 : 0.0) - t[i] * t[k]) * inv * dpa_dr(k, j);
    Mat<D, D> dl_dr = cross_columns<D>(n, dt_dr);
    const Mat<D, D> t_dn = cross_columns<D>(t, s.dn_dr);
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) dl_dr(i, j) -= t_dn(i, j);
    add_turning(dt_dr, dl_dr, out.d_r);
  }
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      out.d_r(i, j) += G[i] * dF_dr[j];
      out.d_v(i, j) += -F.d_rate * G[i] * n[j] + F.value * (ka * t[i] * t[j] + kl * l[i] * l[j]);
    }
}

// The contact at a point with slope a and velocity v (relative to the surface) where the surface
// is s; false where there is none. Law: a ContactSurface, or anything with its law and friction
// fields.
template <int D, class Law>
CATENARY_HD bool contact_at(const Law& c, const SurfacePoint<D>& s, const Vec<D>& a, const Vec<D>& v, bool jacobian,
                            ContactPoint<D>& out) {
  if (!(s.delta > 0.0)) return false;
  const Vec<D>& n = s.n;
  const NormalForce F = contact_normal_force(c.law, s.delta, -dot(n, v));
  out.energy = contact_energy_density(c.law, s.delta);
  out.normal_force = F.value;
  out.penetration = s.delta;
  out.normal = n;
  for (int i = 0; i < D; ++i) out.force[i] = -F.value * n[i];
  // dF/dr = -F_delta n^T - F_rate v^T dn/dr (delta' = -n.v turns with n on a curved surface).
  Vec<D> dF_dr;
  const Vec<D> v_dn = s.curved ? row_times<D>(v, s.dn_dr) : Vec<D>::zero();
  for (int j = 0; j < D; ++j) dF_dr[j] = -F.d_delta * n[j] - F.d_rate * v_dn[j];
  if (jacobian) {
    out.d_a = Mat<D, D>::zero();
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) {
        out.d_r(i, j) = -n[i] * dF_dr[j] - (s.curved ? F.value * s.dn_dr(i, j) : 0.0);
        out.d_v(i, j) = F.d_rate * n[i] * n[j];
      }
  }
  if (F.value > 0.0 && (c.friction_axial > 0.0 || c.friction_lateral > 0.0))
    add_friction<D>(c, s, a, v, F, dF_dr, jacobian, out);
  return true;
}

// The contact of surface c at a point r (slope a, velocity v); false where there is none.
template <int D>
CATENARY_HD bool contact_point(const ContactSurface& c, const double* heights, const Vec<D>& r, const Vec<D>& a,
                               const Vec<D>& v, bool jacobian, ContactPoint<D>& out) {
  return contact_at<D>(c, surface_point<D>(c, heights, r), a, v, jacobian, out);
}

}  // namespace detail

// Adds the contact of element e's surface (p.contact; none where negative) to an evaluation of its
// rows (evaluate_element's out, after it: the blocks are not symmetric, so they are added to all
// of them). e and edot are the element's coordinates and velocities; ReadsVelocity = false (a
// model whose laws read none: the element pass's Damped) evaluates at zero velocity.
template <int D, int S, bool ReadsVelocity, class Quadrature>
CATENARY_HD void add_surface_contact(const ContactSurfaceList& surfaces, const ElementProperties& p,
                                     const Quadrature& ref, const double* e, const double* edot, bool want_jacobian,
                                     ElementEvaluation<D, S>& out, JacobianWeights weights = {}) {
  if (!(p.contact >= 0.0)) return;
  const ContactSurface& c = surfaces.surfaces[static_cast<int>(p.contact)];
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const Vec<D> r = detail::interpolate<D>(h.s, e), a = detail::interpolate<D>(h.sx, e);
    const Vec<D> v = ReadsVelocity ? detail::interpolate<D>(h.s, edot) : Vec<D>::zero();
    detail::ContactPoint<D> point;
    if (!detail::contact_point<D>(c, surfaces.heights, r, a, v, want_jacobian, point)) continue;
    const double w = ref.bending_w[g];
    out.energy += w * point.energy;
    detail::add_line_point<D, S>(h, w, point, want_jacobian, weights, out);
  }
}

// The contact energy of element e alone (element_strain_energy's share of it).
template <int D, class Quadrature>
CATENARY_HD double surface_contact_energy(const ContactSurfaceList& surfaces, const ElementProperties& p,
                                          const Quadrature& ref, const double* e) {
  if (!(p.contact >= 0.0)) return 0.0;
  const ContactSurface& c = surfaces.surfaces[static_cast<int>(p.contact)];
  double energy = 0.0;
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const double delta = detail::surface_point<D>(c, surfaces.heights, detail::interpolate<D>(h.s, e)).delta;
    if (delta > 0.0) energy += ref.bending_w[g] * contact_energy_density(c.law, delta);
  }
  return energy;
}

}  // namespace catenary
