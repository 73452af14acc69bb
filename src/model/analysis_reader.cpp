// The analysis part of a case file (docs/case-format.md, "analysis"), with the limits that keep a
// run finite: at most max_steps steps (load steps, fixed time steps, kinematic steps; adaptive
// runs stop there), time steps that advance the time, and output intervals that do too.
#include "analysis_reader.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace catenary::case_reading {

namespace {

constexpr double kShortestStepFraction = 1e-12;  // of the end time: a step that still advances it
constexpr long long kMostMaxSteps = 1000000000000LL;

long long read_max_steps(const Node& analysis) {
  if (!analysis.has("max_steps")) return kDefaultMaxSteps;
  const Node n = analysis.child("max_steps");
  if (n.v.is_number_float())
    n.fail("must be a positive integer (got " + format_number(n.v.get<double>()) +
           " written as a floating-point number; write integers without a decimal point or exponent)");
  if (!n.v.is_number_integer()) n.fail("must be a positive integer" + n.got());
  if (n.v.is_number_unsigned() ? n.v.get<unsigned long long>() > static_cast<unsigned long long>(kMostMaxSteps)
                               : n.v.get<long long>() < 1 || n.v.get<long long>() > kMostMaxSteps)
    n.fail("must be an integer from 1 to " + std::to_string(kMostMaxSteps));
  return n.v.get<long long>();
}

// A fixed step over [0, end_time] must take at most max_steps steps.
void check_step_count(const Node& step, double end_time, double h, long long max_steps) {
  const double steps = std::ceil(end_time / h);
  if (steps > static_cast<double>(max_steps))
    step.fail("implies " + format_number(steps) + " steps (end_time " + format_number(end_time) + " / step " +
              format_number(h) + "); the limit is max_steps = " + std::to_string(max_steps) +
              " (raise /analysis/max_steps to allow more)");
}

// A state found by statics or given: "static" (true), "given" (false), or an object of type
// static with the load stepping's settings (true, the settings into s). `what` names it.
bool read_static_or_given(const Node& n, const std::string& what, StaticSettings& s) {
  if (n.v.is_string()) return get_choice(n, {"given", "static"}, what) == "static";
  if (!n.v.is_object())
    n.fail("must be \"given\", \"static\" or an object {\"type\": \"static\", \"load_steps\": ...}" + n.got());
  expect_object(n, {"type", "load_steps", "max_iterations", "tolerance"});
  get_choice(n.required("type"), {"static"}, what + " type");
  if (n.has("load_steps")) s.load_steps = get_positive_int(n.child("load_steps"));
  if (n.has("max_iterations")) s.max_iterations = get_positive_int(n.child("max_iterations"));
  if (n.has("tolerance")) s.tolerance = get_positive(n.child("tolerance"));
  return true;
}

// The eigen analysis: how many modes, the shift, the state it linearizes about ("static", an
// object of type static with the load stepping's settings, or "given") and how modes are drawn.
void read_eigen(const Node& n, EigenSettings& e) {
  expect_object(n, {"type", "modes", "shift", "about", "mode_frames", "mode_amplitude", "linear_solver"});
  if (n.has("modes")) e.modes = get_positive_int(n.child("modes"));
  if (n.has("shift")) e.shift = get_number(n.child("shift"));
  if (n.has("mode_frames")) e.mode_frames = get_positive_int(n.child("mode_frames"));
  if (n.has("mode_amplitude")) e.amplitude = get_positive(n.child("mode_amplitude"));
  if (n.has("about")) e.static_equilibrium = read_static_or_given(n.child("about"), "state to linearize about", e.statics);
}

}  // namespace

