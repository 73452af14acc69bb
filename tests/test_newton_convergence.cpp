// The Newton iteration (NewtonSolver, solve/newton.hpp). Its stopping test in the time
// steps (NewtonOptions::UpdateTest::Estimated): after two Newton updates in a row it ends the
// step when the rate of the two bounds the error left within the tolerance, although the last
// update alone is not. The runs must then equal runs to a tolerance five orders tighter (whose
// extra iterations reach the residual's round-off floor), with every integrator, on cables and on
// rigid bodies coupled to them, in fewer iterations. Then the solver's rules one by one on small
// host problems, and the factorization identity that modified Newton compares.
#include <catch2/catch.hpp>
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <tuple>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/system.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/solve/newton.hpp"
#include "cli_helpers.hpp"
#include "multibody_models.hpp"
#include "test_helpers.hpp"

using namespace catenary;
using namespace catenary::testing;

TEST_CASE("Newton steps end when the convergence rate bounds the error left by the tolerance", "[dynamics][newton]") {
  constexpr double kTolerance = 1e-10;
  const Model cable = falling_cable_pendulum(10), boom = cable_hanging_from_boom(8), beams = rancf_pendulum(21e6);
  for (const auto& [name, model] : {std::tuple<const char*, const Model*>{"falling cable", &cable},
                                    {"cable hanging from a boom", &boom},
                                    {"planar beam pendulum", &beams}}) {
    for (const AnalysisSettings& a : {dynamic_settings(1e-3, 0.05, -0.2), bdf_settings(1e-3, 0.05, 2)}) {
      AnalysisSettings tight = a;
      tight.dynamics.newton_tolerance = 1e-5 * kTolerance;
      tight.dynamics.max_iterations = 30;
      REQUIRE(a.dynamics.newton_tolerance == kTolerance);
      const RunResult run = run_model(*model, a), reference = run_model(*model, tight);
      REQUIRE(run.frames.size() == reference.frames.size());
      CpuBackend backend(*model);
      const System sys(*model, backend);
      double worst = 0.0;  // weighted: 1 = the tolerance
      for (size_t k = 1; k < run.frames.size(); ++k)
        worst = std::max(worst, sys.weighted_norm(run.frames[k].q - reference.frames[k].q, reference.frames[k].q,
                                                  kTolerance, nullptr));
      INFO(name << (a.dynamics.integrator == DynamicSettings::Integrator::BDF ? ", BDF 2" : ", HHT") << ": "
                << run.summary.newton_iterations << " iterations against " << reference.summary.newton_iterations
                << " in " << run.summary.steps << " steps, largest weighted difference " << worst);
      CHECK(worst <= 1.0);
      // Two Newton updates per step: the second, about 1e-5 of the first, is accepted by the rate.
      CHECK(run.summary.newton_iterations == 2 * run.summary.steps);
    }
  }
}

namespace {

// F(x) = 0 on the host with a dense LU; the factorization's identity is a count, and `current`
// stands for the backend's (0 where another factorization replaced it).
struct HostProblem final : NewtonProblem {
  std::function<Eigen::VectorXd(const Eigen::VectorXd&)> residual;
  std::function<Eigen::MatrixXd(const Eigen::VectorXd&)> jacobian;
  Eigen::VectorXd x, first, r, dx;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu;
  double tolerance = 1e-10, limit = 0.0;
  long factorizations = 0, current = 0;
  int evaluations = 0, restarts = 0;

