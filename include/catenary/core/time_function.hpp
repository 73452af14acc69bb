#pragma once
// Scalar functions of time used for prescribed motion and load histories, with their first
// and second derivatives (the constraint velocity and acceleration right-hand sides need them).
#include <string>

namespace catenary {

// ADAMS's STEP: h0 for x <= x0, h1 for x >= x1, and the cubic h0 + (h1 - h0) s^2 (3 - 2 s),
// s = (x - x0) / (x1 - x0), between (continuous with its first derivative).
double smooth_step(double x, double x0, double h0, double x1, double h1);

struct TimeFunction {
  enum class Kind { Constant, LinearRamp, Harmonic, SmoothStep };
  Kind kind = Kind::Constant;
  // Constant: value = v0.
  // LinearRamp: v0 before t0, linear to v1 at t1, v1 after (continuous, kinked).
  // SmoothStep: v0 before t0, cubic 3x^2 - 2x^3 blend to v1 at t1, v1 after (ADAMS STEP).
  // Harmonic: v0 + amplitude * sin(2 pi frequency t + phase).
  double v0 = 0.0, v1 = 0.0, t0 = 0.0, t1 = 0.0;
  double amplitude = 0.0, frequency = 0.0, phase = 0.0;

  static TimeFunction constant(double value);
  double value(double t) const;
  double first_derivative(double t) const;
  double second_derivative(double t) const;
};

}  // namespace catenary
