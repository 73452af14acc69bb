// SDIRK: singly diagonally implicit Runge-Kutta methods, stiffly accurate and L-stable, for
//   M q'' + f(q, q') + C^T lambda = g(t),  C q = b(t)  (index 3),
// applied to the first-order form (q' = v, v' = a) with the constraints imposed at every stage.
// Stage i at t_i = t_n + c_i h solves the equations of motion and Phi(Q_i, t_i) = 0 for
//   V_i = v_n + h sum_{j<i} a_ij A_j + h g A_i,   Q_i = q_n + h sum_{j<i} a_ij V_j + h g V_i,
// which is affine in Q_i:  A_i = (Q_i - qhat) / (h g)^2,  V_i = vhat + h g A_i  with
//   vhat = v_n + h sum_{j<i} a_ij A_j,   qhat = q_n + h g vhat + h sum_{j<i} a_ij V_j,
// so each stage is the shared Newton step of time_stepper.hpp with s = (h g)^2 and the Newton
// matrix M + (h g)^2 K + h g D, the same for every stage (modified Newton keeps one factorization
// a step). Stiffly accurate (b_j = a_sj): the step's result is the last stage, which meets the
// constraints as the stages do.
//
// The tableaus (Alexander, SIAM J. Numer. Anal. 14, 1977; Hairer and Wanner II, IV.6):
//   2 stages, order 2: g = 1 - 1/sqrt(2),  c = (g, 1),  a_21 = 1 - g;
//   3 stages, order 3: g = 0.4358665215 (the root of g^3 - 3 g^2 + 3 g / 2 - 1/6 in (1/6, 1/2)),
//     c = (g, (1 + g) / 2, 1),  a_21 = (1 - g) / 2,  a_31 = -(6 g^2 - 16 g + 1) / 4,
//     a_32 = (6 g^2 - 20 g + 5) / 4.
// Both are L-stable: the stability function vanishes at infinity, so stiff modes are damped out
// in one step (the chapter's A-stable DIRK of 2 stages and order 3 keeps |R(inf)| = 0.73, and
// as it is not stiffly accurate its result would leave the constraints).
//
// Error estimate: the embedded solution of one order less from the first two stages only
// (b^_1 + b^_2 = 1 and, for 3 stages, b^_1 c_1 + b^_2 c_2 = 1/2), so that the difference is
// h sum_j d_j V_j with d = b - b^; for 2 stages d = (-g, g), for 3 stages about g (1, -2, 1).
// On positions, and on velocities (h sum_j d_j A_j) times h, as BDF's.
#include <cmath>
#include <vector>

#include "time_stepper.hpp"

namespace catenary {

namespace {

struct Tableau {
  int stages = 0;
  double g = 0.0;
  std::vector<double> c;
  std::vector<std::vector<double>> a;  // a[i][j], j < i
  std::vector<double> d;               // b - b^ of the embedded solution
};

Tableau sdirk_tableau(int stages) {
  Tableau t;
  t.stages = stages;
  if (stages == 2) {
    const double g = 1.0 - 1.0 / std::sqrt(2.0);
    t.g = g;
    t.c = {g, 1.0};
    t.a = {{}, {1.0 - g}};
    t.d = {-g, g};  // b = (1 - g, g), b^ = (1, 0)
    return t;
  }
  const double g = 0.43586652150845899942;
  t.g = g;
  t.c = {g, 0.5 * (1.0 + g), 1.0};
  const std::vector<double> b = {-(6 * g * g - 16 * g + 1) / 4, (6 * g * g - 20 * g + 5) / 4, g};
  t.a = {{}, {0.5 * (1.0 - g)}, {b[0], b[1]}};
  const double b2_hat = (0.5 - t.c[0]) / (t.c[1] - t.c[0]);
  t.d = {b[0] - (1.0 - b2_hat), b[1] - b2_hat, b[2]};
  return t;
}

class SDIRKStepper : public TimeStepper {
 public:
  SDIRKStepper(System& sys, const DynamicSettings& s)
      : be_(sys.backend()), s_(s), tableau_(sdirk_tableau(s.stages)), newton_(sys, s),
        stage_(sys.backend(), sys.dofs(), sys.constraints()), stage_lambda_(be_.make_vector(sys.constraints())),
        work_(be_.make_vector(sys.dofs())) {
    for (int i = 0; i + 1 < tableau_.stages; ++i) {
      stage_v_.push_back(be_.make_vector(sys.dofs()));
      stage_a_.push_back(be_.make_vector(sys.dofs()));
    }
  }

