#pragma once
// Models and references of the contact tests: a plane's law in a few numbers, a cable resting on
// a plane, and the closed form of a mooring line lying partly on a frictionless seabed with what
// the tests measure of a computed one.
#include <Eigen/Core>
#include <cmath>
#include <string>
#include <vector>

#include "catenary/elements/hermite_shape.hpp"
#include "catenary/elements/surface_contact.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/model.hpp"

namespace catenary::testing {

// F = K d^e + C d^m d' with friction mu_a (axial), mu_l (lateral) regularized at slip.
struct PlaneLaw {
  double stiffness, exponent, damping, damping_exponent, mu_axial, mu_lateral, slip;
};

// The plane {x : x_up = height} of a D-dimensional model (up: z in 3D, y in 2D), touched by
// centrelines of tube radius `radius`.
inline ContactSurface horizontal_plane(int D, double height, double radius, const PlaneLaw& law) {
  ContactSurface c{};
  c.kind = double(SurfaceKind::plane);
  c.direction[D - 1] = 1.0;
  c.point[D - 1] = height;
  c.radius = radius;
  c.law = {law.stiffness, law.exponent, law.damping, law.damping_exponent};
  c.friction_axial = law.mu_axial;
  c.friction_lateral = law.mu_lateral;
  c.slip_velocity = law.slip;
  return c;
}

// A free 2 m cable along x (1.5 kg/m, EA = 1e5 N, EI = 1 N m^2) under gravity -9.81 (along the
// model's up axis), resting on the plane at height 0 (tube radius 0.01 m) at the penetration that
// carries its weight under the law (stiffness K, exponent e: (rhoA g / K)^(1/e)), or with
// resting = false just touching it, moving at `velocity`.
inline Model cable_on_plane(int D, int elements, const PlaneLaw& law, const Vec3& velocity, bool resting = true) {
  const double rhoA = 1.5, g = 9.81, radius = 0.01;
  const double z = radius - (resting ? std::pow(rhoA * g / law.stiffness, 1.0 / law.exponent) : 0.0);
  Model m;
  m.dimension = D;
  m.gravity[D - 1] = -g;
  Vec3 start{}, end{};
  start[D - 1] = end[D - 1] = z;
  end[0] = 2.0;
  const int body = add_straight_line(m, "cable", start, end, elements, {1e5, 1.0, rhoA, 0.0});
  add_contact_surface(m, "floor", horizontal_plane(D, 0.0, radius, law), {body});
  finalize_model(m);
  for (int node = 0; node < m.node_count; ++node)
    for (int i = 0; i < D; ++i) m.initial_velocities[2 * D * node + i] = velocity[i];
  return m;
}

// cable_on_plane's cable (2 m from the origin along x) over a height grid instead: 0.5 m cells
// from (-1, -1) whose nodes rise and fall by up to 4 mm about 5 mm below the plane (a planar model:
// a profile along x), with the law's friction; the cable starts 1 to 9 mm above it.
inline Model cable_on_bumpy_grid(int D, int elements, const PlaneLaw& law, const Vec3& velocity) {
  Model m = cable_on_plane(D, elements, law, velocity);
  ContactSurface grid = m.elements.contact_surfaces[0];
  grid.kind = double(SurfaceKind::grid);
  grid.grid_origin[0] = grid.grid_origin[1] = -1.0;
  grid.grid_spacing[0] = grid.grid_spacing[1] = 0.5;
  const int nx = 9, ny = D == 3 ? 5 : 1;
  grid.grid_size[0] = nx;
  grid.grid_size[1] = ny;
  std::vector<double> heights;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) heights.push_back(-0.005 + 0.004 * std::sin(1.3 * i + 0.7 * j));
  m.elements.contact_surfaces.clear();
  m.elements.contact_names.clear();
  add_contact_surface(m, "bumpy floor", grid, {0}, heights);
  finalize_model(m);
  return m;
}

// Places the first `elements` elements of a line (unstretched length 2 leg + pi Rw) draped over a
// drum about y through the origin: up the left leg at x = -Rw, over the top at radius Rw, down the
// right leg at x = Rw.
inline void drape_over_drum(Model& m, int elements, double Rw, double leg) {
  const double arc = M_PI * Rw, L = 2.0 * leg + arc;
  for (int node = 0; node <= elements; ++node) {
    const double s = L * node / elements;
    double r[3] = {0, 0, 0}, t[3] = {0, 0, 0};
    if (s <= leg) {
      r[0] = -Rw, r[2] = s - leg, t[2] = 1.0;
    } else if (s <= leg + arc) {
      const double phi = (s - leg) / Rw;
      r[0] = -Rw * std::cos(phi), r[2] = Rw * std::sin(phi), t[0] = std::sin(phi), t[2] = std::cos(phi);
    } else {
      r[0] = Rw, r[2] = -(s - leg - arc), t[2] = -1.0;
    }
    for (int i = 0; i < 3; ++i) {
      m.initial_positions[6 * node + i] = r[i];
      m.initial_positions[6 * node + 3 + i] = t[i];
    }
  }
}