  HostProblem(std::function<Eigen::VectorXd(const Eigen::VectorXd&)> f,
              std::function<Eigen::MatrixXd(const Eigen::VectorXd&)> j, const Eigen::VectorXd& x0)
      : residual(std::move(f)), jacobian(std::move(j)), x(x0), first(x0) {}
  void start(bool again) override {
    if (again) {
      x = first;
      ++restarts;
    }
  }
  NewtonResidual evaluate(bool) override {
    ++evaluations;
    r = residual(x);
    const double norm = r.lpNorm<Eigen::Infinity>();
    return {r.allFinite() ? norm : INFINITY, norm};
  }
  double residual_limit() override { return limit; }
  long factorize() override {
    const Eigen::MatrixXd J = jacobian(x);
    if (J.determinant() == 0.0) throw SimulationError("the test matrix is singular");
    lu.compute(J);
    return current = ++factorizations;
  }
  bool holds(long factorization) override { return factorization == current; }
  void solve() override { dx = -lu.solve(r); }
  NewtonUpdate apply(double step) override {
    x += step * dx;
    NewtonUpdate u{0.0, -1};
    for (int i = 0; i < x.size(); ++i) {
      const double w = std::fabs(dx[i]) / tolerance;  // an absolute tolerance
      if (!(w <= u.weighted)) u = {w, i};
    }
    return u;
  }
  std::vector<int> non_finite_entries() override {
    std::vector<int> entries;
    for (int i = 0; i < r.size(); ++i)
      if (!std::isfinite(r[i])) entries.push_back(i);
    return entries;
  }
  std::string describe(int entry) override { return "x" + std::to_string(entry); }
};

Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd x(static_cast<int>(v.size()));
  int i = 0;
  for (double a : v) x[i++] = a;
  return x;
}

// x^2 = 4 (componentwise), from 3.
HostProblem square_root_problem() {
  return HostProblem([](const Eigen::VectorXd& x) { return Eigen::VectorXd(x.array().square() - 4.0); },
                     [](const Eigen::VectorXd& x) { return Eigen::MatrixXd(Eigen::MatrixXd(2.0 * x.asDiagonal())); },
                     vec({3.0}));
}

}  // namespace

TEST_CASE("Newton solver: the rate estimate ends the iteration an update before the plain test", "[newton]") {
  // Updates 0.83, 0.16, 6.4e-3, 1.0e-5, 2.6e-11: at 1e-7, the fourth is 103 tolerances, its rate
  // 1.6e-3 against the third puts the error left at 0.17.
  NewtonOptions plain;
  plain.update_test = NewtonOptions::UpdateTest::Plain;
  HostProblem a = square_root_problem();
  a.tolerance = 1e-7;
  const NewtonOutcome p = NewtonSolver(plain).solve(a);
  NewtonOptions estimated;  // the default
  HostProblem b = square_root_problem();
  b.tolerance = 1e-7;
  const NewtonOutcome e = NewtonSolver(estimated).solve(b);
  INFO("plain: " << p.updates << " updates, estimated: " << e.updates);
  REQUIRE(p.converged);
  REQUIRE(e.converged);
  CHECK(p.failure == NewtonFailure::None);
  CHECK(p.why.empty());
  CHECK(p.updates == 5);
  CHECK(e.updates == 4);
  CHECK(e.iterations == e.updates);  // converged on an update, not on the residual
  CHECK(std::fabs(a.x[0] - 2.0) < 1e-14);
  CHECK(std::fabs(b.x[0] - 2.0) < 1e-9);
  CHECK(a.factorizations == p.updates);  // full Newton: a factorization an update
}

TEST_CASE("Newton solver: the residual limit, from the second iterate or from the first where asked", "[newton]") {
  NewtonOptions o;
  o.update_test = NewtonOptions::UpdateTest::None;
  HostProblem at_root = square_root_problem();
  at_root.x = at_root.first = vec({2.0});
  const NewtonOutcome updated = NewtonSolver(o).solve(at_root);
  CHECK(updated.converged);
  CHECK(updated.updates == 1);  // the first iterate is always updated
  CHECK(updated.iterations == 2);
  o.test_first_residual = true;
  HostProblem again = square_root_problem();
  again.x = again.first = vec({2.0});
  const NewtonOutcome accepted = NewtonSolver(o).solve(again);
  CHECK(accepted.converged);
  CHECK(accepted.updates == 0);
  CHECK(again.factorizations == 0);
  // Without an update test the last iterate is evaluated too: max_iterations updates, one more
  // evaluation.
  o.max_iterations = 3;
  o.test_first_residual = false;
  HostProblem far = square_root_problem();
  far.x = far.first = vec({1e6});
  const NewtonOutcome stopped = NewtonSolver(o).solve(far);
  CHECK_FALSE(stopped.converged);
  CHECK(stopped.failure == NewtonFailure::Iterations);
  CHECK(stopped.why == "Newton did not converge in 3 iterations");
  CHECK(stopped.updates == 3);
  CHECK(stopped.iterations == 4);
  CHECK(far.evaluations == 4);
}

