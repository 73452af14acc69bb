// Design sensitivities at a static equilibrium: see include/catenary/integrators/static_sensitivity.hpp.
#include "catenary/integrators/static_sensitivity.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/system.hpp"
#include "sensitivity_terms.hpp"

namespace catenary {

namespace {

// The relative asymmetry of the static Newton matrix above which the adjoint is refused: far
// above the symmetry test's own error (its differences are exact on the linear terms and
// second order on the rest).
constexpr double kAsymmetryLimit = 1e-6;

// -R(q, lambda) = [g - f(q, 0) - Phi_q^T lambda; b - Phi(q)] at load factor 1 and t = 0, as
// statics.cpp's static_residual forms it at the last load step; with matrix, the Newton matrix
// (stiffness coefficient 1, so that it is dR/d(q, lambda)) is assembled in the backend too.
Eigen::VectorXd minus_residual(System& sys, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda, bool matrix) {
  Backend& b = sys.backend();
  const int n = sys.dofs(), m = sys.constraints();
  Vector qv = b.make_vector(n), v = b.make_vector(n), g = b.make_vector(n), y = b.make_vector(n);
  Vector lv = b.make_vector(m), rows = b.make_vector(m), phi = b.make_vector(m), rc = b.make_vector(m);
  b.upload(q, qv);
  b.upload(lambda, lv);
  Eigen::VectorXd rhs;
  sys.constraint_rhs(0.0, rhs);
  b.upload(rhs, rows);
  sys.external_force(0.0, g);
  NewtonMatrixCoefficients c;
  c.stiffness = 1.0;
  sys.newton_terms(qv, v, 0.0, ForceTerms{1.0, 0.0, &qv, &g}, lv, c, y, phi, NewtonTermsForm{matrix});
  b.combine({{1.0, &rows}, {-1.0, &phi}}, rc);
  Eigen::VectorXd top, bottom, out(n + m);
  b.download(y, top);
  b.download(rc, bottom);
  out << top, bottom;
  return out;
}

// max |u.Jv - v.Ju| / (|u||Jv| + |v||Ju|) over two fixed directions u, v of the coordinates, J =
// d(-R)/dq by central differences: the asymmetry of the stiffness block (the constraint blocks
// are Phi_q and Phi_q^T by construction).
double stiffness_asymmetry(System& sys, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda) {
  const int n = sys.dofs();
  Eigen::VectorXd u(n), v(n);
  for (int i = 0; i < n; ++i) {
    const double s = coordinate_scale(sys.model(), q, i);
    u[i] = s * std::sin(1.3 * i + 0.7);
    v[i] = s * std::cos(2.1 * i + 0.3);
  }
  auto product = [&](const Eigen::VectorXd& d) {
    const Eigen::VectorXd up = minus_residual(sys, q + kCoordinateStep * d, lambda, false);
    const Eigen::VectorXd down = minus_residual(sys, q - kCoordinateStep * d, lambda, false);
    return Eigen::VectorXd(((up - down) / (2.0 * kCoordinateStep)).head(n));
  };
  const Eigen::VectorXd Jv = product(v), Ju = product(u);
  const double scale = u.norm() * Jv.norm() + v.norm() * Ju.norm();
  return scale > 0.0 ? std::fabs(u.dot(Jv) - v.dot(Ju)) / scale : 0.0;
}

// [x; y] = A^-1 [r.head(n); r.tail(m)] with the backend's factorization.
Eigen::VectorXd solve(Backend& b, const Eigen::VectorXd& r, int n, int m) {
  Vector top = b.make_vector(n), bottom = b.make_vector(m), x = b.make_vector(n), y = b.make_vector(m);
  b.upload(Eigen::VectorXd(r.head(n)), top);
  b.upload(Eigen::VectorXd(r.tail(m)), bottom);
  b.solve(top, bottom, x, y);
  Eigen::VectorXd xh, yh, out(n + m);
  b.download(x, xh);
  b.download(y, yh);
  out << xh, yh;
  return out;
}

}  // namespace

DesignSensitivities static_sensitivities(const Case& c, Backend& backend, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& lambda, const BackendMaker& make_backend) {
  const auto start = std::chrono::steady_clock::now();
  const SensitivitySettings& s = c.sensitivity;
  System sys(c.model, backend);
  const int n = sys.dofs(), m = sys.constraints();
  const size_t variables = s.variables.size(), objectives = s.objectives.size();
  DesignSensitivities out;
  out.method = s.adjoint ? "adjoint" : "direct";
  out.variables = s.variables;
  out.values = s.values;

  if (s.adjoint) {
    const double asymmetry = stiffness_asymmetry(sys, q, lambda);
    if (!(asymmetry <= kAsymmetryLimit)) {
      std::ostringstream msg;
      msg << "sensitivities: the adjoint method solves with the static Newton matrix in place of its transpose, and "
             "this model's is not symmetric at the equilibrium (relative asymmetry "
          << asymmetry << "): use \"method\": \"direct\"";
      throw SimulationError(msg.str());
    }
  }

  // d(-R)/db and each quantity's explicit d/db at the equilibrium, by central differences over the
  // models with b -+ h.
  std::vector<Eigen::VectorXd> residual_slopes(variables);
  std::vector<std::vector<double>> explicit_slopes(objectives, std::vector<double>(variables));
  for (size_t k = 0; k < variables; ++k) {
    const double b = s.values[k], h = variable_step(s, k);
    Eigen::VectorXd r[2];
    std::vector<double> value[2];
    for (int side = 0; side < 2; ++side) {
      const Model model = changed_model(c, k, side == 0 ? b + h : b - h);
      const std::unique_ptr<Backend> changed_backend = make_backend(model);
      System changed(model, *changed_backend);
      r[side] = minus_residual(changed, q, lambda, false);
      for (const SensitivityObjective& o : s.objectives) value[side].push_back(objective_quantity(changed, o, q, lambda));
    }
    residual_slopes[k] = (r[0] - r[1]) / (2.0 * h);
    for (size_t j = 0; j < objectives; ++j) explicit_slopes[j][k] = (value[0][j] - value[1][j]) / (2.0 * h);
  }

  // The Newton matrix A = dR/d(q, lambda) at the equilibrium, factorized once.
  minus_residual(sys, q, lambda, true);
  backend.factorize();
  std::vector<Eigen::VectorXd> state_slopes;  // direct: dx/db = A^-1 d(-R)/db
  if (!s.adjoint)
    for (size_t k = 0; k < variables; ++k) state_slopes.push_back(solve(backend, residual_slopes[k], n, m));

  for (size_t j = 0; j < objectives; ++j) {
    const SensitivityObjective& o = s.objectives[j];
    const double value = objective_quantity(sys, o, q, lambda), slope = objective_slope(o, value);
    const Eigen::VectorXd gradient = objective_gradient(sys, o, q, lambda);
    Eigen::VectorXd mu;  // adjoint: A^-T d(quantity)/dx, with A = A^T
    if (s.adjoint) mu = solve(backend, gradient, n, m);
    ObjectiveSensitivity result{o.name, objective_value(o, value), {}};
    for (size_t k = 0; k < variables; ++k) {
      const double implicit = s.adjoint ? mu.dot(residual_slopes[k]) : gradient.dot(state_slopes[k]);
      result.derivatives.push_back(slope * (implicit + explicit_slopes[j][k]));
    }
    out.objectives.push_back(std::move(result));
  }
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace catenary
