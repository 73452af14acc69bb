// Design sensitivities of a dynamic analysis by the discrete direct method: see
// include/catenary/integrators/dynamic_sensitivity.hpp. The method's pieces are TimeStepper's
// (step_residual, step_history, tangent_guess, tangent_solve: time_stepper.hpp); this file takes
// the central differences around them and keeps the derivatives of the state, one StepState a
// variable on the case's backend.
#include "catenary/integrators/dynamic_sensitivity.hpp"

#include <chrono>
#include <stdexcept>

#include "sensitivity_terms.hpp"
#include "time_stepper.hpp"

namespace catenary {

namespace {

// The largest change of a coordinate in the central differences along the state's derivative,
// relative to its scale (the weighted norm with tolerance 1): small enough that the second-order
// error is below round-off, large enough that the differences keep ten digits of a coordinate's.
constexpr double kStateStep = 1e-6;
// The passes that correct the solve of a step's derivative by its defect, evaluated along the
// derivative found. The Newton matrix is not exactly dR/dy1 (formed before the last update, with
// the backend's approximations), and one solve left errors of 1e-6 to 1e-5 in the swinging
// cantilever's tip (tests/test_dynamic_sensitivity.cpp), 4e-3 in its clamp's reaction; one pass
// more, 3e-8 and 6e-6.
constexpr int kRefinements = 1;

std::unique_ptr<TimeStepper> make_method(System& sys, const DynamicSettings& s) {
  switch (s.integrator) {
    case DynamicSettings::Integrator::HHT: return make_hht_stepper(sys, s);
    case DynamicSettings::Integrator::GeneralizedAlpha: return make_generalized_alpha_stepper(sys, s);
    default: throw std::logic_error("sensitivities: the integrator has no design sensitivities (refused when read)");
  }
}

// A StepState on the host.
struct HostState {
  double t = 0.0;
  Eigen::VectorXd q, v, a, lambda, history;
};

void download(BackendVectors& b, const StepState& s, HostState& h) {
  h.t = s.t;
  b.download(s.q, h.q);
  b.download(s.v, h.v);
  b.download(s.a, h.a);
  b.download(s.lambda, h.lambda);
  b.download(s.history, h.history);
}

void upload(BackendVectors& b, const HostState& h, StepState& s) {
  s.t = h.t;
  b.upload(h.q, s.q);
  b.upload(h.v, s.v);
  b.upload(h.a, s.a);
  b.upload(h.lambda, s.lambda);
  b.upload(h.history, s.history);
}

// (plus - minus) / (2 e) for each of a HostState's vectors.
HostState central_difference(const HostState& plus, const HostState& minus, double e) {
  const double f = 0.5 / e;
  return {plus.t, f * (plus.q - minus.q), f * (plus.v - minus.v), f * (plus.a - minus.a),
          f * (plus.lambda - minus.lambda), f * (plus.history - minus.history)};
}

// The case's model with one variable changed, on a backend of its own, with the method's stepper
// over it and the states of the step being differentiated in its vectors.
struct ChangedModel {
  Model model;
  std::unique_ptr<Backend> backend;
  System sys;
  std::unique_ptr<TimeStepper> stepper;
  StepState from, to;
  Vector r, rc;

  ChangedModel(Model changed, const BackendMaker& make_backend, const DynamicSettings& s)
      : model(std::move(changed)),
        backend(make_backend(model)),
        sys(model, *backend),
        stepper(make_method(sys, s)),
        from(*backend, model.dof_count(), model.constraint_count()),
        to(*backend, model.dof_count(), model.constraint_count()),
        r(backend->make_vector(model.dof_count())),
        rc(backend->make_vector(model.constraint_count())) {}
};

class Tangents final : public StepTangent {
 public:
  Tangents(const Case& c, System& sys, TimeStepper& stepper, const BackendMaker& make_backend)
      : c_(c), sys_(sys), be_(sys.backend()), stepper_(stepper), n_(sys.dofs()), m_(sys.constraints()),
        shifted_from_{StepState(be_, n_, m_), StepState(be_, n_, m_)},
        shifted_to_{StepState(be_, n_, m_), StepState(be_, n_, m_)} {
    const SensitivitySettings& s = c.sensitivity;
    for (size_t k = 0; k < s.variables.size(); ++k) {
      const double h = variable_step(s, k);
      Variable v{h, {}, StepState(be_, n_, m_), StepState(be_, n_, m_)};
      for (int side = 0; side < 2; ++side)
        v.side[side] = std::make_unique<ChangedModel>(changed_model(c, k, s.values[k] + (side == 0 ? h : -h)),
                                                      make_backend, c.analysis.dynamics);
      variables_.push_back(std::move(v));
    }
    for (Vector* x : {&r_[0], &r_[1], &d_, &rb_, &hb_}) *x = be_.make_vector(n_);
    for (Vector* x : {&rc_[0], &rc_[1], &dc_, &rcb_}) *x = be_.make_vector(m_);
  }

