// BDF (Gear; GSTIFF-style, index 3) of orders 1 to 5 with variable step and order, for
//   M q'' + f(q, q') + C^T lambda = g(t),  C q = b(t).
//
// The step to t1 of order k uses the points t1, t_n, ..., t_{n-k+1} (bdf_coefficients.hpp):
//   v1 = alpha_0 q1 + sum_j alpha_j q_{n+1-j},   a1 = alpha_0 v1 + sum_j alpha_j v_{n+1-j},
// which is affine in q1: a1 = (q1 - qhat) alpha_0^2, v1 = vhat + a1 / alpha_0 with
//   qhat = -(alpha_0 qsum + vsum) / alpha_0^2,  vhat = -vsum / alpha_0.
// The equations of motion divided by alpha_0^2 are then the shared Newton step of
// time_stepper.hpp with s = 1 / alpha_0^2 and the Newton matrix M + K / alpha_0^2 + D / alpha_0.
//
// Error control (Milne's device): the predictor of degree k through the last k + 1 points gives
// the local error estimate (q1 - q_pred) / (k + 1), on positions, and on velocities times h.
// Order selection after k + 1 steps at one order compares the backward-difference estimates
// |nabla^(j+1) q| / (j + 1) of orders j = k - 1, k, k + 1 and takes the one that allows the
// largest next step; a rejected step of order 3 or more drops and caps the order (see step()).
// With a fixed step (no "adaptive"), the order rises to max_order as the
// history fills, so the first steps are of lower order.
#include <algorithm>
#include <cmath>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "catenary/integrators/bdf_coefficients.hpp"
#include "time_stepper.hpp"

namespace catenary {

namespace {

struct HistoryPoint {
  double t = 0.0;
  Vector q, v;
};

class BDFStepper : public TimeStepper {
 public:
  BDFStepper(System& sys, const DynamicSettings& s) : be_(sys.backend()), s_(s), newton_(sys, s) {
    for (Vector* x : {&qsum_, &vsum_, &pred_q_, &pred_v_, &work_}) *x = be_.make_vector(sys.dofs());
    capacity_ = s.max_order + 2;  // order k+1's estimate needs k + 3 points, the new one included
  }

  void start(StepState&) override {
    history_.clear();
    order_ = 1;
    steps_at_order_ = 0;
    order_cap_ = s_.max_order;
    clean_steps_ = 0;
    last_start_ = -INFINITY;
  }

  StepOutcome step(const StepState& from, double h, StepState& to) override {
    const double t1 = from.t + h;
    // A rejected step of order 3 or more drops the order and caps it for a while: those orders
    // are not A-stable, lightly damped modes near the imaginary axis grow under them, and error
    // control alone then drives the step towards zero. The cap rises again after 20 clean steps.
    if (from.t == last_start_ && order_ >= 3) {
      order_cap_ = --order_;
      steps_at_order_ = 0;
      clean_steps_ = 0;
    }
    last_start_ = from.t;
    const int k = std::min(order_, static_cast<int>(history_.size()));
    used_order_ = k;
    std::vector<double> times = {t1};
    for (int j = 0; j < k; ++j) times.push_back(history_[j].t);
    const std::vector<double> alpha = derivative_weights(times);
    const double a0 = alpha[0];
    combine_history(alpha, 1, k, qsum_, vsum_);
    be_.combine(Combinations({&qsum_, &vsum_})
                    .into(newton_.qhat(), {-1.0 / a0, -1.0 / (a0 * a0)})
                    .into(newton_.vhat(), {0.0, -1.0 / a0}));
    predict(from, t1, k);

    NewmarkParameters p;
    p.c.mass = 1.0;
    p.c.stiffness = 1.0 / (a0 * a0);
    p.c.damping = 1.0 / a0;
    p.c.constraint = 1.0;
    p.residual_unit = p.c.stiffness;
    return newton_.solve_affine(p, t1, 1.0 / (a0 * a0), 1.0 / a0, from.lambda, nullptr, to,
                                [&] { be_.copy(pred_q_, to.q); });
  }

