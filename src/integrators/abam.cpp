// ABAM: the Adams-Bashforth-Moulton predictor-corrector of order k (DynamicSettings::abam_order,
// 1 to 5) in PECE form, for the first-order form q' = v, v' = a(q, v, t) that rk4 and dopri5
// integrate (explicit_rk.cpp), a(q, v, t) and the multipliers from AccelerationSolve with the
// Baumgarte settings. With y = (q, v) and y' = (v, a), a step from t_n to t_n+1 = t_n + h:
//   P  y_p = y_n + sum_j beta_j y'_{n-j},         j = 0..k-1 (Adams-Bashforth, order k)
//   E  a_p = a(q_p, v_p, t_n+1)
//   C  y_c = y_n + beta*_0 y'_p + sum_j beta*_{j+1} y'_{n-j},   j = 0..k-2 (Adams-Moulton, order k)
//   E  a_c = a(q_c, v_c, t_n+1), the next step's y'_n+1 (StepState::a), after the projection of
//      (q_c, v_c) where the constraints are met by coordinate partitioning (explicit_rk.hpp)
// two acceleration solves a step (dopri5 takes six, rk4 four). The weights are the integrals over
// [t_n, t_n+1] of the Lagrange basis polynomials of the actual time points (adams_coefficients.hpp),
// so the step may change every step. Both formulas of order k: their local errors are
// C y^(k+1) times the integral of prod_j (s - t_j) over the step, I_p and I_c, and the
// corrector's error is (y_c - y_p) I_c / (I_p - I_c) (Milne's device; -19/270 (y_c - y_p) at
// order 4 and a constant step), on positions, and on velocities times h, as the other methods'.
//
// The order is fixed, not chosen per step (as ADAMS's and Shampine and Gordon's codes do): the
// method's order is then a stated, tested property, and the step control alone adapts. Orders
// above 5 are not offered: the stability region of the PECE pair shrinks with the order, and an
// explicit method's step is already set by the model's highest frequency. The start: the first
// k - 1 steps (after the initial state, and after an impact's velocity jump) are dopri5 steps
// (explicit_rk.cpp, on this stepper's constraints), whose local error, O(h^6), is below
// order k's for every k up to 5, so a fixed-step run converges with order k from the first step,
// and whose embedded estimate controls an adaptive start.
//
// The corrector is formed into to.history, which the explicit methods do not use otherwise, and
// swapped with the predictor once the difference is measured: ABAM holds no vectors beyond its
// history (k points of v and a), its solve's and dopri5's stages.
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "catenary/integrators/adams_coefficients.hpp"
#include "explicit_rk.hpp"

namespace catenary {

namespace {

// The PECE pair's stability on an undamped mode of frequency omega, z = i omega h at a constant
// step (the roots of its characteristic polynomial, the pair's weights of adams_weights): order 1
// damps it for omega h below 1.0, order 2 below 1.29; order 3 lets it grow by about 5e-5 a step at
// 0.2 and damps it from 0.43 to 1.17; order 4 lets it grow at any step, by 1e-5 a step at 0.2 and
// 0.12 at 1; order 5 damps it below 0.26 and lets it grow beyond (by 6e-4 a step at 0.5). On the
// negative real axis (damped modes, Baumgarte's) the limits are 1.0, 2.0, 1.73, 1.28 and 0.95.
// A resolved mode's growth is within the local error the step control bounds; an unresolved one
// (a cable's axial modes) makes the state grow until it is not finite.
constexpr const char* kLimit =
    "abam is stable on undamped modes only for h omega_max below about 1.0, 1.3, 1.2 and 0.26 at orders 1, 2, 3 "
    "and 5, while order 4 lets them grow slowly at any step";

struct Point {
  double t = 0.0;
  Vector v, a;  // y' = (v, a)
};

class ABAMStepper : public TimeStepper {
 public:
  ABAMStepper(System& sys, const DynamicSettings& s)
      : be_(sys.backend()), s_(s), n_(sys.dofs()), constraints_(sys, s),
        start_(make_dopri5_stepper(sys, s, constraints_)) {}

  // The accelerations with the Baumgarte terms (dopri5's start), and a history from this point on.
  void start(StepState& state) override {
    start_->start(state);
    history_.clear();
  }