  // dx0/db: the changed models' consistent initial states (as run_time_steps finds the case's) and
  // their methods' start, by central differences.
  void start(const StepState& state) override {
    download(be_, state, to_);
    for (Variable& v : variables_) {
      HostState x[2];
      for (int side = 0; side < 2; ++side) {
        ChangedModel& changed = *v.side[side];
        const ConsistentState init = consistent_initial_state(changed.sys, state.t);
        changed.backend->upload(init.q, changed.from.q);
        changed.backend->upload(init.v, changed.from.v);
        changed.backend->upload(init.a, changed.from.a);
        changed.backend->upload(init.lambda, changed.from.lambda);
        changed.from.t = state.t;
        changed.stepper->start(changed.from);
        download(*changed.backend, changed.from, x[side]);
      }
      upload(be_, central_difference(x[0], x[1], v.h), v.d);
    }
  }

  void step(const StepState& from, const StepState& to, double h) override {
    download(be_, from, from_);
    download(be_, to, to_);
    for (Variable& v : variables_) {
      variable_part(v, h);
      state_part(v, from, to, h);
      v.d.swap(v.next);
    }
  }

  // The objectives at the last state with dpsi/db = dpsi/dx dx/db + dpsi/db|x (sensitivity_terms.hpp).
  DesignSensitivities result() {
    const SensitivitySettings& s = c_.sensitivity;
    DesignSensitivities out;
    out.method = "direct";
    out.variables = s.variables;
    out.values = s.values;
    std::vector<Eigen::VectorXd> state_slopes;
    for (Variable& v : variables_) {
      Eigen::VectorXd q, lambda, x(n_ + m_);
      be_.download(v.d.q, q);
      be_.download(v.d.lambda, lambda);
      x << q, lambda;
      state_slopes.push_back(x);
    }
    for (const SensitivityObjective& o : s.objectives) {
      const double value = objective_quantity(sys_, o, to_.q, to_.lambda), slope = objective_slope(o, value);
      const Eigen::VectorXd gradient = objective_gradient(sys_, o, to_.q, to_.lambda);
      ObjectiveSensitivity result{o.name, objective_value(o, value), {}};
      for (size_t k = 0; k < variables_.size(); ++k) {
        const Variable& v = variables_[k];
        const double explicit_slope = (objective_quantity(v.side[0]->sys, o, to_.q, to_.lambda) -
                                       objective_quantity(v.side[1]->sys, o, to_.q, to_.lambda)) /
                                      (2.0 * v.h);
        result.derivatives.push_back(slope * (gradient.dot(state_slopes[k]) + explicit_slope));
      }
      out.objectives.push_back(std::move(result));
    }
    return out;
  }

 private:
  // A variable: its difference step h, the models with b + h and b - h, and the derivative of the
  // state, d at the step's start and next at its end.
  struct Variable {
    double h;
    std::unique_ptr<ChangedModel> side[2];
    StepState d, next;
  };

  // d(-R)/db and d(history)/db at the converged step (from_, to_) into rb_, rcb_ and hb_: the
  // changed models' residual and history there, by central differences.
  void variable_part(Variable& v, double h) {
    HostState x[2];
    for (int side = 0; side < 2; ++side) {
      ChangedModel& changed = *v.side[side];
      upload(*changed.backend, from_, changed.from);
      upload(*changed.backend, to_, changed.to);
      changed.stepper->step_residual(changed.from, h, changed.to, changed.r, changed.rc);
      changed.stepper->step_history(changed.from, h, changed.to);
      changed.backend->download(changed.r, x[side].q);
      changed.backend->download(changed.rc, x[side].lambda);
      changed.backend->download(changed.to.history, x[side].history);
    }
    const HostState slope = central_difference(x[0], x[1], v.h);
    be_.upload(slope.q, rb_);
    be_.upload(slope.lambda, rcb_);
    be_.upload(slope.history, hb_);
  }

