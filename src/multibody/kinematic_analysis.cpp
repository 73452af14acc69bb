#include "catenary/multibody/kinematic_analysis.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>
#include <sstream>

#include "catenary/core/errors.hpp"

namespace catenary {

namespace {

// The joint or driver a row belongs to, as describe_row names it without the row number.
std::string owner_of_row(const Mechanism& m, int row) {
  const std::string d = m.describe_row(row);
  const auto cut = d.find("' row ");
  return cut == std::string::npos ? d : d.substr(0, cut + 1);
}

// Mechanisms have tens of coordinates: dense full-pivoting LU, which also tells the rank.
Eigen::FullPivLU<Eigen::MatrixXd> factor_square_jacobian(const Mechanism& m, const Eigen::VectorXd& q,
                                                         const ConstraintState& s, double t) {
  Eigen::FullPivLU<Eigen::MatrixXd> lu(Eigen::MatrixXd(s.jacobian));
  if (!lu.isInvertible()) throw SimulationError("kinematic analysis failed: " + describe_singularity(m, q, t));
  return lu;
}

}  // namespace

std::string describe_singularity(const Mechanism& m, const Eigen::VectorXd& q, double t, double* relative_smallest) {
  const ConstraintState s = evaluate_constraints(m, q, Eigen::VectorXd::Zero(q.size()), t);
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(Eigen::MatrixXd(s.jacobian), Eigen::ComputeFullU);
  const Eigen::VectorXd& sigma = svd.singularValues();
  const int rows = static_cast<int>(s.jacobian.rows());
  // Rows beyond the coordinates' count have no singular value: they are dependent for sure.
  const double smallest = sigma.size() < rows ? 0.0 : sigma[sigma.size() - 1];
  if (relative_smallest) *relative_smallest = sigma[0] > 0.0 ? smallest / sigma[0] : 0.0;
  const Eigen::VectorXd u = svd.matrixU().col(rows - 1).cwiseAbs();
  std::vector<std::string> involved;
  for (int r = 0; r < rows; ++r) {
    const std::string owner = owner_of_row(m, r);
    if (u[r] > 0.1 * u.maxCoeff() && std::find(involved.begin(), involved.end(), owner) == involved.end())
      involved.push_back(owner);
  }
  std::ostringstream msg;
  const double ratio = sigma[0] > 0.0 ? smallest / sigma[0] : 0.0;
  msg << "at t = " << t << " s the constraint Jacobian is "
      << (ratio <= 1e-9 ? "singular" : ratio <= 1e-3 ? "nearly singular" : "closest to singular")
      << " (smallest singular value " << smallest << " of " << sigma[0] << ") in the rows of ";
  for (size_t k = 0; k < involved.size(); ++k) msg << (k ? ", " : "") << involved[k];
  msg << (ratio <= 1e-3 ? ": they lose rank together (a dead point, a limit or bifurcation of the mechanism, or "
                          "redundant joints)"
                        : "");
  return msg.str();
}

void check_redundant_constraints(const Mechanism& m, const Eigen::VectorXd& q, double t,
                                 const std::vector<FixedRow>& cable_rows) {
  const ConstraintState s = evaluate_constraints(m, q, Eigen::VectorXd::Zero(q.size()), t);
  // The cables' rows first, then the mechanism's.
  const int extra = static_cast<int>(cable_rows.size());
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(extra + s.jacobian.rows(), q.size());
  for (int r = 0; r < extra; ++r)
    for (const auto& [column, coefficient] : cable_rows[r].terms) J(r, column) = coefficient;
  J.bottomRows(s.jacobian.rows()) = Eigen::MatrixXd(s.jacobian);
  auto owner = [&](int r) { return r < extra ? cable_rows[r].owner : owner_of_row(m, r - extra); };
  auto describe = [&](int r) { return r < extra ? cable_rows[r].name : m.describe_row(r - extra); };
  const double scale = std::max(1.0, J.cwiseAbs().maxCoeff());
  for (int r = 1; r < J.rows(); ++r) {
    // Row r against the span of rows 0 .. r-1: the least-squares combination and its residual.
    const Eigen::MatrixXd earlier = J.topRows(r).transpose();
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(earlier);
    const Eigen::VectorXd c = qr.solve(Eigen::VectorXd(J.row(r).transpose()));
    if ((earlier * c - J.row(r).transpose()).norm() > 1e-9 * scale) continue;
    std::vector<std::string> involved = {owner(r)};
    const double largest = c.cwiseAbs().maxCoeff();
    for (int k = 0; k < r; ++k)
      if (std::fabs(c[k]) > 1e-8 * largest && std::find(involved.begin(), involved.end(), owner(k)) == involved.end())
        involved.push_back(owner(k));
    std::ostringstream msg;
    msg << describe(r) << " is redundant: at t = " << t << " s it repeats a combination of earlier rows of ";
    for (size_t k = 1; k < involved.size(); ++k) msg << (k > 1 ? ", " : "") << involved[k];
    msg << ". Replace a joint by one with fewer equations (in a planar loop of revolute joints, use "
           "spherical and universal joints for two of them) or remove it";
    throw ModelError(msg.str());
  }
}

AssemblyResult assemble_positions(const Mechanism& m, const Eigen::VectorXd& q0, const Eigen::VectorXd& weights,
                                  double t, double tolerance) {
  const int n = m.coordinate_count();
  AssemblyResult r;
  r.q = q0;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  for (r.iterations = 0; r.iterations < 50; ++r.iterations) {
    const ConstraintState s = evaluate_constraints(m, r.q, zero, t);
    r.constraint_violation = s.phi.lpNorm<Eigen::Infinity>();
    // The step to the minimum of 1/2 (q + dq - q0)^T W (q + dq - q0) with C dq = -Phi, in range
    // space form: dq = -(q - q0) + W^-1 C^T mu, (C W^-1 C^T) mu = C (q - q0) - Phi. Unlike the
    // full KKT matrix it stays well conditioned when some weights are very large.
    const Eigen::MatrixXd C(s.jacobian);
    const Eigen::VectorXd inverse_w = weights.cwiseInverse(), offset = r.q - q0;
    const Eigen::MatrixXd S = C * inverse_w.asDiagonal() * C.transpose();
    const Eigen::VectorXd mu = Eigen::FullPivLU<Eigen::MatrixXd>(S).solve(C * offset - s.phi);
    const Eigen::VectorXd dq = -offset + inverse_w.asDiagonal() * (C.transpose() * mu);
    r.q += dq;
    if (r.constraint_violation <= tolerance && dq.lpNorm<Eigen::Infinity>() <= tolerance * (1.0 + r.q.lpNorm<Eigen::Infinity>())) {
      r.constraint_violation = evaluate_constraints(m, r.q, zero, t).phi.lpNorm<Eigen::Infinity>();
      return r;
    }
  }
  std::ostringstream msg;
  msg << "assembly did not converge in 50 iterations (largest constraint violation " << r.constraint_violation
      << "): the initial positions may be too far from any assembled configuration";
  throw SimulationError(msg.str());
}

Eigen::VectorXd assemble_velocities(const Mechanism& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v0,
                                    const Eigen::VectorXd& weights, double t) {
  const ConstraintState s = evaluate_constraints(m, q, v0, t);
  const Eigen::MatrixXd C(s.jacobian);
  const Eigen::VectorXd inverse_w = weights.cwiseInverse();
  // min 1/2 (v - v0)^T W (v - v0) subject to C v = nu: v = v0 + W^-1 C^T mu.
  const Eigen::MatrixXd S = C * inverse_w.asDiagonal() * C.transpose();
  const Eigen::VectorXd mu = Eigen::FullPivLU<Eigen::MatrixXd>(S).solve(s.nu - C * v0);
  return v0 + inverse_w.asDiagonal() * (C.transpose() * mu);
}

std::vector<KinematicFrame> run_kinematics(const Mechanism& m, double end_time, double step) {
  const int n = m.coordinate_count(), rows = m.row_count();
  check_redundant_constraints(m, m.initial_positions(), 0.0);
  if (rows != n) {
    std::ostringstream msg;
    msg << "kinematic analysis needs a zero-DOF system: " << rows << " constraint rows (joints, drivers and "
        << m.bodies.size() << " normalization rows) for " << n << " coordinates";
    throw ModelError(msg.str());
  }
  std::vector<KinematicFrame> frames;
  Eigen::VectorXd q = m.initial_positions(), v = Eigen::VectorXd::Zero(n), a = Eigen::VectorXd::Zero(n);
  const int steps = static_cast<int>(std::ceil(end_time / step - 1e-9));
  for (int k = 0; k <= steps; ++k) {
    const double t = std::min(k * step, end_time), h = k > 0 ? t - frames.back().t : 0.0;
    q += h * v + 0.5 * h * h * a;  // predictor from the last frame
    // Positions: Newton on Phi(q, t) = 0 (square).
    ConstraintState s = evaluate_constraints(m, q, v, t);
    int it = 0;
    for (; s.phi.lpNorm<Eigen::Infinity>() > 1e-13 * (1.0 + q.lpNorm<Eigen::Infinity>()); ++it) {
      if (it == 20) {
        std::ostringstream msg;
        msg << "kinematic analysis: positions did not converge at t = " << t << " s (largest violation "
            << s.phi.lpNorm<Eigen::Infinity>() << "); at the last position found, "
            << describe_singularity(m, frames.empty() ? m.initial_positions() : frames.back().q,
                                    frames.empty() ? t : frames.back().t);
        throw SimulationError(msg.str());
      }
      q -= factor_square_jacobian(m, q, s, t).solve(s.phi);
      s = evaluate_constraints(m, q, v, t);
    }
    const Eigen::FullPivLU<Eigen::MatrixXd> lu = factor_square_jacobian(m, q, s, t);
    v = lu.solve(s.nu);
    s = evaluate_constraints(m, q, v, t);  // gamma depends on the velocities
    a = lu.solve(s.gamma);
    // Inverse dynamics: Phi_q^T lambda = Q - M a.
    Eigen::MatrixXd M;
    Eigen::VectorXd Q;
    mass_matrix(m, q, M);
    generalized_forces(m, q, v, t, Q);
    const Eigen::MatrixXd Ct = Eigen::MatrixXd(s.jacobian).transpose();
    KinematicFrame f;
    f.t = t;
    f.q = q;
    f.v = v;
    f.a = a;
    f.lambda = Eigen::FullPivLU<Eigen::MatrixXd>(Ct).solve(Q - M * a);
    f.iterations = it;
    frames.push_back(std::move(f));
  }
  return frames;
}

}  // namespace catenary