  void start(StepState&) override {}

  StepOutcome step(const StepState& from, double h, StepState& to) override {
    const double hg = h * tableau_.g;
    NewmarkParameters p;
    p.c.mass = 1.0;
    p.c.stiffness = hg * hg;
    p.c.damping = hg;
    p.c.constraint = 1.0;
    p.residual_unit = p.c.stiffness;
    failed_stage_ = nullptr;
    StepOutcome step;  // the stages' iterations summed, the last stage's outcome otherwise
    for (int i = 0; i < tableau_.stages; ++i) {
      StepState& target = i + 1 == tableau_.stages ? to : stage_;
      form_predictors(from, h, i);
      const double ci_h = tableau_.c[i] * h;
      StepOutcome out = newton_.solve_affine(
          p, from.t + ci_h, hg * hg, hg, i == 0 ? from.lambda : stage_lambda_, nullptr, target, [&] {
            be_.combine(Combinations({&from.q, &from.v, &from.a}).into(target.q, {1.0, ci_h, 0.5 * ci_h * ci_h}));
          });
      out.iterations += step.iterations;
      out.updates += step.updates;
      step = out;
      if (!out.converged) {
        failed_stage_ = &target;
        return step;
      }
      if (&target == &stage_) {  // keep V_i, A_i and the multipliers; the stage takes the old storage
        stage_v_[i].swap(stage_.v);
        stage_a_[i].swap(stage_.a);
        stage_lambda_.swap(stage_.lambda);
      }
    }
    return step;
  }

  double error_estimate(const StepState&, const StepState& to, double h) override {
    const double position = weighted_stage_sum(h, to.v, to.q, [&](int j) -> const Vector& { return stage_v_[j]; });
    const double velocity =
        weighted_stage_sum(h * h, to.a, to.q, [&](int j) -> const Vector& { return stage_a_[j]; });
    return std::max(position, velocity);
  }

  double error_exponent() const override { return 1.0 / tableau_.stages; }

  std::vector<int> unsettled_coordinates(const StepState& trial) override {
    return newton_.unsettled_coordinates(failed_stage_ ? failed_stage_->q : trial.q);
  }

  // Nothing is carried between steps but modified Newton's factorization.
  void save(StateRecord& record) override { newton_.save(record); }
  void restore(const StateRecord& record) override { newton_.restore(record); }

 private:
  // qhat and vhat of stage i (header) from the step's start and the earlier stages.
  void form_predictors(const StepState& from, double h, int i) {
    const double hg = h * tableau_.g;
    std::vector<Scaled> vhat = {{1.0, &from.v}};
    for (int j = 0; j < i; ++j) vhat.push_back({h * tableau_.a[i][j], &stage_a_[j]});
    be_.combine(vhat, newton_.vhat());
    std::vector<Scaled> qhat = {{1.0, &from.q}, {hg, &newton_.vhat()}};
    for (int j = 0; j < i; ++j) qhat.push_back({h * tableau_.a[i][j], &stage_v_[j]});
    be_.combine(qhat, newton_.qhat());
  }

  // The weighted norm of scale sum_j d_j X_j (the last stage's X being `last`), at x.
  template <class Earlier>
  double weighted_stage_sum(double scale, const Vector& last, const Vector& x, Earlier earlier) {
    std::vector<Scaled> terms;
    for (int j = 0; j + 1 < tableau_.stages; ++j) terms.push_back({scale * tableau_.d[j], &earlier(j)});
    terms.push_back({scale * tableau_.d.back(), &last});
    return weighted_sum_norm(be_, terms, work_, x, s_.error_tolerance);
  }

  BackendVectors& be_;
  const DynamicSettings& s_;
  const Tableau tableau_;
  NewmarkNewton newton_;
  StepState stage_;                         // an earlier stage's solution
  Vector stage_lambda_;                     // the last earlier stage's multipliers: the next one's start
  std::vector<Vector> stage_v_, stage_a_;   // V_j and A_j of the earlier stages
  Vector work_;
  const StepState* failed_stage_ = nullptr;  // where the last failed step's Newton iteration stopped
};

}  // namespace

std::unique_ptr<TimeStepper> make_sdirk_stepper(System& sys, const DynamicSettings& s) {
  return std::make_unique<SDIRKStepper>(sys, s);
}

}  // namespace catenary
