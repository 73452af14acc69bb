#pragma once
// The tension of a line at a point: the axial force its cross section carries, the derivative of
// the element's axial energy per reference length in the stretch lambda = |r'| / |r0'|, plus the
// Kelvin-Voigt part in its rate (gradient_deficient_math.hpp):
//   Reissner (eps = lambda - 1):             N = EA (eps + eta epsdot)
//   Green-Lagrange (eps = (lambda^2 - 1)/2): N = EA (eps + eta epsdot) lambda
// (the second is what the Green-Lagrange law's EA means: N = EA eps lambda, not EA (lambda - 1)).
// Host and device code.
#include <math.h>

#include "catenary/elements/gradient_deficient_math.hpp"

namespace catenary {

// N at a point where the slope is a = r', its rate adot and the reference slope a0 = r0'.
template <int D>
CATENARY_HD double axial_tension(const ElementProperties& p, const Vec<D>& a, const Vec<D>& adot, const Vec<D>& a0) {
  const double a0a0 = dot(a0, a0), aa = dot(a, a);
  if (!(a0a0 > 0.0) || !(aa > 0.0)) return 0.0;
  const double lambda = sqrt(aa / a0a0), lambda_rate = dot(a, adot) / (sqrt(aa) * sqrt(a0a0));
  if (reissner_law(p)) return p.EA * ((lambda - 1.0) + p.eta * lambda_rate);
  return p.EA * (0.5 * (lambda * lambda - 1.0) + p.eta * lambda * lambda_rate) * lambda;
}

}  // namespace catenary