// The capstan: a cable (EA = 1e6 N, EI = 1e-3 N m^2, 0.1 kg/m, 60 elements, no gravity) draped
// over a fixed cylinder of radius 0.5 m (axis y; the tube's radius 0.01 m) with two vertical legs
// of 1.5 m: a wrap of pi. The left end, free to move vertically only, carries a force T1 = 100 N
// down (ramped in over 0.2 s); the right end is held, then pulled down 0.5 m by a smooth step
// from 0.2 s to 1.2 s, whose speed peaks at 0.75 m/s at 0.7 s with no acceleration: a sliding
// started without a jolt. The drum's law is Hertz's (K = 1e8 N/m^2.5): the wrap's points start at
// zero penetration, where the linear law's kink kept Newton from converging and Hertz's force is
// smooth; friction mu, regularized at u_s = 0.01 m/s.
inline Model capstan(double mu) {
  const double Rw = 0.51, leg = 1.5, L = 2.0 * leg + M_PI * Rw;
  const int elements = 60;
  Model m;
  m.dimension = 3;
  const int body = add_straight_line(m, "rope", {0, 0, 0}, {L, 0, 0}, elements, {1e6, 1e-3, 0.1, 0.0});
  ContactSurface drum = horizontal_plane(3, 0.0, 0.01, {1e8, 1.5, 0.0, 0.0, mu, mu, 1e-2});
  drum.kind = double(SurfaceKind::cylinder);
  drum.surface_radius = 0.5;
  drum.direction[1] = 1.0;
  drum.direction[2] = 0.0;
  add_contact_surface(m, "drum", drum, {body});
  finalize_model(m);
  drape_over_drum(m, elements, Rw, leg);
  add_fix(m, 0, {0, 1}, "left", "");
  TimeFunction load_in;
  load_in.kind = TimeFunction::Kind::SmoothStep;
  load_in.t1 = 0.2;
  load_in.v1 = 1.0;
  add_point_force(m, 0, {0, 0, -100.0}, load_in);
  TimeFunction pull;
  pull.kind = TimeFunction::Kind::SmoothStep;
  pull.t0 = 0.2;
  pull.t1 = 1.2;
  pull.v1 = -0.5;
  add_prescribed_motion(m, elements, {0, 1, 2}, {TimeFunction::constant(0.0), TimeFunction::constant(0.0), pull},
                        "pull", "");
  return m;
}

// The elastic catenary of unstretched length L and weight w a unit length from an anchor on a
// frictionless seabed to a fairlead X away and Z up (the seabed part slides freely, so the
// horizontal tension H is the same all along): with V = w Ls the fairlead's vertical force (Ls the
// suspended unstretched length),
//   X = L - V / w + (H / w) asinh(V / H) + H L / EA,
//   Z = (H / w) (sqrt(1 + (V / H)^2) - 1) + V^2 / (2 EA w),
// solved by nested bisections (V rises with Z at fixed H; X rises with H).
struct SeabedCatenary {
  double horizontal_tension, grounded_length, fairlead_tension;
};
inline SeabedCatenary seabed_catenary(double L, double w, double EA, double X, double Z) {
  const auto vertical = [&](double H) {
    double lo = 0.0, hi = w * L;
    for (int k = 0; k < 200; ++k) {
      const double V = 0.5 * (lo + hi);
      const double z = H / w * (std::sqrt(1.0 + (V / H) * (V / H)) - 1.0) + V * V / (2.0 * EA * w);
      (z < Z ? lo : hi) = V;
    }
    return 0.5 * (lo + hi);
  };
  double lo = 1.0, hi = 1e9;
  for (int k = 0; k < 200; ++k) {
    const double H = std::sqrt(lo * hi), V = vertical(H);
    const double x = L - V / w + H / w * std::asinh(V / H) + H * L / EA;
    (x < X ? lo : hi) = H;
  }
  const double H = std::sqrt(lo * hi), V = vertical(H);
  return {H, L - V / w, std::hypot(H, V)};
}

// What the seabed test measures of the first body of m at q (a line from an anchor on the plane
// z = 0 up to a fairlead at its last node): the touchdown, as the unstretched length from the
// anchor to the last point of the centreline at or below the plane (its cubic interpolation
// sampled 1,000 times an element), and the fairlead tension EA (|r'| - 1) at the last node (the
// Reissner law's axial force); and whether the line folds back on itself (a node behind the one
// before it along x: Newton can converge to such a spurious equilibrium of a very slender line).
struct SeabedLineState {
  double touchdown, fairlead_tension;
  bool folded;
};
inline SeabedLineState seabed_line_state(const Model& m, const Eigen::VectorXd& q, double EA) {
  const Body& b = m.bodies.at(0);
  SeabedLineState s{0.0, 0.0, false};
  for (int node = b.first_node + 1; node < b.first_node + b.node_count; ++node)
    if (q[6 * node] < q[6 * (node - 1)]) s.folded = true;
  double arc = 0.0;
  for (int e = b.first_element; e < b.first_element + b.element_count; ++e) {
    const double L = m.elements.properties[e].length;
    double ez[4];
    for (int k = 0; k < 4; ++k) ez[k] = q[element_global_dof(m, e, 3 * k + 2)];
    for (int j = 0; j <= 1000; ++j) {
      const HermiteShape h = hermite_shape(j / 1000.0, L);
      double z = 0.0;
      for (int k = 0; k < 4; ++k) z += h.s[k] * ez[k];
      if (z <= 0.0) s.touchdown = arc + L * j / 1000.0;
    }
    arc += L;
  }
  const int last = b.first_node + b.node_count - 1;
  const Eigen::Vector3d slope = q.segment<3>(6 * last + 3);
  s.fairlead_tension = EA * (slope.norm() - 1.0);
  return s;
}

}  // namespace catenary::testing
