#include "contact_events.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "catenary/multibody/mechanism.hpp"

namespace catenary {

ContactEvents::ContactEvents(System& sys, double tolerance) : sys_(sys), tolerance_(tolerance) {
  const RigidContacts& rc = sys.multibody().mechanism().contacts;
  for (int c = 0; c < rc.count(); ++c)
    for (int k = 0; k < rc.point_count(c); ++k) point_contact_.push_back(c);
}

std::vector<double> ContactEvents::gaps(const Vector& q) {
  std::vector<double> out;
  if (!active()) return out;
  const RigidContacts& rc = sys_.multibody().mechanism().contacts;
  const Eigen::VectorXd x = sys_.mechanism_part(q), still = Eigen::VectorXd::Zero(x.size());
  for (int c = 0; c < rc.count(); ++c)
    for (const RigidContactPoint& p : rigid_contact_points(rc, c, x.data(), still.data())) out.push_back(p.gap);
  return out;
}

ContactEvents::Check ContactEvents::check(const std::vector<double>& g0, const std::vector<double>& g1) const {
  Check out;
  for (size_t k = 0; k < g0.size(); ++k) {
    if (!((g0[k] > 0.0 && g1[k] < 0.0) || (g0[k] < 0.0 && g1[k] > 0.0))) continue;
    ++out.switches;
    // Within the tolerance at either end: located there (a step before ended on it, or an impact
    // turned the point back). Locating it again would ask for steps short enough to lose the
    // accelerations to round-off.
    if (std::fabs(g1[k]) <= tolerance_ || std::fabs(g0[k]) <= tolerance_) continue;
    // The secant's step to half the tolerance past the switch (linear in time within the step).
    const double target = g0[k] > 0.0 ? -0.5 * tolerance_ : 0.5 * tolerance_;
    out.kind = Check::Kind::shorten;
    out.fraction = std::min(out.fraction, (g0[k] - target) / (g0[k] - g1[k]));
  }
  if (out.kind == Check::Kind::shorten)
    out.fraction = std::max(out.fraction, 1e-3);  // at most a thousandth per try: regula falsi can stall
  else if (out.switches > 0)
    out.kind = Check::Kind::located;
  return out;
}

int ContactEvents::apply_impacts(StepState& state, const std::vector<double>& g0, Eigen::VectorXd& impulses) {
  const Mechanism& mech = sys_.multibody().mechanism();
  const RigidContacts& rc = mech.contacts;
  if (!rc.any_impact()) return 0;
  const Eigen::VectorXd x = sys_.mechanism_part(state.q), v = sys_.mechanism_part(state.v);
  const int n = static_cast<int>(x.size());
  // Rows of H: the closing points' gap rates, which are linear in v: column j is the rate at v = e_j
  // (only the contact's two bodies' coordinates can be nonzero).
  std::vector<Eigen::VectorXd> rows;
  std::vector<double> restitution;
  std::vector<int> contact_of;
  size_t first_point = 0;
  for (int c = 0; c < rc.count(); ++c) {
    const RigidContactLaw& law = rc.law(c);
    const std::vector<RigidContactPoint> points = rigid_contact_points(rc, c, x.data(), v.data());
    for (size_t k = 0; k < points.size(); ++k) {
      const double before = g0[first_point + k];
      const bool arrived = before > 0.0 && points[k].gap <= tolerance_;
      if (!law.impact() || !arrived || !(points[k].gap_rate < -law.capture_speed)) continue;
      Eigen::VectorXd h = Eigen::VectorXd::Zero(n), unit = Eigen::VectorXd::Zero(n);
      for (int body : {rc.body_i(c), rc.body_j(c)}) {
        if (body == kGround) continue;
        for (int j = 7 * body; j < 7 * body + 7; ++j) {
          unit[j] = 1.0;
          h[j] = rigid_contact_points(rc, c, x.data(), unit.data())[k].gap_rate;
          unit[j] = 0.0;
        }
      }
      rows.push_back(h);
      restitution.push_back(law.restitution);
      contact_of.push_back(c);
    }
    first_point += points.size();
  }
  if (rows.empty()) return 0;
  Eigen::MatrixXd M;
  mass_matrix(mech, x, M);
  const ConstraintState cs = evaluate_constraints(mech, x, v, state.t);
  const Eigen::MatrixXd C(cs.jacobian);
  const int m = static_cast<int>(C.rows()), k = static_cast<int>(rows.size());
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n + m + k, n + m + k);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n + m + k);
  A.topLeftCorner(n, n) = M;
  A.block(0, n, n, m) = C.transpose();
  A.block(n, 0, m, n) = C;
  for (int r = 0; r < k; ++r) {
    A.block(0, n + m + r, n, 1) = rows[r];
    A.block(n + m + r, 0, 1, n) = rows[r].transpose();
    b[n + m + r] = -(1.0 + restitution[r]) * rows[r].dot(v);
  }
  // Complete orthogonal decomposition: redundant rows (a box landing flat on four corners, joints
  // that repeat a condition) leave the system singular but consistent; it takes the least-norm
  // impulses.
  const Eigen::VectorXd solution = A.completeOrthogonalDecomposition().solve(b);
  sys_.add_to_mechanism_part(solution.head(n), state.v);
  // P multiplies H^T in the momentum balance: the impulse the surface gives the point, along n.
  for (int r = 0; r < k; ++r) impulses[contact_of[r]] += std::fabs(solution[n + m + r]);
  consistent_accelerations(sys_, state.q, state.v, state.t, state.a, state.lambda);
  return k;
}

}  // namespace catenary
