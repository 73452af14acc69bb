#include "catenary/core/time_function.hpp"

#include "catenary/core/quintic_ramp.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace catenary {

namespace {
constexpr double kTwoPi = 6.283185307179586476925286766559;

// A harmonic's or a table's value s(t) or its derivative, before the ramp.
double unramped(const TimeFunction& f, double t, int derivative) {
  if (f.kind == TimeFunction::Kind::Table) return f.table->at(t, derivative);
  const double w = kTwoPi * f.frequency, angle = w * t + f.phase;
  if (derivative == 0) return f.v0 + f.amplitude * std::sin(angle);
  if (derivative == 1) return f.amplitude * w * std::cos(angle);
  return -f.amplitude * w * w * std::sin(angle);
}

// f = R s, f' = R' s + R s', f'' = R'' s + 2 R' s' + R s'' (R the quintic ramp).
double ramped(const TimeFunction& f, double t, int derivative) {
  const double s = unramped(f, t, 0);
  if (derivative == 0) return quintic_ramp(t, f.ramp, 0) * s;
  const double ds = unramped(f, t, 1);
  if (derivative == 1) return quintic_ramp(t, f.ramp, 1) * s + quintic_ramp(t, f.ramp, 0) * ds;
  return quintic_ramp(t, f.ramp, 2) * s + 2.0 * quintic_ramp(t, f.ramp, 1) * ds +
         quintic_ramp(t, f.ramp, 0) * unramped(f, t, 2);
}

}  // namespace

// The natural spline's second derivatives M solve the tridiagonal system
//   h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (d_i - d_{i-1}),  M_0 = M_{n-1} = 0,
// with h_i = t_{i+1} - t_i and d_i = (y_{i+1} - y_i) / h_i, by the Thomas algorithm: O(n) for the
// hundred thousand samples of a three-hour record, where Eigen's SplineFitting solves a dense
// n x n system.
TimeTable::TimeTable(std::vector<double> t, std::vector<double> y)
    : times(std::move(t)), values(std::move(y)), curvatures(times.size(), 0.0) {
  const size_t n = times.size();
  if (n < 2 || values.size() != n) throw std::invalid_argument("a table needs at least two samples, as many values as times");
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(times[i]) || !std::isfinite(values[i]))
      throw std::invalid_argument("sample " + std::to_string(i) + " is not a finite number");
    if (i > 0 && !(times[i] > times[i - 1]))
      throw std::invalid_argument("the times must increase: sample " + std::to_string(i) + " at " +
                                  std::to_string(times[i]) + " s follows " + std::to_string(times[i - 1]) + " s");
  }
  if (n < 3) return;
  std::vector<double> diagonal(n, 1.0), upper(n, 0.0), rhs(n, 0.0);
  for (size_t i = 1; i + 1 < n; ++i) {
    const double h0 = times[i] - times[i - 1], h1 = times[i + 1] - times[i];
    const double lower = h0;
    diagonal[i] = 2.0 * (h0 + h1);
    upper[i] = h1;
    rhs[i] = 6.0 * ((values[i + 1] - values[i]) / h1 - (values[i] - values[i - 1]) / h0);
    // Eliminate the lower entry with row i - 1 (row 0 is M_0 = 0).
    const double factor = lower / diagonal[i - 1];
    diagonal[i] -= factor * upper[i - 1];
    rhs[i] -= factor * rhs[i - 1];
  }
  for (size_t i = n - 2; i >= 1; --i) curvatures[i] = (rhs[i] - upper[i] * curvatures[i + 1]) / diagonal[i];
}

double TimeTable::at(double t, int derivative) const {
  if (t <= times.front()) return derivative == 0 ? values.front() : 0.0;
  if (t >= times.back()) return derivative == 0 ? values.back() : 0.0;
  const size_t i = static_cast<size_t>(std::upper_bound(times.begin(), times.end(), t) - times.begin()) - 1;
  const double h = times[i + 1] - times[i], a = (times[i + 1] - t) / h, b = 1.0 - a;
  const double m0 = curvatures[i], m1 = curvatures[i + 1];
  if (derivative == 0) return a * values[i] + b * values[i + 1] + ((a * a * a - a) * m0 + (b * b * b - b) * m1) * h * h / 6.0;
  if (derivative == 1)
    return (values[i + 1] - values[i]) / h - (3.0 * a * a - 1.0) * h * m0 / 6.0 + (3.0 * b * b - 1.0) * h * m1 / 6.0;
  return a * m0 + b * m1;
}