  // The rest on the case's backend: the derivative of -R along (v.d, the guess of v.next) by
  // central differences, the solve with the step's Newton matrix, then kRefinements passes of the
  // same along (v.d, v.next) (the defect of the differentiated step equations, corrected); the
  // kinematics, the history.
  void state_part(Variable& v, const StepState& from, const StepState& to, double h) {
    stepper_.tangent_guess(v.d, h, v.next);
    double e = 1.0;
    for (int pass = 0; pass <= kRefinements; ++pass) {
      e = defect(v, from, to, h);
      stepper_.tangent_solve(v.d, h, d_, dc_, v.next);
    }
    const double f = 0.5 / e;
    for (int side = 0; side < 2; ++side) {
      shift(to, side == 0 ? e : -e, v.next, shifted_to_[side], true);
      stepper_.step_history(shifted_from_[side], h, shifted_to_[side]);
    }
    be_.combine({{f, &shifted_to_[0].history}, {-f, &shifted_to_[1].history}, {1.0, &hb_}}, v.next.history);
  }

  // [d_; dc_] = d(-R)/db + d/de -R(to + e v.next; from + e v.d) (q and lambda of v.next), the
  // latter by central differences with e such that the largest change of a coordinate is
  // kStateStep of its scale; returns e (shifted_from_ hold from -+ e v.d).
  double defect(Variable& v, const StepState& from, const StepState& to, double h) {
    const double largest = std::max(be_.weighted_norm(v.d.q, from.q, 1.0, nullptr),
                                    be_.weighted_norm(v.next.q, to.q, 1.0, nullptr));
    // Where the coordinates' derivatives vanish, the residual is linear in what is left (the
    // multipliers, the memory): any step is exact.
    const double e = largest > 0.0 ? kStateStep / largest : 1.0;
    for (int side = 0; side < 2; ++side) {
      const double s = side == 0 ? e : -e;
      shift(from, s, v.d, shifted_from_[side], true);
      shift(to, s, v.next, shifted_to_[side], false);
      stepper_.step_residual(shifted_from_[side], h, shifted_to_[side], r_[side], rc_[side]);
    }
    const double f = 0.5 / e;
    be_.combine({{f, &r_[0]}, {-f, &r_[1]}, {1.0, &rb_}}, d_);
    be_.combine({{f, &rc_[0]}, {-f, &rc_[1]}, {1.0, &rcb_}}, dc_);
    return e;
  }

  // out = x + s dx: q and lambda, and with all, v, a and the history too.
  void shift(const StepState& x, double s, const StepState& dx, StepState& out, bool all) {
    out.t = x.t;
    be_.combine({{1.0, &x.q}, {s, &dx.q}}, out.q);
    be_.combine({{1.0, &x.lambda}, {s, &dx.lambda}}, out.lambda);
    if (!all) return;
    be_.combine({{1.0, &x.v}, {s, &dx.v}}, out.v);
    be_.combine({{1.0, &x.a}, {s, &dx.a}}, out.a);
    be_.combine({{1.0, &x.history}, {s, &dx.history}}, out.history);
  }

  const Case& c_;
  System& sys_;
  BackendVectors& be_;
  TimeStepper& stepper_;
  const int n_, m_;
  std::vector<Variable> variables_;
  HostState from_, to_;  // the step's states on the host, for the changed models
  StepState shifted_from_[2], shifted_to_[2];
  Vector r_[2], rc_[2], d_, dc_, rb_, rcb_, hb_;
};

}  // namespace

DesignSensitivities run_dynamic_sensitivities(const Case& c, System& sys, const FrameSink& sink, RunSummary& summary,
                                              const Interruption* interruption, const BackendMaker& make_backend) {
  const auto start = std::chrono::steady_clock::now();
  const DynamicSettings& s = c.analysis.dynamics;
  const std::unique_ptr<TimeStepper> stepper = make_method(sys, s);
  Tangents tangents(c, sys, *stepper, make_backend);
  run_time_steps(sys, s, c.output.interval, sink, summary, *stepper, interruption, Checkpoints{}, &tangents);
  DesignSensitivities out = tangents.result();
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace catenary