  double error_estimate(const StepState&, const StepState& to, double h) override {
    const double c = 1.0 / (used_order_ + 1);
    const double position = be_.weighted_difference_norm(c, to.q, pred_q_, to.q, s_.error_tolerance);
    const double velocity = be_.weighted_difference_norm(c * h, to.v, pred_v_, to.q, s_.error_tolerance);
    return std::max(position, velocity);
  }

  double error_exponent() const override { return 1.0 / (used_order_ + 1); }

  void accepted(const StepState& state) override {
    HistoryPoint point;
    if (static_cast<int>(history_.size()) == capacity_) {  // reuse the oldest point's storage
      point = std::move(history_.back());
      history_.pop_back();
    } else {
      point.q = be_.make_vector(state.q.size());
      point.v = be_.make_vector(state.v.size());
    }
    point.t = state.t;
    be_.copy(state.q, point.q);
    be_.copy(state.v, point.v);
    history_.push_front(std::move(point));
    choose_order();
  }

  std::vector<int> unsettled_coordinates(const StepState& trial) override {
    return newton_.unsettled_coordinates(trial.q);
  }

  // The accepted points (newest first), the order selection's counters and modified Newton's
  // factorization.
  void save(StateRecord& record) override {
    Eigen::VectorXd x;
    record.set("bdf.points", static_cast<double>(history_.size()));
    for (size_t j = 0; j < history_.size(); ++j) {
      const std::string at = "bdf.point." + std::to_string(j);
      record.set(at + ".t", history_[j].t);
      be_.download(history_[j].q, x);
      record.set(at + ".q", x);
      be_.download(history_[j].v, x);
      record.set(at + ".v", x);
    }
    const std::pair<const char*, int> counters[] = {{"bdf.order", order_},
                                                    {"bdf.used_order", used_order_},
                                                    {"bdf.steps_at_order", steps_at_order_},
                                                    {"bdf.order_cap", order_cap_},
                                                    {"bdf.clean_steps", clean_steps_}};
    for (const auto& [key, value] : counters) record.set(key, static_cast<double>(value));
    record.set("bdf.last_start", last_start_);
    newton_.save(record);
  }

  void restore(const StateRecord& record) override {
    const long points = record.count("bdf.points");
    if (points < 1 || points > capacity_)
      throw CheckpointError("the checkpoint's BDF history holds " + std::to_string(points) + " points; this run keeps 1 to " +
                            std::to_string(capacity_));
    history_.clear();
    for (long j = 0; j < points; ++j) {
      const std::string at = "bdf.point." + std::to_string(j);
      HistoryPoint point;
      point.t = record.number(at + ".t");
      point.q = be_.make_vector(pred_q_.size());
      point.v = be_.make_vector(pred_q_.size());
      be_.upload(record.vector(at + ".q", pred_q_.size()), point.q);
      be_.upload(record.vector(at + ".v", pred_q_.size()), point.v);
      history_.push_back(std::move(point));
    }
    const std::pair<const char*, int*> counters[] = {{"bdf.order", &order_},
                                                     {"bdf.used_order", &used_order_},
                                                     {"bdf.steps_at_order", &steps_at_order_},
                                                     {"bdf.order_cap", &order_cap_},
                                                     {"bdf.clean_steps", &clean_steps_}};
    for (const auto& [key, value] : counters) *value = static_cast<int>(record.count(key));
    if (order_ < 1 || order_ > s_.max_order || order_cap_ > s_.max_order)
      throw CheckpointError("the checkpoint's BDF order " + std::to_string(order_) + " is outside this run's 1 to " +
                            std::to_string(s_.max_order));
    last_start_ = record.number("bdf.last_start");
    newton_.restore(record);
  }

