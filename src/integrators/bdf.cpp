// BDF (Gear; index 3 or stabilized index 2) of orders 1 to 5 with variable step and order, for
//   M q'' + f(q, q') + C^T lambda = g(t),  C q = b(t).
//
// The step to t1 of order k uses the points t1, t_n, ..., t_{n-k+1} (bdf_coefficients.hpp):
//   v1 = alpha_0 q1 + sum_j alpha_j q_{n+1-j},   a1 = alpha_0 v1 + sum_j alpha_j v_{n+1-j},
// which is affine in q1: a1 = (q1 - qhat) alpha_0^2, v1 = vhat + a1 / alpha_0 with
//   qhat = -(alpha_0 qsum + vsum) / alpha_0^2,  vhat = -vsum / alpha_0.
// The equations of motion divided by alpha_0^2 are then the shared Newton step of
// time_stepper.hpp with s = 1 / alpha_0^2 and the Newton matrix M + K / alpha_0^2 + D / alpha_0.
// The three coefficient forms (DynamicSettings::BdfCoefficients) differ only where the step
// changes: the variable form (ADAMS's WSTIFF) takes the alphas from the actual points; the fixed
// form (GSTIFF) re-interpolates the history onto an equal grid first (regrid_history); the fixed
// leading coefficient form (DASSL, DSTIFF) corrects the variable-step predictor with the
// equal-step alpha_0 (fixed_leading_corrector). On equal steps all three are one method.
//
// Error control (Milne's device): the predictor of degree k through the last k + 1 points gives
// the local error estimate (q1 - q_pred) / (k + 1), on positions, and on velocities times h.
// Order selection after k + 1 steps at one order compares the backward-difference estimates
// |nabla^(j+1) q| / (j + 1) of orders j = k - 1, k, k + 1 and takes the one that allows the
// largest next step; a rejected step of order 3 or more drops and caps the order (see step()).
// With a fixed step (no "adaptive"), the order rises to max_order as the
// history fills, so the first steps are of lower order.
//
// Orders on oscillations (adaptive step). Orders 3 to 5 are not A-stable: on an undamped
// oscillation of angular frequency w (z = i w h), order 3 amplifies for w h < 1.94, by
// (w h)^4 / 4 a step, order 4 for w h < 4.71, by (w h)^6 / 3, and order 5 for
// 0.71 < w h < 9.39, while below 0.71 order 5 damps, by (w h)^6 / 6 (orders 1 and 2 damp at any
// w h). A resolved undamped mode would grow under orders 3 and 4 at every step by about their
// local error, which the error control bounds per step, not summed over the run. The stepper
// therefore estimates the frequency of the oscillation that dominates the motion
// (oscillation_frequency(), from the history) and, where it finds one, uses orders 1, 2 and 5,
// order 5 up to w h = 0.6: order 5's error estimate is then at least (w h / 0.6)^6, so that the
// step control keeps it there, and the order selection weighs it at that step. Where the
// estimate finds no oscillation (a monotone motion, or a point where a damped stiff remnant
// dominates the differences), all orders. A rejection of order 5 within its limit on an
// oscillation is one of accuracy: the first only shrinks the step, a second drops and caps the
// order as step() does for orders 3 to 5. Measured on the stiff two-mass chain and the cables
// of test_bdf.cpp: docs/validation.md.
//
// What the tolerance bounds is each step's local error, in the weight tol (L + |x|)
// (element_assembly.hpp's weighted_entry). An undamped mode's local errors (of phase, and the
// damping of orders 1, 2 and 5) persist and add up, so over N steps its error grows to about N
// times a step's (the estimate itself is sound: on the chain's slow mode each step's true change
// of the modal amplitude is, in the median, the estimated one). Holding the sum would take error
// per unit step, which would also forbid the damping that removes an excited stiff mode.
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
    retries_ = 0;
    frequency_t_ = NAN;
  }

  StepOutcome step(const StepState& from, double h, StepState& to) override {
    const double t1 = from.t + h;
    // A rejected step of order 3 or more drops the order and caps it for a while: those orders
    // are not A-stable, lightly damped modes near the imaginary axis grow under them, and error
    // control alone then drives the step towards zero. The cap rises again after 20 clean steps.
    // Order 5 on an oscillation within its limit drops only at a second rejection of the step.
    retries_ = from.t == last_start_ ? retries_ + 1 : 0;
    if (retries_ > 0 && order_ >= 3 && (retries_ >= 2 || !(order_ == 5 && oscillation_frequency() > 0.0))) {
      order_cap_ = --order_;
      steps_at_order_ = 0;
      clean_steps_ = 0;
    }
    last_start_ = from.t;
    int k = std::min(order_, static_cast<int>(history_.size()));
    if (s_.adaptive && k >= 3 && !order_stable(k, h)) {  // orders 3 to 5 beyond their stability
      k = 2;
      order_ = 2;
      steps_at_order_ = 0;
    }
    used_order_ = k;
    if (s_.bdf_coefficients == DynamicSettings::BdfCoefficients::Fixed) regrid_history(h, k);
    predict(from, t1, k);
    const double a0 = s_.bdf_coefficients == DynamicSettings::BdfCoefficients::FixedLeading && history_.size() >= 2
                          ? fixed_leading_corrector(t1, k)
                          : interpolating_corrector(t1, k);

    NewmarkParameters p;
    p.c.mass = 1.0;
    p.c.stiffness = 1.0 / (a0 * a0);
    p.c.damping = 1.0 / a0;
    p.c.constraint = 1.0;
    p.residual_unit = p.c.stiffness;
    return newton_.solve_affine(p, t1, 1.0 / (a0 * a0), 1.0 / a0, from.lambda, nullptr, to,
                                [&] { be_.copy(pred_q_, to.q); });
  }

  // With order 5 on an oscillation, at least (w h / 0.6)^6, which stays at most 1 (step() takes
  // order 2 beyond 0.6) but makes the step control keep w h below 0.6.
  double error_estimate(const StepState&, const StepState& to, double h) override {
    const double c = 1.0 / (used_order_ + 1);
    const double position = be_.weighted_difference_norm(c, to.q, pred_q_, to.q, s_.error_tolerance);
    const double velocity = be_.weighted_difference_norm(c * h, to.v, pred_v_, to.q, s_.error_tolerance);
    double err = std::max(position, velocity);
    const double w = s_.adaptive && used_order_ == 5 ? oscillation_frequency() : -1.0;
    if (w > 0.0) err = std::max(err, std::pow(w * h / kOrder5Limit, 6));
    return err;
  }

  double error_exponent() const override { return 1.0 / (used_order_ + 1); }

  void accepted(const StepState& state) override {
    HistoryPoint point;
    if (static_cast<int>(history_.size()) == capacity_) {  // reuse the oldest point's storage
      point = std::move(history_.back());
      history_.pop_back();
    } else if (!spare_points_.empty()) {  // or that of one regrid_history dropped
      point = std::move(spare_points_.back());
      spare_points_.pop_back();
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
    retries_ = 0;
    frequency_t_ = NAN;
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

  // The corrector through the points themselves: v1 = a0 q1 + sum_j alpha_j q_{n+1-j},
  // a1 = a0 v1 + sum_j alpha_j v_{n+1-j}, as qhat and vhat; returns a0. On an equal grid (the
  // fixed form's history) these are the fixed coefficients.
  double interpolating_corrector(double t1, int k) {
    std::vector<double> times = {t1};
    for (int j = 0; j < k; ++j) times.push_back(history_[j].t);
    const std::vector<double> alpha = derivative_weights(times);
    const double a0 = alpha[0];
    combine_history(alpha, 1, k, qsum_, vsum_);
    be_.combine(Combinations({&qsum_, &vsum_})
                    .into(newton_.qhat(), {-1.0 / a0, -1.0 / (a0 * a0)})
                    .into(newton_.vhat(), {0.0, -1.0 / a0}));
    return a0;
  }

  // DASSL's fixed leading coefficient: with the predictor P (pred_q_, pred_v_ at t1) and its slopes
  // P' at t1, v1 = P_q'(t1) + c (q1 - P_q(t1)) and a1 = P_v'(t1) + c (v1 - P_v(t1)) with the
  // equal-step c = (1 + 1/2 + ... + 1/k) / h, that is a1 = c^2 (q1 - qhat), v1 = vhat + a1 / c with
  //   qhat = P_q - P_q' / c + P_v / c - P_v' / c^2,  vhat = P_v - P_v' / c.
  // Returns c. On equal steps it is the interpolating corrector (c is then its a0).
  double fixed_leading_corrector(double t1, int k) {
    const int points = std::min(k + 1, static_cast<int>(history_.size()));
    std::vector<double> times;
    for (int j = 0; j < points; ++j) times.push_back(history_[j].t);
    std::vector<double> slope = interpolation_derivative_weights(times, t1);
    slope.insert(slope.begin(), 0.0);  // combine_history counts from 1
    combine_history(slope, 1, points, qsum_, vsum_);
    double c = 0.0;
    for (int j = 1; j <= k; ++j) c += 1.0 / j;
    c /= t1 - history_[0].t;
    be_.combine(Combinations({&pred_q_, &pred_v_, &qsum_, &vsum_})
                    .into(newton_.qhat(), {1.0, 1.0 / c, -1.0 / c, -1.0 / (c * c)})
                    .into(newton_.vhat(), {0.0, 1.0, 0.0, -1.0 / c}));
    return c;
  }

  // GSTIFF's fixed coefficients keep the history on the grid t_n - j h of the coming step. At a
  // change of step the newest k + 2 points are re-interpolated onto the new grid by the polynomial
  // of degree k + 1 through them (what a Nordsieck array of order k holds, with the one further
  // column its order selection reads) and the older points are dropped. The polynomial is kept,
  // so a step retried with another h re-grids the same polynomial. The new values go through
  // scratch vectors, the q's and then the v's: the step's work vectors (free before its predictor
  // and corrector), the dropped points', and at order 5 with a full history one vector more
  // (backend_vectors.cpp counts it).
  void regrid_history(double h, int k) {
    if (history_.size() < 2 || std::fabs(history_[0].t - history_[1].t - h) <= 1e-12 * h) return;
    while (static_cast<int>(history_.size()) > k + 2) {
      spare_points_.push_back(std::move(history_.back()));
      history_.pop_back();
    }
    const int m = static_cast<int>(history_.size());
    std::vector<Vector*> scratch = {&qsum_, &vsum_, &pred_q_, &pred_v_, &work_};
    for (HistoryPoint& p : spare_points_) scratch.insert(scratch.end(), {&p.q, &p.v});
    while (static_cast<int>(scratch.size()) < m - 1) {
      regrid_extra_.push_back(be_.make_vector(qsum_.size()));
      scratch.push_back(&regrid_extra_.back());
    }
    std::vector<double> times;
    for (int j = 0; j < m; ++j) times.push_back(history_[j].t);
    for (Vector HistoryPoint::*field : {&HistoryPoint::q, &HistoryPoint::v}) {
      for (int j = 1; j < m; ++j) {
        const std::vector<double> w = interpolation_weights(times, times[0] - j * h);
        std::vector<Scaled> terms;
        for (int i = 0; i < m; ++i) terms.push_back({w[i], &(history_[i].*field)});
        be_.combine(terms, *scratch[j - 1]);
      }
      for (int j = 1; j < m; ++j) (history_[j].*field).swap(*scratch[j - 1]);
    }
    for (int j = 1; j < m; ++j) history_[j].t = times[0] - j * h;
    frequency_t_ = NAN;
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

  // m! h^m times the m-th divided difference of q over history_[first .. first + m] (h: the last
  // step), into out: nabla^m q for equal steps, h^m q^(m) for a smooth q.
  void scaled_difference(int first, int m, double h, Vector& out) {
    double scale = 1.0;
    for (int i = 1; i <= m; ++i) scale *= i * h;
    std::vector<Scaled> terms;
    for (int j = first; j <= first + m; ++j) {
      double w = scale;
      for (int i = first; i <= first + m; ++i)
        if (i != j) w /= history_[j].t - history_[i].t;
      terms.push_back({w, &history_[j].q});
    }
    be_.combine(terms, out);
  }

  // |nabla^m q| / m at the newest point: the local error estimate of order m - 1.
  double backward_difference_error(int m) {
    scaled_difference(0, m, history_[0].t - history_[1].t, work_);
    return be_.weighted_norm(work_, history_[0].q, s_.error_tolerance, nullptr) / m;
  }

  // The angular frequency of the oscillation that dominates the motion at the newest point, from
  // q^(m+2) = -w^2 q^(m): with A_m = nabla^(m+2) q over the m + 3 newest points and
  // B_m = nabla^m q over the middle m + 1 (centred alike), -A_m.B_m / B_m.B_m = 4 sin^2(w h / 2)
  // for a sampled oscillation of w h < pi. m = 1 and m = 2 together, weighted so that the sum
  // holds at any phase (the m = 1 part vanishes where q turns, the m = 2 part where it crosses
  // zero): the weight of m = 1 is the estimate itself, from a first pass that weighs both alike.
  // Low differences of positions, not velocities: a numerically damped stiff remnant far below
  // the tolerance still dominates high differences, and those of v. Negative where the
  // differences show no oscillation (a monotone or exponential motion); NaN while the history is
  // too short. qsum_ and vsum_, free between steps, hold A and B. Cached for the newest point.
  double oscillation_frequency() {
    if (history_.size() < 5) return NAN;
    if (frequency_t_ == history_[0].t) return frequency_;
    const double h = history_[0].t - history_[1].t;
    double ab[2], bb[2];  // -A_m.B_m and B_m.B_m of m = 1, 2
    for (int m = 1; m <= 2; ++m) {
      scaled_difference(0, m + 2, h, qsum_);
      scaled_difference(1, m, h, vsum_);
      ab[m - 1] = -be_.dot(qsum_, vsum_);
      bb[m - 1] = be_.dot(vsum_, vsum_);
    }
    double weight = bb[0] > 0.0 ? bb[1] / bb[0] : 0.0, w = -1.0;
    for (int pass = 0; pass < 3 && weight > 0.0; ++pass) {
      const double r = (weight * ab[0] + ab[1]) / (weight * bb[0] + bb[1]);
      w = r > 0.0 ? (r >= 4.0 ? M_PI : 2.0 * std::asin(0.5 * std::sqrt(r))) / h : -1.0;
      weight = r;
    }
    frequency_t_ = history_[0].t;
    frequency_ = w;
    return w;
  }

  // Whether order j may take a step of h (see the header); an unknown oscillation counts as one.
  bool order_stable(int j, double h) {
    if (j <= 2) return true;
    const double w = oscillation_frequency();
    if (w < 0.0) return true;
    return j == 5 && w * h <= kOrder5Limit;
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
    // Step factor err^(-1/(j+1)) of each candidate order j, for order 5 on an oscillation at most
    // that of its limit; stay unless another wins by 20 %. The candidates are the nearest orders
    // below and above k that the oscillation allows (order 5 always: its limit is in its factor).
    const double h = history_[0].t - history_[1].t, w = s_.max_order >= 3 ? oscillation_frequency() : -1.0;
    auto factor = [&](double err, int j) {
      const double f = std::pow(std::max(err, 1e-10), -1.0 / (j + 1));
      return j == 5 && w > 0.0 ? std::min(f, kOrder5Limit / (w * h)) : f;
    };
    auto allowed = [&](int j) { return j == 5 || order_stable(j, h); };
    int best = k;
    double best_factor = 1.2 * factor(backward_difference_error(k + 1), k);
    int lower = k - 1;
    while (lower > 2 && !allowed(lower)) --lower;
    if (lower >= 1) {
      const double f = factor(backward_difference_error(lower + 1), lower);
      if (f > best_factor) best = lower, best_factor = f;
    }
    int higher = k + 1;
    while (higher < order_cap_ && !allowed(higher)) ++higher;
    if (higher <= order_cap_ && allowed(higher) && available >= higher + 2) {
      const double f = factor(backward_difference_error(higher + 1), higher);
      if (f > best_factor) best = higher;
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
  int retries_ = 0;                // attempts of the current step after its first
  // Order 5's stability limit on an oscillation is w h = 0.71; 0.6 keeps it where the order damps
  // most (0.22 % a step).
  static constexpr double kOrder5Limit = 0.6;
  double frequency_t_ = NAN, frequency_ = -1.0;  // oscillation_frequency()'s, for the point at frequency_t_
  Vector qsum_, vsum_, pred_q_, pred_v_, work_;
  // The fixed form's: points regrid_history dropped (their storage kept for accepted()), and the
  // one scratch vector it may need beyond the others (a deque: the scratch list points into it).
  std::vector<HistoryPoint> spare_points_;
  std::deque<Vector> regrid_extra_;
};

}  // namespace

std::unique_ptr<TimeStepper> make_bdf_stepper(System& sys, const DynamicSettings& s) {
  return std::make_unique<BDFStepper>(sys, s);
}

}  // namespace catenary
