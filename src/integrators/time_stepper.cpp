// The step-control loop shared by the time integrators: fixed or adaptive steps, output frames,
// checkpoints and resume, progress and failure messages (see time_stepper.hpp). The Newton
// problem of one implicit step is newmark_newton.cpp's.
#include "time_stepper.hpp"

#include "contact_events.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/progress.hpp"

namespace catenary {

namespace {

// The step control's and the summary's values in a checkpoint (the method's are its own).
void save_control(const StepState& state, double h, double next_output, double next_checkpoint,
                  const RunSummary& summary, BackendVectors& be, StateRecord& record) {
  Eigen::VectorXd x;
  const std::pair<const char*, const Vector*> vectors[] = {{"state.q", &state.q},
                                                           {"state.v", &state.v},
                                                           {"state.a", &state.a},
                                                           {"state.lambda", &state.lambda},
                                                           {"state.history", &state.history}};
  for (const auto& [key, vector] : vectors) {
    be.download(*vector, x);
    record.set(key, x);
  }
  record.set("state.t", state.t);
  record.set("control.step", h);
  record.set("control.next_output", next_output);
  record.set("control.next_checkpoint", next_checkpoint);
  record.set("summary.steps", static_cast<double>(summary.steps));
  record.set("summary.rejected_steps", static_cast<double>(summary.rejected_steps));
  record.set("summary.newton_iterations", static_cast<double>(summary.newton_iterations));
  record.set("summary.last_residual", summary.last_residual);
  record.set("summary.largest_error_estimate", summary.largest_error_estimate);
  record.set("summary.largest_error_time", summary.largest_error_time);
  record.set("summary.largest_rejected_error_estimate", summary.largest_rejected_error_estimate);
  record.set("summary.contact_events", static_cast<double>(summary.contact_events));
  record.set("summary.impacts", static_cast<double>(summary.impacts));
  record.set("summary.event_retries", static_cast<double>(summary.event_retries));
}

void restore_control(const StateRecord& record, StepState& state, double& h, double& next_output,
                     double& next_checkpoint, RunSummary& summary, BackendVectors& be) {
  const std::pair<const char*, Vector*> vectors[] = {{"state.q", &state.q},
                                                     {"state.v", &state.v},
                                                     {"state.a", &state.a},
                                                     {"state.lambda", &state.lambda},
                                                     {"state.history", &state.history}};
  for (const auto& [key, vector] : vectors) be.upload(record.vector(key, vector->size()), *vector);
  state.t = record.number("state.t");
  h = record.number("control.step");
  next_output = record.number("control.next_output");
  next_checkpoint = record.number("control.next_checkpoint");
  summary.steps = record.count("summary.steps");
  summary.rejected_steps = record.count("summary.rejected_steps");
  summary.newton_iterations = record.count("summary.newton_iterations");
  summary.last_residual = record.number("summary.last_residual");
  summary.largest_error_estimate = record.number("summary.largest_error_estimate");
  summary.largest_error_time = record.number("summary.largest_error_time");
  summary.largest_rejected_error_estimate = record.number("summary.largest_rejected_error_estimate");
  summary.contact_events = record.count("summary.contact_events");
  summary.impacts = record.count("summary.impacts");
  summary.event_retries = record.count("summary.event_retries");
  summary.resumed_at = state.t;
  summary.steps_before_resume = summary.steps;
}

}  // namespace

void run_time_steps(System& sys, const DynamicSettings& s, double output_interval, const FrameSink& sink,
                    RunSummary& summary, TimeStepper& stepper, const Interruption* interruption,
                    const Checkpoints& checkpoints, StepTangent* tangent) {
  summary.analysis = "dynamic";
  Progress progress("dynamic");
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  const Clock::time_point run_start = Clock::now();
  BackendVectors& be = sys.backend();
  const int n = sys.dofs(), m = sys.constraints();
  StepState state(be, n, m), trial(be, n, m);

  // Frames are the only full vectors that come back to the host: q, v, lambda and M v.
  Eigen::VectorXd q, v, lambda;
  // The rigid contacts' impulses since the last frame (Frame::contact_impulses).
  Eigen::VectorXd impulses = Eigen::VectorXd::Zero(sys.multibody().mechanism().contacts.count());
  System::Energies energies;
  auto emit = [&](const StepState& st, double h, int iterations) {
    const Clock::time_point emit_start = Clock::now();
    be.download(st.q, q);
    be.download(st.v, v);
    be.download(st.lambda, lambda);
    sys.energies(st.q, st.v, q, v, energies);
    const Clock::time_point write_start = Clock::now();
    emit_frame(st.t, h, iterations, q, v, lambda, energies, sink, impulses.size() > 0 ? &impulses : nullptr);
    impulses.setZero();
    summary.output_writing_seconds += seconds_since(write_start);
    summary.output_seconds += seconds_since(emit_start);
  };

  const double T = s.end_time;
  double h = s.adaptive ? std::min(std::max(s.step, s.min_step), s.max_step) : s.step;
  double next_output = output_interval > 0.0 ? output_interval : 0.0;
  double next_checkpoint = checkpoints.interval;
  if (checkpoints.resume) {
    restore_control(*checkpoints.resume, state, h, next_output, next_checkpoint, summary, be);
    if (impulses.size() > 0) impulses = checkpoints.resume->vector("control.impulses", impulses.size());
    stepper.restore(*checkpoints.resume);
    summary.initial_state_seconds = seconds_since(run_start);
  } else {
    const ConsistentState init =
        s.static_start ? static_initial_state(sys, s.start_statics, summary) : consistent_initial_state(sys, 0.0);
    state.t = 0.0;
    be.upload(init.q, state.q);
    be.upload(init.v, state.v);
    be.upload(init.a, state.a);
    be.upload(init.lambda, state.lambda);
    stepper.start(state);
    stepper.accepted(state);
    if (tangent) tangent->start(state);
    // (On a device the method's start may still be running here: the first frame's download waits
    // for it, so its few passes count as output.)
    summary.initial_state_seconds = seconds_since(run_start);
    emit(state, 0.0, 0);
  }
  Clock::time_point last_checkpoint = Clock::now();
  const auto write_checkpoint = [&] {
    StateRecord record;
    save_control(state, h, next_output, next_checkpoint, summary, be, record);
    if (impulses.size() > 0) record.set("control.impulses", impulses);
    stepper.save(record);
    checkpoints.write(record);
    last_checkpoint = Clock::now();
  };

  // An interval whose frames outnumber the steps allowed could not advance the output time.
  if (output_interval > 0.0 && !(T / output_interval <= static_cast<double>(s.max_steps))) {
    std::ostringstream msg;
    msg << "the output interval " << output_interval << " s gives more frames than max_steps (" << s.max_steps
        << ") over the end time " << T << " s";
    throw std::invalid_argument(msg.str());
  }
  Clock::time_point first_step_end;
  const long first_step = summary.steps_before_resume + 1;
  ContactEvents events(sys, s.event_tolerance);
  std::vector<double> gaps = events.gaps(state.q);  // at the start of the next step
  double event_step = 0.0;  // > 0: the shortened step that locates a contact's switch
  while (state.t < T * (1.0 - 1e-12)) {
    // Land exactly on the end time; with a fixed step the last step may be shorter.
    double h_try = std::min(event_step > 0.0 ? event_step : h, T - state.t);
    if (T - state.t - h_try < 1e-9 * h_try) h_try = T - state.t;
    const StepOutcome r = stepper.step(state, h_try, trial);
    summary.newton_iterations += r.iterations;
    summary.last_residual = r.last_residual;
    if (!r.converged) {
      if (s.adaptive && h_try * 0.25 >= s.min_step) {
        summary.rejected_steps++;
        h = h_try * 0.25;
        event_step = 0.0;  // a switch being located is located again from the shorter step
        continue;
      }
      std::ostringstream msg;
      msg << "dynamic analysis failed at t = " << state.t << " s (step " << summary.steps + 1
          << ", h = " << h_try << " s): "
          // An explicit step (no Newton iteration) says why alone.
          << (r.iterations > 0 ? newton_diagnosis(r, "force residual", "N",
                                                  [&](int dof) { return sys.describe_dof(dof); })
                               : r.why)
          << (s.adaptive ? "; the step is at its minimum" : "; try a smaller step or the adaptive step");
      const std::string singular = sys.singularity_note(state.q, state.t);
      if (!singular.empty()) msg << "; " << singular;
      summary.end_time = state.t;
      // Where an update was made, the coordinates it left unsettled (asked only now: two downloads,
      // which a rejected adaptive step does not need).
      std::vector<int> unsettled = r.unsettled_dofs;
      if (!r.residual_not_finite && r.worst_dof >= 0) unsettled = stepper.unsettled_coordinates(trial);
      throw SimulationError(msg.str(), r.worst_dof, std::move(unsettled));
    }
    // A contact's switch inside the step: shorten it until the switch is at its end.
    std::vector<double> end_gaps = events.gaps(trial.q);
    const ContactEvents::Check event = events.check(gaps, end_gaps);
    if (event.kind == ContactEvents::Check::Kind::shorten) {
      summary.event_retries++;
      event_step = h_try * event.fraction;
      continue;
    }
    const bool shortened = event_step > 0.0;
    event_step = 0.0;
    // The local error estimate also guards fixed steps: a Newton iteration can converge to a
    // wrong solution of the step equations (a cable element folded through itself solves them
    // too), which only the jump in the estimate reveals.
    const double err = stepper.error_estimate(state, trial, h_try);
    if (s.adaptive) {
      const double factor =
          std::min(2.0, std::max(0.2, 0.9 * std::pow(std::max(err, 1e-10), -stepper.error_exponent())));
      if (err > 1.0 && h_try > s.min_step * (1.0 + 1e-12)) {
        summary.rejected_steps++;
        summary.largest_rejected_error_estimate = std::max(summary.largest_rejected_error_estimate, err);
        h = std::max(s.min_step, h_try * factor);
        continue;
      }
      // A step shortened to a switch says little of the step the motion allows: h stays.
      if (!shortened) h = std::min(s.max_step, std::max(s.min_step, h_try * factor));
    }
    if (err > summary.largest_error_estimate) {
      summary.largest_error_estimate = err;
      summary.largest_error_time = trial.t;
    }
    state.swap(trial);
    stepper.accepted(state);
    if (tangent) tangent->step(trial, state, h_try);
    const std::vector<double> start_gaps = std::move(gaps);
    gaps = std::move(end_gaps);
    summary.contact_events += event.switches;
    // An impact's velocity jump: the method starts again from the new velocities.
    if (const int impacts = events.apply_impacts(state, start_gaps, impulses); impacts > 0) {
      if (tangent)
        throw SimulationError("sensitivities: an impact at t = " + std::to_string(state.t) +
                              " s jumps the velocities, and the derivative of the jump is not computed");
      summary.impacts += impacts;
      stepper.start(state);
      stepper.accepted(state);
    }
    summary.steps++;
    if (summary.steps == first_step)
      first_step_end = Clock::now();
    else
      summary.stepping_seconds = seconds_since(first_step_end);
    summary.end_time = state.t;
    const bool last = state.t >= T * (1.0 - 1e-12);
    if (output_interval <= 0.0 || state.t >= next_output - 1e-9 * h_try || last) {
      emit(state, h_try, r.iterations);
      if (output_interval > 0.0)
        while (next_output <= state.t + 1e-9 * h_try) next_output += output_interval;
    }
    progress.update(state.t / T, state.t, summary.steps);
    const bool stop = !last && stop_requested(interruption);
    if (!last && checkpoints.enabled()) {
      const bool by_time = checkpoints.interval > 0.0 && state.t >= next_checkpoint - 1e-9 * h_try;
      if (by_time)
        while (next_checkpoint <= state.t + 1e-9 * h_try) next_checkpoint += checkpoints.interval;
      const bool by_wall = checkpoints.wall_interval > 0.0 && seconds_since(last_checkpoint) >= checkpoints.wall_interval;
      if (by_time || by_wall || stop) write_checkpoint();
    }
    if (stop) {
      std::ostringstream msg;
      msg << "dynamic analysis interrupted at t = " << state.t << " s after " << summary.steps << " steps";
      throw Interrupted(msg.str());
    }
    if (summary.steps >= s.max_steps && state.t < T * (1.0 - 1e-12)) {
      std::ostringstream msg;
      msg << "dynamic analysis stopped at t = " << state.t << " s after " << summary.steps
          << " steps, the limit max_steps (raise analysis.max_steps, or take a larger min_step)";
      throw SimulationError(msg.str());
    }
  }
  if (checkpoints.at_end && checkpoints.write) write_checkpoint();
  // A fixed step that leaves the local error far above the tolerance does not resolve the motion;
  // say so rather than hand back a possibly wrong answer in silence.
  constexpr double kWarnErrorFactor = 100.0;
  if (!s.adaptive && summary.largest_error_estimate > kWarnErrorFactor) {
    std::ostringstream w;
    w << "the local error estimate reached " << summary.largest_error_estimate << " times the error tolerance ("
      << s.error_tolerance << ") at t = " << summary.largest_error_time
      << " s: the fixed step does not resolve the motion there, and a step can even converge to a wrong solution; "
         "check the results, or use a smaller step or the adaptive step";
    summary.warnings.push_back(w.str());
  }
}


double weighted_sum_norm(BackendVectors& b, const std::vector<Scaled>& terms, Vector& work, const Vector& x, double tol) {
  b.combine(terms, work);
  return b.weighted_norm(work, x, tol, nullptr);
}

void run_dynamic(System& sys, const DynamicSettings& s, double output_interval, const FrameSink& sink,
                 RunSummary& summary, const Interruption* interruption, const Checkpoints& checkpoints) {
  std::unique_ptr<TimeStepper> stepper;
  switch (s.integrator) {
    case DynamicSettings::Integrator::HHT: stepper = make_hht_stepper(sys, s); break;
    case DynamicSettings::Integrator::GeneralizedAlpha: stepper = make_generalized_alpha_stepper(sys, s); break;
    case DynamicSettings::Integrator::BDF: stepper = make_bdf_stepper(sys, s); break;
    case DynamicSettings::Integrator::SDIRK: stepper = make_sdirk_stepper(sys, s); break;
    case DynamicSettings::Integrator::RK4:
    case DynamicSettings::Integrator::DOPRI5: stepper = make_explicit_rk_stepper(sys, s); break;
    case DynamicSettings::Integrator::ABAM: stepper = make_abam_stepper(sys, s); break;
  }
  run_time_steps(sys, s, output_interval, sink, summary, *stepper, interruption, checkpoints);
}

}  // namespace catenary
