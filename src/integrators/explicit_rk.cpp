// Explicit Runge-Kutta methods for the first-order form q' = v, v' = a(q, v, t), with a(q, v, t)
// and the multipliers from the equations of motion and Baumgarte's stabilized acceleration
// constraints (AccelerationSolve, accelerations.hpp): a mass-matrix factorization and one solve
// per stage, no Newton iteration. Stage i at t_i = t_n + c_i h:
//   Q_i = q_n + h sum_{j<i} a_ij V_j,  V_i = v_n + h sum_{j<i} a_ij A_j,  A_i = a(Q_i, V_i, t_i),
// the result q_n+1 = q_n + h sum_j b_j V_j, v_n+1 = v_n + h sum_j b_j A_j, and its accelerations
// a(q_n+1, v_n+1, t_n+1) the next step's first stage (StepState::a).
//
// The constraints are met only as the stabilized acceleration constraints
// Phi'' + 2 alpha Phi' + beta^2 Phi = 0 hold along the motion: with alpha = beta = 0 the
// positions and velocities drift off Phi = 0 and Phi' = 0 at the method's truncation error, which
// adds up over the run; alpha, beta > 0 (DynamicSettings) damp that drift back.
//
// The tableaus:
//   rk4, classical Runge-Kutta of order 4, fixed step: c = (0, 1/2, 1/2, 1), a_21 = a_32 = 1/2,
//     a_43 = 1, b = (1, 2, 2, 1) / 6. No error estimate: no adaptive step.
//   dopri5, Dormand and Prince's 5(4) pair (J. Comput. Appl. Math. 6, 1980; Hairer, Norsett and
//     Wanner I, II.5): 7 stages, first same as last (the seventh is at the result, a_7j = b_j, so
//     the result's accelerations are its last stage), order 5 with an embedded solution of order
//     4 whose difference h sum_j d_j (V_j, A_j), d = b - b^, is the local error estimate: on
//     positions, and on velocities times h, as SDIRK's.
// Explicit methods are stable only for short steps: on an undamped mode of frequency omega the
// stability polynomial R(i omega h) stays within the unit circle up to omega h = 2.83 for rk4,
// and only up to 1.0 for dopri5 (R(z) = sum_{k<=5} z^k / k! + z^6 / 600: |R| = 1.003 at 1.5,
// 1.03 at 2), whose longer limit, 3.3, is on the real axis (damped modes). The highest frequency
// of the model, a cable's axial modes, sets the step.
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "explicit_rk.hpp"

#include "catenary/core/errors.hpp"