TEST_CASE("Newton solver: diverging updates, a residual or update that is not finite, a singular matrix",
          "[newton]") {
  // Newton on atan(x) = 0 from x = 3 overshoots further each update.
  const auto atan_problem = [] {
    return HostProblem([](const Eigen::VectorXd& x) { return Eigen::VectorXd(x.array().atan()); },
                       [](const Eigen::VectorXd& x) {
                         return Eigen::MatrixXd(Eigen::VectorXd(1.0 / (1.0 + x.array().square())).asDiagonal());
                       },
                       vec({3.0}));
  };
  HostProblem a = atan_problem();
  const NewtonOutcome diverging = NewtonSolver(NewtonOptions{}).solve(a);
  CHECK(diverging.failure == NewtonFailure::Diverging);
  CHECK(diverging.why == "Newton iteration diverges");
  CHECK(diverging.updates == 4);  // three growing after the first
  CHECK(diverging.worst_dof == 0);
  // Without the divergence test the iteration runs on until the numbers overflow.
  NewtonOptions no_divergence;
  no_divergence.diverging_updates = 0;
  HostProblem b = atan_problem();
  const NewtonOutcome overflowing = NewtonSolver(no_divergence).solve(b);
  CHECK_FALSE(overflowing.converged);
  CHECK(overflowing.failure != NewtonFailure::Diverging);
  CHECK(overflowing.updates > 4);

  // The residual's first entry that is not finite is named.
  HostProblem c([](const Eigen::VectorXd& x) { return vec({x[0] - 1.0, std::log(x[1]), std::log(x[2])}); },
                [](const Eigen::VectorXd&) { return Eigen::MatrixXd(Eigen::MatrixXd::Identity(3, 3)); },
                vec({0.0, -1.0, -2.0}));
  const NewtonOutcome nan = NewtonSolver(NewtonOptions{}).solve(c);
  CHECK(nan.failure == NewtonFailure::ResidualNotFinite);
  CHECK(nan.why == "the residual is not finite (NaN or overflow), first at x1");
  CHECK(nan.residual_not_finite);
  CHECK(nan.worst_dof == 1);
  CHECK(nan.unsettled_dofs == std::vector<int>{1, 2});
  CHECK(nan.updates == 0);
  CHECK(newton_diagnosis(nan, "residual", "N", [](int i) { return "x" + std::to_string(i); })
            .find("; residual ") != std::string::npos);

  // A singular matrix ends the iteration with the factorization's message.
  HostProblem d([](const Eigen::VectorXd& x) { return Eigen::VectorXd(x.array().square()); },
                [](const Eigen::VectorXd& x) { return Eigen::MatrixXd(Eigen::MatrixXd(2.0 * x.asDiagonal())); },
                vec({0.0}));
  d.limit = -1.0;  // never at the floor
  const NewtonOutcome singular = NewtonSolver(NewtonOptions{}).solve(d);
  CHECK(singular.failure == NewtonFailure::Singular);
  CHECK(singular.why == "the test matrix is singular");
}