TimeFunction TimeFunction::of_table(std::shared_ptr<const TimeTable> table, double ramp) {
  TimeFunction f;
  f.kind = Kind::Table;
  f.table = std::move(table);
  f.ramp = ramp;
  return f;
}

// The Hermite basis on s = (t - t0) / h: x = h00 x0 + h10 h r0 + h01 x1 + h11 h r1, its
// derivatives by d/dt = (1 / h) d/ds.
double CoupledPath::at(double t, int derivative) const {
  const double h = t1 - t0;
  if (!(h > 0.0) || t <= t0) return derivative == 0 ? x0 + rate0 * (t - t0) : derivative == 1 ? rate0 : 0.0;
  if (t >= t1) return derivative == 0 ? x1 + rate1 * (t - t1) : derivative == 1 ? rate1 : 0.0;
  const double s = (t - t0) / h, s2 = s * s, s3 = s2 * s;
  const double a = h * rate0, b = h * rate1;
  if (derivative == 0)
    return (2 * s3 - 3 * s2 + 1) * x0 + (s3 - 2 * s2 + s) * a + (3 * s2 - 2 * s3) * x1 + (s3 - s2) * b;
  if (derivative == 1)
    return ((6 * s2 - 6 * s) * (x0 - x1) + (3 * s2 - 4 * s + 1) * a + (3 * s2 - 2 * s) * b) / h;
  return ((12 * s - 6) * (x0 - x1) + (6 * s - 4) * a + (6 * s - 2) * b) / (h * h);
}

TimeFunction TimeFunction::of_path(std::shared_ptr<const CoupledPath> path) {
  TimeFunction f;
  f.kind = Kind::Coupled;
  f.path = std::move(path);
  return f;
}

TimeFunction TimeFunction::constant(double value) {
  TimeFunction f;
  f.kind = Kind::Constant;
  f.v0 = value;
  return f;
}

double smooth_step(double x, double x0, double h0, double x1, double h1, int derivative) {
  if (x <= x0 || x >= x1) return derivative == 0 ? (x <= x0 ? h0 : h1) : 0.0;
  const double d = x1 - x0, s = (x - x0) / d;
  if (derivative == 0) return h0 + (h1 - h0) * s * s * (3.0 - 2.0 * s);
  if (derivative == 1) return (h1 - h0) * 6.0 * s * (1.0 - s) / d;
  return (h1 - h0) * 6.0 * (1.0 - 2.0 * s) / (d * d);
}

double quintic_step(double x, double x0, double h0, double x1, double h1, int derivative) {
  return (derivative == 0 ? h0 : 0.0) + (h1 - h0) * quintic_ramp(x - x0, x1 - x0, derivative);
}

double TimeFunction::value(double t) const {
  switch (kind) {
    case Kind::Constant: return v0;
    case Kind::LinearRamp:
      if (t <= t0) return v0;
      if (t >= t1) return v1;
      return v0 + (v1 - v0) * (t - t0) / (t1 - t0);
    case Kind::SmoothStep: return smooth_step(t, t0, v0, t1, v1);
    case Kind::Step5: return quintic_step(t, t0, v0, t1, v1);
    case Kind::Harmonic:
    case Kind::Table: return ramped(*this, t, 0);
    case Kind::Coupled: return path->at(t, 0);
  }
  return 0.0;
}

double TimeFunction::first_derivative(double t) const {
  switch (kind) {
    case Kind::Constant: return 0.0;
    case Kind::LinearRamp: return (t > t0 && t < t1) ? (v1 - v0) / (t1 - t0) : 0.0;
    case Kind::SmoothStep: return smooth_step(t, t0, v0, t1, v1, 1);
    case Kind::Step5: return quintic_step(t, t0, v0, t1, v1, 1);
    case Kind::Harmonic:
    case Kind::Table: return ramped(*this, t, 1);
    case Kind::Coupled: return path->at(t, 1);
  }
  return 0.0;
}

double TimeFunction::second_derivative(double t) const {
  switch (kind) {
    case Kind::Constant:
    case Kind::LinearRamp: return 0.0;
    case Kind::SmoothStep: return smooth_step(t, t0, v0, t1, v1, 2);
    case Kind::Step5: return quintic_step(t, t0, v0, t1, v1, 2);
    case Kind::Harmonic:
    case Kind::Table: return ramped(*this, t, 2);
    case Kind::Coupled: return path->at(t, 2);
  }
  return 0.0;
}

}  // namespace catenary
