// The Newton iteration of every analysis (see newton.hpp).
#include "catenary/solve/newton.hpp"

#include <cmath>
#include <sstream>
#include <utility>

#include "catenary/core/errors.hpp"

namespace catenary {

NewtonOutcome NewtonSolver::solve(NewtonProblem& problem) {
  const bool reuse = options_.modified && kept_ != 0 && problem.holds(kept_);
  problem.start(false);
  NewtonOutcome out = iterate(problem, !reuse);
  if (!out.converged && reuse) {
    problem.start(true);
    NewtonOutcome fresh = iterate(problem, true);
    fresh.iterations += out.iterations;
    fresh.updates += out.updates;
    out = std::move(fresh);
  }
  if (out.failure == NewtonFailure::Iterations)
    out.why = "Newton did not converge in " + std::to_string(options_.max_iterations) + " iterations";
  return out;
}

bool NewtonSolver::factorize(NewtonProblem& problem, std::string& why) {
  try {
    kept_ = problem.factorize();
    return true;
  } catch (const SimulationError& e) {
    kept_ = 0;
    why = e.what();
    return false;
  }
}

NewtonOutcome NewtonSolver::iterate(NewtonProblem& problem, bool refresh) {
  const NewtonOptions& o = options_;
  const bool update_test = o.update_test != NewtonOptions::UpdateTest::None;
  NewtonOutcome out;
  const auto fail = [&](NewtonFailure failure, std::string why) {
    out.failure = failure;
    out.why = std::move(why);
    return out;
  };
  double previous = INFINITY;         // the previous update's norm
  double newton_previous = INFINITY;  // the same where it was a Newton update (a fresh matrix), else infinite
  int growing = 0;
  for (int it = 1;; ++it) {
    out.iterations = it;
    const NewtonResidual r = problem.evaluate(refresh);
    out.last_residual = r.reported;
    if (!std::isfinite(r.norm)) {
      std::string why = "the residual is not finite (NaN or overflow)";
      out.unsettled_dofs = problem.non_finite_entries();
      if (!out.unsettled_dofs.empty()) {  // the first names the place
        why += ", first at " + problem.describe(out.unsettled_dofs.front());
        out.worst_dof = out.unsettled_dofs.front();
        out.residual_not_finite = true;
      }
      return fail(NewtonFailure::ResidualNotFinite, std::move(why));
    }
    // The round-off floor: below it no update makes progress (the update test may be out of reach
    // for very stiff elements).
    if ((it > 1 || o.test_first_residual) && r.norm <= problem.residual_limit()) {
      out.converged = true;
      return out;
    }
    if (it > o.max_iterations) return fail(NewtonFailure::Iterations, {});  // only without an update test

    std::string singular;
    bool regular = !refresh || factorize(problem, singular);
    if (regular) problem.solve();
    if (o.shift && refresh) {
      const NewtonShiftScale s = problem.shift_scale();
      for (double mu = 1e-4 * s.matrix_norm / s.mass_norm;
           (!regular || !problem.descends()) && mu < 1e4 * s.matrix_norm / s.mass_norm; mu *= 10.0) {
        problem.shift(mu);
        regular = factorize(problem, singular);
        if (regular) problem.solve();
      }
    }
    if (!regular) return fail(NewtonFailure::Singular, std::move(singular));

    double step = 1.0;
    if (o.line_search) {
      const double norm = problem.update_norm();
      if (!std::isfinite(norm)) {
        out.last_update = norm;
        return fail(NewtonFailure::UpdateNotFinite, "the Newton update is not finite");
      }
      if (!(norm <= 1.0)) step = problem.line_search();
    }
    const NewtonUpdate u = problem.apply(step);
    out.updates = it;
    out.last_update = u.weighted;
    out.worst_dof = u.worst;
    if (!std::isfinite(u.weighted)) return fail(NewtonFailure::UpdateNotFinite, "the Newton update is not finite");
    if (update_test) {
      double error = u.weighted;
      if (o.update_test == NewtonOptions::UpdateTest::Estimated) {
        const double theta = u.weighted / (refresh ? newton_previous : INFINITY);  // 0: no rate
        if (theta > 0.0 && theta < 0.5) error = theta / (1.0 - theta) * u.weighted;
      }
      if (error <= 1.0) {
        out.converged = true;
        return out;
      }
    }
    growing = u.weighted > previous ? growing + 1 : 0;
    newton_previous = refresh ? u.weighted : INFINITY;
    refresh = !o.modified || u.weighted > 0.5 * previous;
    previous = u.weighted;
    if (o.diverging_updates > 0 && growing >= o.diverging_updates)
      return fail(NewtonFailure::Diverging, "Newton iteration diverges");
    if (update_test && it == o.max_iterations) return fail(NewtonFailure::Iterations, {});
  }
}

std::string newton_diagnosis(const NewtonOutcome& o, const std::string& residual, const std::string& unit,
                             const std::function<std::string(int)>& place) {
  std::ostringstream msg;
  msg << o.why << "; " << residual << " " << o.last_residual << " " << unit << ", last weighted correction "
      << o.last_update << " (1 = tolerance)";
  if (o.worst_dof >= 0 && !o.residual_not_finite) msg << ", largest at " << place(o.worst_dof);
  return msg.str();
}

}  // namespace catenary
