#pragma once
// ADAMS's IMPACT(x, x', x1, k, e, cmax, d): a one-sided spring-damper on a distance x that acts
// while x is below its free length x1 (a body against a stop):
//   F = max(0, k (x1 - x)^e - STEP(x, x1 - d, cmax, x1, 0) x')   for x < x1,   0 for x >= x1
// F > 0 pushes the two ends apart. The damping coefficient rises along ADAMS's cubic STEP from 0
// at contact to cmax at the penetration d, so the force does not jump as contact begins; the
// max(0, ...) keeps the stop from pulling while it separates fast. The translational
// spring-damper uses it as its law (multibody/force_elements.hpp), x its length.
namespace catenary {

struct ImpactLaw {
  double stiffness = 0.0;    // k > 0 (N/m^e)
  double exponent = 1.0;     // e >= 1
  double max_damping = 0.0;  // cmax >= 0 (N s/m)
  double penetration = 0.0;  // d > 0 (m)
};

// F at length x and rate x' with its partial derivatives dF/dx and dF/dx' (ADAMS's IMPACT
// returns the same three); all zero where the stop does not push.
struct ImpactForce {
  double value, d_length, d_rate;
};
ImpactForce impact_force(const ImpactLaw& law, double free_length, double length, double rate);

// The potential of the elastic part, k (x1 - x)^(e+1) / (e + 1) for x < x1, else 0.
double impact_energy(const ImpactLaw& law, double free_length, double length);

}  // namespace catenary