TEST_CASE("Newton solver: modified Newton keeps the factorization it holds, and retries a failure from a fresh one",
          "[newton]") {
  NewtonOptions o;
  o.modified = true;
  o.max_iterations = 30;
  NewtonSolver solver(o);
  // Linear: one factorization serves, and the next solve reuses it while the problem holds it.
  const auto linear = [](double b) {
    return HostProblem([b](const Eigen::VectorXd& x) { return vec({3.0 * x[0] + x[1] - b, x[0] + 2.0 * x[1]}); },
                       [](const Eigen::VectorXd&) { return Eigen::MatrixXd((Eigen::MatrixXd(2, 2) << 3, 1, 1, 2).finished()); },
                       vec({0.0, 0.0}));
  };
  HostProblem first = linear(5.0);
  REQUIRE(solver.solve(first).converged);
  CHECK(first.factorizations == 1);
  HostProblem second = linear(7.0);
  second.current = first.current;  // the factorization is still the current one
  second.lu = first.lu;
  REQUIRE(solver.solve(second).converged);
  CHECK(second.factorizations == 0);
  HostProblem third = linear(9.0);
  third.current = 0;  // replaced since
  REQUIRE(solver.solve(third).converged);
  CHECK(third.factorizations == 1);

  // Nonlinear: x^3 = 1 from 3 with the chord of x = 1.1 does not converge in 30 iterations; the
  // retry from x = 3 with a fresh factorization does.
  const auto cube = [](double x0) {
    return HostProblem([](const Eigen::VectorXd& x) { return Eigen::VectorXd(x.array().cube() - 1.0); },
                       [](const Eigen::VectorXd& x) {
                         return Eigen::MatrixXd(Eigen::VectorXd(3.0 * x.array().square()).asDiagonal());
                       },
                       vec({x0}));
  };
  NewtonSolver kept(o);
  HostProblem near = cube(1.1);
  REQUIRE(kept.solve(near).converged);
  HostProblem far = cube(3.0);
  far.current = near.current;
  far.lu = near.lu;
  const NewtonOutcome out = kept.solve(far);
  INFO(out.iterations << " iterations, " << far.factorizations << " factorizations");
  CHECK(out.converged);
  CHECK(far.restarts == 1);
  CHECK(far.factorizations >= 1);
  CHECK(std::fabs(far.x[0] - 1.0) < 1e-9);
  CHECK(out.iterations == far.evaluations);  // both attempts counted
}

TEST_CASE("Backend::factorize returns a new identity each time, and none is current after a failure",
          "[newton][assembly]") {
  const Model m = falling_cable_pendulum(4);
  CpuBackend backend(m);
  const Eigen::VectorXd q = initial_coordinates(m), v = Eigen::VectorXd::Zero(m.dof_count());
  Eigen::VectorXd f;
  CHECK(backend.factorization() == 0);
  NewtonMatrixCoefficients c;
  c.mass = 1.0;
  c.stiffness = 1e-3;
  host_assemble_newton_matrix(backend, q, v, c, f);
  const long a = backend.factorize();
  CHECK(a != 0);
  CHECK(backend.factorization() == a);
  const long b = backend.factorize();
  CHECK(b != a);
  CHECK(backend.factorization() == b);
  // All coefficients 0 but the constraints': singular.
  NewtonMatrixCoefficients none;
  host_assemble_newton_matrix(backend, q, v, none, f);
  CHECK_THROWS_AS(backend.factorize(), SimulationError);
  CHECK(backend.factorization() == 0);
}

TEST_CASE("a cable of short elements steps from rest at h = 1e-3 s, its free end in free fall", "[dynamics][newton]") {
  // The falling cable of 1,024 and 4,096 elements (each shorter than the 2 cm diameter): Newton
  // diverged at the first step from the predictor a1 = a0, whose accelerations hold the stiff
  // modes the step damps; the step is taken from q0 instead (NewmarkNewton::solve). Its free end
  // falls freely, z = -g t^2 / 2 (the Newmark formulas are exact for a constant acceleration),
  // until the pin's disturbance reaches it: a run at h = 1e-5 s puts the tip within 2e-16 m of
  // free fall at 1 ms, 5e-8 m at 4 ms and 8e-7 m at 7 ms (docs/performance.md, "Newton under mesh
  // refinement"); the first three frames are held to 1e-4 of the fall.
  constexpr double g = 9.81;
  for (const int elements : {1024, 4096}) {
    nlohmann::json c = nlohmann::json::parse(slurp(std::string(CATENARY_SOURCE_DIR) + "/cases/falling_cable_pendulum.json"));
    c["model"]["bodies"][0]["elements"] = elements;
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "catenary_short_elements.json";
    std::ofstream(file) << c.dump();
    const Model m = load_case(file.string()).model;
    const RunResult r = run_model(m, dynamic_settings(1e-3, 0.01, -0.2));
    INFO(elements << " elements: " << r.summary.message);
    REQUIRE(r.summary.steps == 10);
    CHECK(r.summary.newton_iterations <= 40);
    const int tip_z = 6 * elements + 2;
    for (const StoredFrame& f : r.frames) {
      if (f.time > 3.5e-3) break;
      const double free_fall = -0.5 * g * f.time * f.time;
      CHECK(std::fabs(f.q[tip_z] - free_fall) <= 1e-4 * std::fabs(free_fall));
    }
  }
}
