#pragma once
// The quintic ramp R(t) = 10 x^3 - 15 x^4 + 6 x^5, x = t / ramp, from 0 at t = 0 to 1 at t = ramp
// (0 before, 1 after; 1 throughout when ramp <= 0), continuous with its first two derivatives: a
// history, a prescribed path or the waves taken in without a jolt. Host and device code.
#include "catenary/core/host_device.hpp"

namespace catenary {

// R(t) or its first or second derivative (derivative 0, 1 or 2).
CATENARY_HD double quintic_ramp(double t, double ramp, int derivative = 0) {
  if (!(ramp > 0.0) || t >= ramp) return derivative == 0 ? 1.0 : 0.0;
  if (t <= 0.0) return 0.0;
  const double x = t / ramp;
  if (derivative == 0) return x * x * x * (10.0 - 15.0 * x + 6.0 * x * x);
  if (derivative == 1) return 30.0 * x * x * (1.0 - x) * (1.0 - x) / ramp;
  return 60.0 * x * (1.0 - x) * (1.0 - 2.0 * x) / (ramp * ramp);
}

}  // namespace catenary