  StepOutcome step(const StepState& from, double h, StepState& to) override {
    const int k = s_.abam_order;
    by_start_ = static_cast<int>(history_.size()) < k;
    if (by_start_) return start_->step(from, h, to);
    const double t1 = from.t + h;
    std::vector<double> past, corrector = {t1};
    for (int j = 0; j < k; ++j) past.push_back(history_[j].t);
    for (int j = 0; j + 1 < k; ++j) corrector.push_back(history_[j].t);
    const AdamsWeights p = adams_weights(past, from.t, t1), c = adams_weights(corrector, from.t, t1);
    const double milne = std::abs(c.error / (p.error - c.error));
    return explicit_step(
        be_,
        [&] {
          integrate(from.q, nullptr, p.w, &Point::v, to.q);
          integrate(from.v, nullptr, p.w, &Point::a, to.v);
          constraints_.accelerations.solve(to.q, to.v, t1, to.a, to.lambda);
          integrate(from.q, &to.v, c.w, &Point::v, to.history);
          const double position = be_.weighted_difference_norm(milne, to.history, to.q, to.history, s_.error_tolerance);
          to.q.swap(to.history);
          integrate(from.v, &to.a, c.w, &Point::a, to.history);
          const double velocity =
              be_.weighted_difference_norm(milne * h, to.history, to.v, to.q, s_.error_tolerance);
          to.v.swap(to.history);
          error_ = std::max(position, velocity);
          to.t = t1;
          constraints_.finish(to);
        },
        to, kLimit);
  }

  double error_estimate(const StepState& from, const StepState& to, double h) override {
    return by_start_ ? start_->error_estimate(from, to, h) : error_;
  }

  double error_exponent() const override {
    return by_start_ ? start_->error_exponent() : 1.0 / (s_.abam_order + 1);
  }

  void accepted(const StepState& state) override {
    Point point;
    if (static_cast<int>(history_.size()) == s_.abam_order) {  // reuse the oldest point's storage
      point = std::move(history_.back());
      history_.pop_back();
    } else {
      point.v = be_.make_vector(n_);
      point.a = be_.make_vector(n_);
    }
    point.t = state.t;
    be_.copy(state.v, point.v);
    be_.copy(state.a, point.a);
    history_.push_front(std::move(point));
  }

  std::vector<int> unsettled_coordinates(const StepState&) override { return {}; }

  // The accepted points, newest first, and the partition where there is one.
  void save(StateRecord& record) override {
    constraints_.save(record);
    Eigen::VectorXd x;
    record.set("abam.points", static_cast<double>(history_.size()));
    for (size_t j = 0; j < history_.size(); ++j) {
      const std::string at = "abam.point." + std::to_string(j);
      record.set(at + ".t", history_[j].t);
      be_.download(history_[j].v, x);
      record.set(at + ".v", x);
      be_.download(history_[j].a, x);
      record.set(at + ".a", x);
    }
  }

  void restore(const StateRecord& record) override {
    const long points = record.count("abam.points");
    if (points < 1 || points > s_.abam_order)
      throw CheckpointError("the checkpoint's ABAM history holds " + std::to_string(points) +
                            " points; this run of order " + std::to_string(s_.abam_order) + " keeps 1 to " +
                            std::to_string(s_.abam_order));
    constraints_.restore(record);
    history_.clear();
    for (long j = 0; j < points; ++j) {
      const std::string at = "abam.point." + std::to_string(j);
      Point point;
      point.t = record.number(at + ".t");
      point.v = be_.make_vector(n_);
      point.a = be_.make_vector(n_);
      be_.upload(record.vector(at + ".v", n_), point.v);
      be_.upload(record.vector(at + ".a", n_), point.a);
      history_.push_back(std::move(point));
    }
  }

 private:
  // out = y_n + w_0 x_new + sum_j w_{j+o} history_[j].*field over the weights w, o = 1 with
  // x_new (the corrector's y'_p), else 0 (the predictor).
  void integrate(const Vector& y_n, const Vector* x_new, const std::vector<double>& w, Vector Point::*field,
                 Vector& out) {
    std::vector<Scaled> terms = {{1.0, &y_n}};
    const size_t o = x_new ? 1 : 0;
    if (x_new) terms.push_back({w[0], x_new});
    for (size_t j = 0; j + o < w.size(); ++j) terms.push_back({w[j + o], &(history_[j].*field)});
    be_.combine(terms, out);
  }

  BackendVectors& be_;
  const DynamicSettings& s_;
  const int n_;
  ExplicitConstraints constraints_;
  std::unique_ptr<TimeStepper> start_;  // dopri5, for the first k - 1 steps
  std::deque<Point> history_;            // accepted points, newest first, at most k
  bool by_start_ = false;                // the last step was dopri5's
  double error_ = 0.0;                   // the last Adams step's error estimate
};

}  // namespace

std::unique_ptr<TimeStepper> make_abam_stepper(System& sys, const DynamicSettings& s) {
  return std::make_unique<ABAMStepper>(sys, s);
}

}  // namespace catenary
