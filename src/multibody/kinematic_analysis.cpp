#include "catenary/multibody/kinematic_analysis.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>
#include <sstream>

#include "catenary/core/errors.hpp"
#include "catenary/solve/newton.hpp"

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

// Newton on Phi(q, t) = 0 for a zero-DOF mechanism (square): q -= Phi_q^-1 Phi, accepted where
// max |Phi| <= 1e-13 (1 + max |q|), the first iterate included (the predictor may already be on
// the constraints); the residual is the only measure (no update test, no divergence test: the
// predictor starts each frame close, and 20 updates bound a lost one).
NewtonOptions kinematic_newton_options() {
  NewtonOptions o;
  o.max_iterations = 20;
  o.update_test = NewtonOptions::UpdateTest::None;
  o.test_first_residual = true;
  o.diverging_updates = 0;
  return o;
}

class SquarePositions final : public NewtonProblem {
 public:
  SquarePositions(const Mechanism& m, Eigen::VectorXd& q, const Eigen::VectorXd& v, double t)
      : m_(m), q_(q), v_(v), t_(t) {}
  // The constraints at the last iterate evaluated (the converged one).
  const ConstraintState& state() const { return s_; }

  NewtonResidual evaluate(bool) override {
    s_ = evaluate_constraints(m_, q_, v_, t_);
    const double norm = s_.phi.lpNorm<Eigen::Infinity>();
    return {norm, norm};
  }
  double residual_limit() override { return 1e-13 * (1.0 + q_.lpNorm<Eigen::Infinity>()); }
  long factorize() override {
    lu_ = factor_square_jacobian(m_, q_, s_, t_);
    return ++factorizations_;
  }
  void solve() override { dq_ = lu_.solve(s_.phi); }
  // The update relative to the coordinates' scale (no update test reads it).
  NewtonUpdate apply(double) override {
    q_ -= dq_;
    return {dq_.lpNorm<Eigen::Infinity>() / (1e-13 * (1.0 + q_.lpNorm<Eigen::Infinity>())), -1};
  }

 private:
  const Mechanism& m_;
  Eigen::VectorXd& q_;
  const Eigen::VectorXd& v_;
  const double t_;
  ConstraintState s_;
  Eigen::FullPivLU<Eigen::MatrixXd> lu_;
  Eigen::VectorXd dq_;
  long factorizations_ = 0;
};

}  // namespace

std::string describe_singularity(const Mechanism& m, const Eigen::VectorXd& q, double t, double* relative_smallest) {
  const ConstraintState s = evaluate_constraints(m, q, Eigen::VectorXd::Zero(q.size()), t);
  // Each row scaled to unit length: rows in metres (a joint's point with its lever arm) and
  // dimensionless rows (an orientation, the Euler parameters' norm) differ in scale by the
  // lever arms, which would read as a near dependence on a large body; scaling keeps a true one.
  Eigen::MatrixXd J(s.jacobian);
  for (Eigen::Index r = 0; r < J.rows(); ++r)
    if (const double norm = J.row(r).norm(); norm > 0.0) J.row(r) /= norm;
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(J, Eigen::ComputeFullU);
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

std::vector<KinematicFrame> run_kinematics(const Mechanism& m, const Vec<3>& gravity, double end_time, double step) {
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
  NewtonSolver solver(kinematic_newton_options());
  const int steps = static_cast<int>(std::ceil(end_time / step - 1e-9));
  for (int k = 0; k <= steps; ++k) {
    const double t = std::min(k * step, end_time), h = k > 0 ? t - frames.back().t : 0.0;
    q += h * v + 0.5 * h * h * a;  // predictor from the last frame
    SquarePositions positions(m, q, v, t);
    const NewtonOutcome out = solver.solve(positions);
    if (out.failure == NewtonFailure::Singular) throw SimulationError(out.why);
    if (!out.converged) {
      std::ostringstream msg;
      msg << "kinematic analysis: positions did not converge at t = " << t << " s (" << out.why
          << "; largest violation " << out.last_residual << "); at the last position found, "
          << describe_singularity(m, frames.empty() ? m.initial_positions() : frames.back().q,
                                  frames.empty() ? t : frames.back().t);
      throw SimulationError(msg.str());
    }
    ConstraintState s = positions.state();
    const Eigen::FullPivLU<Eigen::MatrixXd> lu = factor_square_jacobian(m, q, s, t);
    v = lu.solve(s.nu);
    s = evaluate_constraints(m, q, v, t);  // gamma depends on the velocities
    a = lu.solve(s.gamma);
    // Inverse dynamics: Phi_q^T lambda = Q - M a.
    Eigen::MatrixXd M;
    Eigen::VectorXd Q;
    mass_matrix(m, q, M);
    generalized_forces(m, gravity, q, v, t, Q);
    const Eigen::MatrixXd Ct = Eigen::MatrixXd(s.jacobian).transpose();
    KinematicFrame f;
    f.t = t;
    f.q = q;
    f.v = v;
    f.a = a;
    f.lambda = Eigen::FullPivLU<Eigen::MatrixXd>(Ct).solve(Q - M * a);
    f.iterations = out.updates;
    frames.push_back(std::move(f));
  }
  return frames;
}

}  // namespace catenary