void read_analysis(const Node& n, AnalysisSettings& a) {
  if (!n.v.is_object()) n.fail("must be an object" + n.got());
  const std::string type =
      get_choice(n.required("type"), {"static", "dynamic", "assembly", "kinematic", "eigen"}, "analysis type");
  if (type == "assembly") {
    expect_object(n, {"type"});
    a.type = AnalysisSettings::Type::Assembly;
    return;
  }
  if (type == "kinematic") {
    expect_object(n, {"type", "end_time", "step", "max_steps"});
    a.type = AnalysisSettings::Type::Kinematic;
    a.kinematics.end_time = get_positive(n.required("end_time"));
    a.kinematics.step = get_positive(n.required("step"));
    a.kinematics.max_steps = read_max_steps(n);
    check_step_count(n.child("step"), a.kinematics.end_time, a.kinematics.step, a.kinematics.max_steps);
    return;
  }
  if (n.has("linear_solver")) {
    const std::string solver = get_choice(n.child("linear_solver"), kLinearSolverNames, "linear solver");
    a.linear_solver = *linear_solver_from_name(solver);  // get_choice admitted only these names
  }
  if (type == "eigen") {
    read_eigen(n, a.eigen);
    a.type = AnalysisSettings::Type::Eigen;
    return;
  }
  if (type == "static") {
    expect_object(n, {"type", "load_steps", "max_iterations", "tolerance", "linear_solver", "max_steps"});
    a.type = AnalysisSettings::Type::Static;
    StaticSettings& s = a.statics;
    s.max_steps = read_max_steps(n);
    if (n.has("load_steps")) {
      const Node ln = n.child("load_steps");
      s.load_steps = get_positive_int(ln);
      if (s.load_steps > s.max_steps)
        ln.fail("asks for " + std::to_string(s.load_steps) + " load steps; the limit is max_steps = " +
                std::to_string(s.max_steps) + " (raise /analysis/max_steps to allow more)");
    }
    if (n.has("max_iterations")) s.max_iterations = get_positive_int(n.child("max_iterations"));
    if (n.has("tolerance")) s.tolerance = get_positive(n.child("tolerance"));
    return;
  }
  expect_object(n, {"type", "end_time", "step", "integrator", "alpha", "rho_infinity", "max_order", "coefficients", "stages",
                    "order", "baumgarte", "constraints", "max_iterations", "tolerance", "adaptive", "formulation",
                    "newton", "linear_solver", "event_tolerance", "float_factors", "max_steps", "initial_state"});
  a.type = AnalysisSettings::Type::Dynamic;
  DynamicSettings& d = a.dynamics;
  if (n.has("initial_state"))
    d.static_start = read_static_or_given(n.child("initial_state"), "initial state", d.start_statics);
  d.end_time = get_positive(n.required("end_time"));
  const Node step = n.required("step");
  d.step = get_positive(step);
  d.max_steps = read_max_steps(n);
  // Each integrator takes only its own parameters (numerical damping, the BDF order and
  // coefficients, the SDIRK stages, the explicit methods' Baumgarte stabilization).
  struct Method {
    const char* name;
    DynamicSettings::Integrator integrator;
    std::vector<std::string> parameters;
  };
  static const Method methods[] = {{"hht", DynamicSettings::Integrator::HHT, {"alpha"}},
                                   {"generalized_alpha", DynamicSettings::Integrator::GeneralizedAlpha, {"rho_infinity"}},
                                   {"bdf", DynamicSettings::Integrator::BDF, {"max_order", "coefficients"}},
                                   {"sdirk", DynamicSettings::Integrator::SDIRK, {"stages"}},
                                   {"rk4", DynamicSettings::Integrator::RK4, {"baumgarte", "constraints"}},
                                   {"dopri5", DynamicSettings::Integrator::DOPRI5, {"baumgarte", "constraints"}},
                                   {"abam", DynamicSettings::Integrator::ABAM, {"order", "baumgarte", "constraints"}}};
  std::vector<std::string> names;
  for (const Method& m : methods) names.push_back(m.name);
  const std::string chosen = n.has("integrator") ? get_choice(n.child("integrator"), names, "integrator") : "hht";
  const Method* method = &methods[0];
  for (const Method& m : methods)
    if (chosen == m.name) method = &m;
  d.integrator = method->integrator;
  auto takes = [](const Method& m, const std::string& p) {
    return std::find(m.parameters.begin(), m.parameters.end(), p) != m.parameters.end();
  };
  std::string own;  // the chosen method's parameters, for the message
  for (const std::string& p : method->parameters) own += (own.empty() ? "'" : ", '") + p + "'";
  for (const Method& other : methods)
    for (const std::string& parameter : other.parameters) {
      if (takes(*method, parameter) || !n.has(parameter)) continue;
      std::vector<std::string> takers;  // the methods that take it (the explicit ones share theirs)
      for (const Method& owner : methods)
        if (takes(owner, parameter)) takers.push_back(owner.name);
      std::string owners;  // "a", "a and b", "a, b and c"
      for (size_t i = 0; i < takers.size(); ++i)
        owners += (i == 0 ? "" : i + 1 == takers.size() ? " and " : ", ") + takers[i];
      n.child(parameter).fail("is a parameter of the " + owners + (takers.size() > 1 ? " integrators" : " integrator") +
                              "; this analysis uses " + method->name + (n.has("integrator") ? "" : " (the default)") +
                              ", whose " + (method->parameters.size() > 1 ? "parameters are " : "parameter is ") + own);
    }
  // An explicit step has no Newton iteration and no constraint formulation to choose: the settings
  // only an implicit step reads are refused rather than ignored.
  if (d.integrator == DynamicSettings::Integrator::RK4 || d.integrator == DynamicSettings::Integrator::DOPRI5 ||
      d.integrator == DynamicSettings::Integrator::ABAM)
    for (const char* key : {"newton", "formulation", "max_iterations", "tolerance", "float_factors"})
      if (n.has(key))
        n.child(key).fail(std::string("sets the implicit integrators' Newton step; ") + method->name +
                          " is explicit (a solve for the accelerations at each stage, no Newton iteration)");
  if (n.has("alpha")) {
    const Node an = n.child("alpha");
    d.alpha = get_number(an);
    if (!(d.alpha >= -1.0 / 3.0 - 1e-15 && d.alpha <= 0.0))
      an.fail("must be between -1/3 and 0 (got " + format_number(d.alpha) + ")");
  }
  if (n.has("rho_infinity")) {
    const Node rn = n.child("rho_infinity");
    d.rho_infinity = get_number(rn);
    if (!(d.rho_infinity >= 0.0 && d.rho_infinity <= 1.0))
      rn.fail("must be between 0 and 1 (got " + format_number(d.rho_infinity) + ")");
  }
  if (n.has("max_order")) {
    const Node on = n.child("max_order");
    d.max_order = get_int(on);
    if (d.max_order < 1 || d.max_order > 5) on.fail("must be an integer from 1 to 5 (got " + std::to_string(d.max_order) + ")");
  }
  if (n.has("coefficients")) {
    const std::string form =
        get_choice(n.child("coefficients"), {"variable", "fixed", "fixed_leading"}, "BDF coefficient form");
    d.bdf_coefficients = form == "variable" ? DynamicSettings::BdfCoefficients::Variable
                         : form == "fixed"  ? DynamicSettings::BdfCoefficients::Fixed
                                            : DynamicSettings::BdfCoefficients::FixedLeading;
  }
  if (n.has("order")) {
    const Node on = n.child("order");
    d.abam_order = get_int(on);
    if (d.abam_order < 1 || d.abam_order > 5)
      on.fail("must be an integer from 1 to 5 (got " + std::to_string(d.abam_order) + ")");
  }
  if (n.has("stages")) {
    const Node sn = n.child("stages");
    d.stages = get_int(sn);
    if (d.stages != 2 && d.stages != 3) sn.fail("must be 2 or 3 (got " + std::to_string(d.stages) + ")");
  }
  if (n.has("baumgarte")) {
    const Node bn = n.child("baumgarte");
    expect_object(bn, {"alpha", "beta"});
    if (bn.has("alpha")) d.baumgarte_alpha = get_non_negative(bn.child("alpha"));
    if (bn.has("beta")) d.baumgarte_beta = get_non_negative(bn.child("beta"));
  }
  // The explicit methods' constraints: Baumgarte's terms (the default, with "baumgarte"'s
  // alpha and beta, none by default) or coordinate partitioning, which needs no terms.
  if (n.has("constraints")) {
    const Node cn = n.child("constraints");
    d.partitioning = get_choice(cn, {"baumgarte", "partitioning"}, "constraint treatment") == "partitioning";
    if (d.partitioning && n.has("baumgarte"))
      n.child("baumgarte")
          .fail("sets Baumgarte's terms, which \"constraints\": \"partitioning\" replaces: it puts each step's result "
                "back on the position and velocity constraints");
  }
  if (n.has("float_factors")) a.float_factors = get_bool(n.child("float_factors"));
  if (n.has("max_iterations")) d.max_iterations = get_positive_int(n.child("max_iterations"));
  if (n.has("tolerance")) d.newton_tolerance = get_positive(n.child("tolerance"));
  // SDIRK's stages at index 3 converge at first order on nonlinear constraints (sdirk.cpp): its
  // default is stabilized index 2.
  if (d.integrator == DynamicSettings::Integrator::SDIRK) d.formulation = DynamicSettings::Formulation::StabilizedIndex2;
  if (n.has("formulation"))
    d.formulation = get_choice(n.child("formulation"), {"index3", "stabilized_index2"}, "constraint formulation") ==
                            "index3"
                        ? DynamicSettings::Formulation::Index3
                        : DynamicSettings::Formulation::StabilizedIndex2;
  if (n.has("event_tolerance")) d.event_tolerance = get_positive(n.child("event_tolerance"));
  if (n.has("newton"))
    d.newton = get_choice(n.child("newton"), {"full", "modified"}, "Newton method") == "full"
                   ? DynamicSettings::Newton::Full
                   : DynamicSettings::Newton::Modified;
  if (n.has("adaptive")) {
    const Node ad = n.child("adaptive");
    expect_object(ad, {"min_step", "max_step", "error_tolerance"});
    if (d.integrator == DynamicSettings::Integrator::RK4)
      ad.fail("needs a local error estimate, which rk4 does not have: take dopri5 for the adaptive step");
    d.adaptive = true;
    if (ad.has("min_step")) d.min_step = get_positive(ad.child("min_step"));
    if (ad.has("max_step")) d.max_step = get_positive(ad.child("max_step"));
    if (ad.has("error_tolerance")) d.error_tolerance = get_positive(ad.child("error_tolerance"));
    if (d.max_step < d.min_step)
      (ad.has("max_step") ? ad.child("max_step") : ad.child("min_step"))
          .fail("max_step (" + format_number(d.max_step) + ") must not be smaller than min_step (" +
                format_number(d.min_step) + ")");
    // Below 1e-12 of the end time a step is close to the rounding of the time itself.
    const double shortest = kShortestStepFraction * d.end_time;
    if (!ad.has("min_step")) d.min_step = std::max(d.min_step, shortest);
    if (d.min_step < shortest)
      ad.child("min_step").fail("cannot advance the time: a step below 1e-12 end_time (" + format_number(shortest) +
                                ") is lost to rounding (got " + format_number(d.min_step) + ")");
    if (d.step < d.min_step || d.step > d.max_step)
      step.fail("the initial step of an adaptive analysis must lie between min_step (" +
                format_number(d.min_step) + ") and max_step (" + format_number(d.max_step) + ")");
  } else {
    check_step_count(step, d.end_time, d.step, d.max_steps);
  }
}

void check_output_interval(const Node& interval, const AnalysisSettings& a, double value) {
  double end_time = 0.0;
  long long max_steps = 0;
  if (a.type == AnalysisSettings::Type::Dynamic) end_time = a.dynamics.end_time, max_steps = a.dynamics.max_steps;
  if (a.type == AnalysisSettings::Type::Kinematic)
    end_time = a.kinematics.end_time, max_steps = a.kinematics.max_steps;
  if (value <= 0.0 || end_time <= 0.0) return;
  const double frames = std::ceil(end_time / value);
  if (frames > static_cast<double>(max_steps))
    interval.fail("implies " + format_number(frames) + " output frames over end_time " + format_number(end_time) +
                  "; at most max_steps = " + std::to_string(max_steps) +
                  " (0 writes every step; raise /analysis/max_steps to allow more)");
}

}  // namespace catenary::case_reading
