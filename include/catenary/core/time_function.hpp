#pragma once
// Scalar functions of time used for prescribed motion and load histories, with their first
// and second derivatives (the constraint velocity and acceleration right-hand sides need them).
#include <memory>
#include <string>
#include <vector>

namespace catenary {

// A sampled history (a platform's measured motion, a recorded load) as the natural cubic spline
// through its samples: continuous with its first and second derivatives (the constraints'
// acceleration right-hand sides read the second), its second derivative zero at the ends.
// Before the first sample and after the last it holds the end value, at rest.
struct TimeTable {
  std::vector<double> times, values;  // times strictly increasing, at least two
  std::vector<double> curvatures;     // the spline's second derivative at each sample
  // Throws std::invalid_argument for fewer than two samples, times that do not increase, or values
  // that are not finite.
  TimeTable(std::vector<double> times, std::vector<double> values);
  // The spline's value, first and second derivative at t (derivative 0, 1 or 2).
  double at(double t, int derivative) const;
};

// A coordinate of a body that a coupling program moves (run/coupled_run.hpp): the cubic Hermite
// through (t0, x0) and (t1, x1) with slopes rate0 and rate1, which the program sets anew before
// each advance from t0 to t1 (its kinematics at t1; at t0 the path's end before). Position,
// velocity and acceleration are continuous within an advance; the acceleration jumps between
// advances, as a coupling step's given kinematics leave it. Outside [t0, t1]: the straight line
// on from the nearer end at its rate.
struct CoupledPath {
  double t0 = 0.0, t1 = 0.0, x0 = 0.0, x1 = 0.0, rate0 = 0.0, rate1 = 0.0;
  double at(double t, int derivative) const;
};

// ADAMS's STEP: h0 for x <= x0, h1 for x >= x1, and the cubic h0 + (h1 - h0) s^2 (3 - 2 s),
// s = (x - x0) / (x1 - x0), between (continuous with its first derivative); or its first or
// second derivative in x (derivative 0, 1 or 2).
double smooth_step(double x, double x0, double h0, double x1, double h1, int derivative = 0);

// ADAMS's STEP5: as STEP with the quintic h0 + (h1 - h0) s^3 (10 - 15 s + 6 s^2) (the quintic
// ramp of core/quintic_ramp.hpp over [x0, x1]), continuous with its first and second
// derivatives; or its first or second derivative in x (derivative 0, 1 or 2).
double quintic_step(double x, double x0, double h0, double x1, double h1, int derivative = 0);

struct TimeFunction {
  enum class Kind { Constant, LinearRamp, Harmonic, SmoothStep, Step5, Table, Coupled };
  Kind kind = Kind::Constant;
  // Constant: value = v0.
  // LinearRamp: v0 before t0, linear to v1 at t1, v1 after (continuous, kinked).
  // SmoothStep: v0 before t0, cubic 3x^2 - 2x^3 blend to v1 at t1, v1 after (ADAMS STEP).
  // Step5: the same with the quintic 10x^3 - 15x^4 + 6x^5 blend (ADAMS STEP5).
  // Harmonic: R(t) (v0 + amplitude * sin(2 pi frequency t + phase)).
  // Table: R(t) s(t), s the table's spline.
  // Coupled: the path's value (shared with the coupling program, which moves it between advances).
  // R is the quintic ramp over [0, ramp] (core/quintic_ramp.hpp; 1 when ramp = 0): a history or
  // an oscillation that does not start at rest is taken in without a jolt.
  double v0 = 0.0, v1 = 0.0, t0 = 0.0, t1 = 0.0;
  double amplitude = 0.0, frequency = 0.0, phase = 0.0;
  std::shared_ptr<const TimeTable> table;
  std::shared_ptr<const CoupledPath> path;
  double ramp = 0.0;

  static TimeFunction constant(double value);
  static TimeFunction of_table(std::shared_ptr<const TimeTable> table, double ramp);
  static TimeFunction of_path(std::shared_ptr<const CoupledPath> path);
  double value(double t) const;
  double first_derivative(double t) const;
  double second_derivative(double t) const;
};

}  // namespace catenary