 private:
  // qs = sum_{j=first..last} w[j] q_{n+1-j}, vs likewise (history_[j-1] holds t_{n+1-j}): one
  // pass each (up to Combinations::kMaxInputs points: order 5's six).
  void combine_history(const std::vector<double>& w, int first, int last, Vector& qs, Vector& vs) {
    std::vector<Scaled> q_terms, v_terms;
    for (int j = first; j <= last; ++j) {
      q_terms.push_back({w[j], &history_[j - 1].q});
      v_terms.push_back({w[j], &history_[j - 1].v});
    }
    be_.combine(q_terms, qs);
    be_.combine(v_terms, vs);
  }

  // Degree-k extrapolation of the last k + 1 points to t1; from a single point (the first step)
  // the line q0 + h v0, v0 + h a0.
  void predict(const StepState& from, double t1, int k) {
    const int points = std::min(k + 1, static_cast<int>(history_.size()));
    if (points == 1) {
      const double h = t1 - from.t;
      be_.combine(Combinations({&from.q, &from.v, &from.a}).into(pred_q_, {1.0, h, 0.0}).into(pred_v_, {0.0, 1.0, h}));
      return;
    }
    std::vector<double> times;
    for (int j = 0; j < points; ++j) times.push_back(history_[j].t);
    std::vector<double> w = interpolation_weights(times, t1);
    w.insert(w.begin(), 0.0);  // combine_history counts from 1
    combine_history(w, 1, points, pred_q_, pred_v_);
  }

  // |nabla^m q| / m at the newest point, from the divided difference over history_[0 .. m]
  // scaled by m! h^m (h the last step): the local error estimate of order m - 1.
  double backward_difference_error(int m) {
    const double h = history_[0].t - history_[1].t;
    double scale = 1.0;
    for (int i = 1; i <= m; ++i) scale *= i * h;
    std::vector<Scaled> terms;
    for (int j = 0; j <= m; ++j) {
      double w = scale;
      for (int i = 0; i <= m; ++i)
        if (i != j) w /= history_[j].t - history_[i].t;
      terms.push_back({w / m, &history_[j].q});
    }
    be_.combine(terms, work_);
    return be_.weighted_norm(work_, history_[0].q, s_.error_tolerance, nullptr);
  }

  void choose_order() {
    const int available = static_cast<int>(history_.size());
    if (!s_.adaptive) {  // fixed step: the highest order the history allows
      order_ = std::min(s_.max_order, available);
      return;
    }
    if (++clean_steps_ >= 20 && order_cap_ < s_.max_order) {
      ++order_cap_;
      clean_steps_ = 0;
    }
    const int k = order_;
    if (++steps_at_order_ < k + 1 || available < k + 2) return;
    // Step factor err^(-1/(j+1)) of each candidate order j; stay unless another wins by 20 %.
    auto factor = [](double err, int j) { return std::pow(std::max(err, 1e-10), -1.0 / (j + 1)); };
    int best = k;
    double best_factor = 1.2 * factor(backward_difference_error(k + 1), k);
    if (k > 1) {
      const double f = factor(backward_difference_error(k), k - 1);
      if (f > best_factor) best = k - 1, best_factor = f;
    }
    if (k < order_cap_ && available >= k + 3) {
      const double f = factor(backward_difference_error(k + 2), k + 1);
      if (f > best_factor) best = k + 1;
    }
    if (best != k) {
      order_ = best;
      steps_at_order_ = 0;
    }
  }

  BackendVectors& be_;  // the method uses the backend's vectors alone
  const DynamicSettings& s_;
  NewmarkNewton newton_;
  std::deque<HistoryPoint> history_;  // accepted points, newest first
  int capacity_ = 7, order_ = 1, used_order_ = 1, steps_at_order_ = 0;
  int order_cap_ = 5, clean_steps_ = 0;  // stability cap on the order after rejections
  double last_start_ = -INFINITY;  // start time of the last attempted step
  Vector qsum_, vsum_, pred_q_, pred_v_, work_;
};

}  // namespace

std::unique_ptr<TimeStepper> make_bdf_stepper(System& sys, const DynamicSettings& s) {
  return std::make_unique<BDFStepper>(sys, s);
}

}  // namespace catenary
