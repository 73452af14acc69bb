#include "catenary/core/time_function.hpp"

#include <cmath>

namespace catenary {

namespace {
constexpr double kTwoPi = 6.283185307179586476925286766559;
}

TimeFunction TimeFunction::constant(double value) {
  TimeFunction f;
  f.kind = Kind::Constant;
  f.v0 = value;
  return f;
}

double smooth_step(double x, double x0, double h0, double x1, double h1) {
  if (x <= x0) return h0;
  if (x >= x1) return h1;
  const double s = (x - x0) / (x1 - x0);
  return h0 + (h1 - h0) * s * s * (3.0 - 2.0 * s);
}

double TimeFunction::value(double t) const {
  switch (kind) {
    case Kind::Constant: return v0;
    case Kind::LinearRamp:
      if (t <= t0) return v0;
      if (t >= t1) return v1;
      return v0 + (v1 - v0) * (t - t0) / (t1 - t0);
    case Kind::SmoothStep: return smooth_step(t, t0, v0, t1, v1);
    case Kind::Harmonic: return v0 + amplitude * std::sin(kTwoPi * frequency * t + phase);
  }
  return 0.0;
}

double TimeFunction::first_derivative(double t) const {
  switch (kind) {
    case Kind::Constant: return 0.0;
    case Kind::LinearRamp: return (t > t0 && t < t1) ? (v1 - v0) / (t1 - t0) : 0.0;
    case Kind::SmoothStep: {
      if (t <= t0 || t >= t1) return 0.0;
      const double d = t1 - t0, x = (t - t0) / d;
      return (v1 - v0) * 6.0 * x * (1.0 - x) / d;
    }
    case Kind::Harmonic: {
      const double w = kTwoPi * frequency;
      return amplitude * w * std::cos(w * t + phase);
    }
  }
  return 0.0;
}

double TimeFunction::second_derivative(double t) const {
  switch (kind) {
    case Kind::Constant:
    case Kind::LinearRamp: return 0.0;
    case Kind::SmoothStep: {
      if (t <= t0 || t >= t1) return 0.0;
      const double d = t1 - t0, x = (t - t0) / d;
      return (v1 - v0) * 6.0 * (1.0 - 2.0 * x) / (d * d);
    }
    case Kind::Harmonic: {
      const double w = kTwoPi * frequency;
      return -amplitude * w * w * std::sin(w * t + phase);
    }
  }
  return 0.0;
}

}  // namespace catenary