namespace catenary {

namespace {

struct Tableau {
  std::vector<double> c;
  std::vector<std::vector<double>> a;  // a[i][j], j < i
  std::vector<double> b;
  std::vector<double> d;  // b - b^ of the embedded solution; empty: none
  bool fsal = false;      // the last stage is the result
  const char* limit = "";  // the stability limit on undamped modes, in words
};

Tableau rk4_tableau() {
  Tableau t;
  t.c = {0.0, 0.5, 0.5, 1.0};
  t.a = {{}, {0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}};
  t.b = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  t.limit = "rk4 is stable only for h omega_max below about 2.8";
  return t;
}

Tableau dopri5_tableau() {
  Tableau t;
  t.c = {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0};
  t.b = {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0.0};
  t.a = {{},
         {1.0 / 5},
         {3.0 / 40, 9.0 / 40},
         {44.0 / 45, -56.0 / 15, 32.0 / 9},
         {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
         {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
         {t.b.begin(), t.b.end() - 1}};
  t.d = {71.0 / 57600, 0.0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40};
  t.fsal = true;
  t.limit = "dopri5 is stable on undamped modes only for h omega_max below about 1";
  return t;
}

class ExplicitRKStepper : public TimeStepper {
 public:
  // With `shared`, the stages solve through the caller's constraints (their vectors, Baumgarte
  // settings and partition), else through the stepper's own.
  ExplicitRKStepper(System& sys, const DynamicSettings& s, Tableau tableau, ExplicitConstraints* shared)
      : be_(sys.backend()), s_(s), tableau_(std::move(tableau)),
        own_(shared ? nullptr : std::make_unique<ExplicitConstraints>(sys, s)), constraints_(shared ? *shared : *own_),
        accelerations_(constraints_.accelerations), work_(be_.make_vector(sys.dofs())) {
    for (int i = 1; i < kept_stages() + 1; ++i) {
      stage_v_.push_back(be_.make_vector(sys.dofs()));
      stage_a_.push_back(be_.make_vector(sys.dofs()));
    }
  }

  // The first stage's accelerations with the Baumgarte terms (the initial state's have none).
  void start(StepState& state) override { accelerations_.solve(state.q, state.v, state.t, state.a, state.lambda); }

  StepOutcome step(const StepState& from, double h, StepState& to) override {
    return explicit_step(
        be_,
        [&] {
          for (int i = 1; i <= kept_stages(); ++i) {
            combine_stages(from, h, tableau_.a[i], i, to);
            accelerations_.solve(to.q, to.v, from.t + tableau_.c[i] * h, stage_a_[i - 1], to.lambda);
            stage_v_[i - 1].swap(to.v);
          }
          combine_stages(from, h, tableau_.b, kept_stages() + 1, to);
          to.t = from.t + h;
          constraints_.finish(to);
        },
        to, tableau_.limit);
  }

  double error_estimate(const StepState& from, const StepState& to, double h) override {
    if (tableau_.d.empty()) return 0.0;
    const double position = estimate_sum(h, from.v, stage_v_, to.v, to.q);
    const double velocity = estimate_sum(h * h, from.a, stage_a_, to.a, to.q);
    return std::max(position, velocity);
  }

  double error_exponent() const override { return 1.0 / 5.0; }

  std::vector<int> unsettled_coordinates(const StepState&) override { return {}; }

  // The partition, where the constraints are the stepper's own.
  void save(StateRecord& record) override {
    if (own_) own_->save(record);
  }
  void restore(const StateRecord& record) override {
    if (own_) own_->restore(record);
  }

 private:
  // The stages between the first (the step's start) and the result, whose V and A are kept.
  int kept_stages() const {
    return static_cast<int>(tableau_.c.size()) - (tableau_.fsal ? 2 : 1);
  }

  // to.q = q_n + h sum_j w_j V_j and to.v = v_n + h sum_j w_j A_j over the first `count` stages.
  void combine_stages(const StepState& from, double h, const std::vector<double>& w, int count, StepState& to) {
    std::vector<Scaled> q = {{1.0, &from.q}}, v = {{1.0, &from.v}};
    for (int j = 0; j < count; ++j) {
      if (w[j] == 0.0) continue;
      q.push_back({h * w[j], j == 0 ? &from.v : &stage_v_[j - 1]});
      v.push_back({h * w[j], j == 0 ? &from.a : &stage_a_[j - 1]});
    }
    be_.combine(q, to.q);
    be_.combine(v, to.v);
  }

  // The weighted norm of scale sum_j d_j X_j at x: X_0 = first, then the kept stages, the last
  // stage's X being `last`.
  double estimate_sum(double scale, const Vector& first, const std::vector<Vector>& kept, const Vector& last,
                      const Vector& x) {
    std::vector<Scaled> terms = {{scale * tableau_.d[0], &first}};
    for (size_t j = 0; j < kept.size(); ++j)
      if (tableau_.d[j + 1] != 0.0) terms.push_back({scale * tableau_.d[j + 1], &kept[j]});
    terms.push_back({scale * tableau_.d.back(), &last});
    return weighted_sum_norm(be_, terms, work_, x, s_.error_tolerance);
  }

  BackendVectors& be_;
  const DynamicSettings& s_;
  const Tableau tableau_;
  std::unique_ptr<ExplicitConstraints> own_;
  ExplicitConstraints& constraints_;
  AccelerationSolve& accelerations_;
  std::vector<Vector> stage_v_, stage_a_;  // V_i and A_i of the kept stages
  Vector work_;                            // the error estimate's sum
};

}  // namespace

ExplicitConstraints::ExplicitConstraints(System& sys, const DynamicSettings& s)
    : accelerations(sys, s.baumgarte_alpha, s.baumgarte_beta),
      partitioning(s.partitioning ? std::make_unique<CoordinatePartitioning>(sys) : nullptr) {}

void ExplicitConstraints::finish(StepState& to) {
  if (partitioning) partitioning->project(to.t, to.q, to.v);
  accelerations.solve(to.q, to.v, to.t, to.a, to.lambda);
}

void ExplicitConstraints::save(StateRecord& record) const {
  if (partitioning) partitioning->save(record);
}

void ExplicitConstraints::restore(const StateRecord& record) {
  if (partitioning) partitioning->restore(record);
}

StepOutcome explicit_step(BackendVectors& be, const std::function<void()>& solves, const StepState& to,
                          const char* limit) {
  const std::string too_long =
      std::string("explicit step too long for the model's highest frequency (") + limit + ")";
  StepOutcome out;
  try {
    solves();
  } catch (const SimulationError& e) {  // a stage's mass matrix with the constraint rows singular
    out.failure = NewtonFailure::Singular;
    out.why = std::string(e.what()) + " at an explicit stage (where the motion grew before it: " + too_long + ")";
    return out;
  }
  double maxima[3];
  be.max_abs_each({&to.q, &to.v, &to.a}, maxima);
  if (!std::isfinite(maxima[0] + maxima[1] + maxima[2])) {
    out.failure = NewtonFailure::ResidualNotFinite;
    out.why = "the state is not finite after the step: " + too_long;
    return out;
  }
  out.converged = true;
  return out;
}

std::unique_ptr<TimeStepper> make_explicit_rk_stepper(System& sys, const DynamicSettings& s) {
  return std::make_unique<ExplicitRKStepper>(
      sys, s, s.integrator == DynamicSettings::Integrator::DOPRI5 ? dopri5_tableau() : rk4_tableau(), nullptr);
}

std::unique_ptr<TimeStepper> make_dopri5_stepper(System& sys, const DynamicSettings& s,
                                                 ExplicitConstraints& constraints) {
  return std::make_unique<ExplicitRKStepper>(sys, s, dopri5_tableau(), &constraints);
}

}  // namespace catenary
