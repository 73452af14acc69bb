// ADAMS's IMPACT law (see include/catenary/multibody/impact_law.hpp).
#include "catenary/multibody/impact_law.hpp"

#include "catenary/core/time_function.hpp"
#include "catenary/elements/contact_law.hpp"

namespace catenary {

// With delta = x1 - x and S(x) = STEP(x, x1 - d, cmax, x1, 0):
//   F = k delta^e - S(x) x',   dF/dx = -e k delta^e / delta - S'(x) x',   dF/dx' = -S(x).
ImpactForce impact_force(const ImpactLaw& law, double free_length, double length, double rate) {
  const double delta = free_length - length;
  if (!(delta > 0.0)) return {0.0, 0.0, 0.0};
  const double elastic = law.stiffness * contact_power(delta, law.exponent);
  const double x0 = free_length - law.penetration;
  const double damping = smooth_step(length, x0, law.max_damping, free_length, 0.0);
  const double value = elastic - damping * rate;
  if (!(value > 0.0)) return {0.0, 0.0, 0.0};
  const double slope = smooth_step(length, x0, law.max_damping, free_length, 0.0, 1);
  return {value, -law.exponent * elastic / delta - slope * rate, -damping};
}

double impact_energy(const ImpactLaw& law, double free_length, double length) {
  const double delta = free_length - length;
  return delta > 0.0 ? contact_energy_density({law.stiffness, law.exponent, 0.0, 0.0}, delta) : 0.0;
}

}  // namespace catenary
