#pragma once
// The continuous normal-force law of a contact, host and device code: the force at a penetration
// delta > 0 with rate delta' is
//   F = max(0, K delta^e + C delta^m delta')
// (the lecture's general form; linear spring-damper, Hertz, Hunt-Crossley and Lankarani-Nikravesh
// are cases of it, src/model/contact_law_reader.cpp). The same law serves a cable's contact with a
// surface (per unit length, elements/surface_contact.hpp) and rigid bodies' contacts (a point
// force, multibody/rigid_contact.hpp); the units of K and C follow.
#include <math.h>

#include "catenary/core/host_device.hpp"

namespace catenary {

struct ContactLaw {
  double stiffness;         // K > 0
  double exponent;          // e >= 1
  double damping;           // C >= 0
  double damping_exponent;  // m >= 0
};

// x^e for x > 0, without pow for the laws' common exponents 0, 1, 1.5 and 2 (pow took a large
// share of a contact point's cost: docs/performance.md, Contact).
CATENARY_HD double contact_power(double x, double e) {
  if (e == 1.0) return x;
  if (e == 1.5) return x * sqrt(x);
  if (e == 2.0) return x * x;
  if (e == 0.0) return 1.0;
  return pow(x, e);
}

// The normal force at penetration delta > 0 and its rate, with its derivatives.
struct NormalForce {
  double value, d_delta, d_rate;
};
CATENARY_HD NormalForce contact_normal_force(const ContactLaw& c, double delta, double rate) {
  const double elastic = c.stiffness * contact_power(delta, c.exponent);
  const double damping = c.damping > 0.0 ? c.damping * contact_power(delta, c.damping_exponent) : 0.0;
  const double value = elastic + damping * rate;
  if (!(value > 0.0)) return {0.0, 0.0, 0.0};  // separating faster than the spring pushes: no pull
  double d_delta = c.exponent * elastic / delta;
  if (c.damping_exponent > 0.0) d_delta += c.damping_exponent * damping / delta * rate;
  return {value, d_delta, damping};
}

// The contact energy K delta^(e+1) / (e + 1), the potential of the law's elastic part.
CATENARY_HD double contact_energy_density(const ContactLaw& c, double delta) {
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

}  // namespace catenary
