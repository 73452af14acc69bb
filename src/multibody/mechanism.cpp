#include "catenary/multibody/mechanism.hpp"

#include <stdexcept>

#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {

namespace {

rigid::BodyState state_of(int body, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  return body == kGround ? rigid::ground_state() : rigid::body_state(q.data() + 7 * body, v.data() + 7 * body);
}

// Writes N rows of a joint or driver (first row `row`) into the constraint state.
template <int N>
void put_rows(const rigid::ConstraintRows<N>& rows, int count, int row, int body_i, int body_j, ConstraintState& s,
              std::vector<Eigen::Triplet<double>>& jac) {
  for (int k = 0; k < count; ++k) {
    s.phi[row + k] = rows.phi[k];
    s.nu[row + k] = rows.nu[k];
    s.gamma[row + k] = rows.gamma[k];
    for (int c = 0; c < 7; ++c) {
      if (body_i != kGround) jac.emplace_back(row + k, 7 * body_i + c, rows.jac_i(k, c));
      if (body_j != kGround) jac.emplace_back(row + k, 7 * body_j + c, rows.jac_j(k, c));
    }
  }
}

rigid::ConstraintRows<1> driver_rows(const Mechanism& m, const Driver& d, const Eigen::VectorXd& q,
                                     const Eigen::VectorXd& v, double t) {
  const Joint& j = m.joints[d.joint];
  const rigid::BodyState bi = state_of(j.body_i, q, v), bj = state_of(j.body_j, q, v);
  const double f = d.motion.value(t), fd = d.motion.first_derivative(t), fdd = d.motion.second_derivative(t);
  return d.kind == Driver::Kind::Rotation ? rigid::rotation_driver(bi, j.marker_i, bj, j.marker_j, f, fd, fdd)
                                          : rigid::translation_driver(bi, j.marker_i, bj, j.marker_j, f, fd, fdd);
}

}  // namespace

int Mechanism::joint_row(int k) const {
  int row = 0;
  for (int i = 0; i < k; ++i) row += rigid::joint_equation_count(joints[i].type);
  return row;
}
int Mechanism::driver_row(int k) const { return joint_row(static_cast<int>(joints.size())) + k; }
int Mechanism::normalization_row(int b) const { return driver_row(static_cast<int>(drivers.size())) + b; }
int Mechanism::row_count() const { return normalization_row(static_cast<int>(bodies.size())); }

std::string Mechanism::describe_row(int r) const {
  for (size_t k = 0; k < joints.size(); ++k) {
    const int first = joint_row(static_cast<int>(k)), n = rigid::joint_equation_count(joints[k].type);
    if (r >= first && r < first + n) return "joint '" + joints[k].name + "' row " + std::to_string(r - first);
  }
  for (size_t k = 0; k < drivers.size(); ++k)
    if (r == driver_row(static_cast<int>(k))) return "driver '" + drivers[k].name + "'";
  for (size_t b = 0; b < bodies.size(); ++b)
    if (r == normalization_row(static_cast<int>(b))) return "Euler-parameter normalization of body '" + bodies[b].name + "'";
  return "row " + std::to_string(r);
}

Eigen::VectorXd Mechanism::initial_positions() const {
  Eigen::VectorXd q(coordinate_count());
  for (size_t b = 0; b < bodies.size(); ++b) {
    for (int k = 0; k < 3; ++k) q[7 * b + k] = bodies[b].position[k];
    for (int k = 0; k < 4; ++k) q[7 * b + 3 + k] = bodies[b].orientation[k];
  }
  return q;
}

Eigen::VectorXd Mechanism::initial_velocities() const {
  Eigen::VectorXd v(coordinate_count());
  for (size_t b = 0; b < bodies.size(); ++b) {
    const Vec<4> pd = rigid::p_rate_from_angular_velocity(bodies[b].orientation, bodies[b].angular_velocity);
    for (int k = 0; k < 3; ++k) v[7 * b + k] = bodies[b].velocity[k];
    for (int k = 0; k < 4; ++k) v[7 * b + 3 + k] = pd[k];
  }
  return v;
}

ConstraintState evaluate_constraints(const Mechanism& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double t) {
  const int rows = m.row_count(), n = m.coordinate_count();
  ConstraintState s;
  s.phi.setZero(rows);
  s.nu.setZero(rows);
  s.gamma.setZero(rows);
  std::vector<Eigen::Triplet<double>> jac;
  for (size_t k = 0; k < m.joints.size(); ++k) {
    const Joint& j = m.joints[k];
    rigid::JointRows r;
    const int count = rigid::evaluate_joint(j.type, state_of(j.body_i, q, v), j.marker_i,
                                            state_of(j.body_j, q, v), j.marker_j, r);
    put_rows(r, count, m.joint_row(static_cast<int>(k)), j.body_i, j.body_j, s, jac);
  }
  for (size_t k = 0; k < m.drivers.size(); ++k) {
    const Joint& j = m.joints[m.drivers[k].joint];
    put_rows(driver_rows(m, m.drivers[k], q, v, t), 1, m.driver_row(static_cast<int>(k)), j.body_i, j.body_j, s, jac);
  }
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    const rigid::BodyState body = state_of(static_cast<int>(b), q, v);
    const rigid::NormalizationRow row = rigid::normalization_constraint(body.p, body.pd);
    const int r = m.normalization_row(static_cast<int>(b));
    s.phi[r] = row.phi;
    s.gamma[r] = row.gamma;
    for (int c = 0; c < 4; ++c) jac.emplace_back(r, 7 * static_cast<int>(b) + 3 + c, row.jac_p[c]);
  }
  s.jacobian.resize(rows, n);
  s.jacobian.setFromTriplets(jac.begin(), jac.end());
  return s;
}

void mass_matrix(const Mechanism& m, const Eigen::VectorXd& q, Eigen::MatrixXd& M) {
  const int n = m.coordinate_count();
  M.setZero(n, n);
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    const int o = 7 * static_cast<int>(b);
    for (int k = 0; k < 3; ++k) M(o + k, o + k) = m.bodies[b].mass;
    Vec<4> p;
    for (int k = 0; k < 4; ++k) p[k] = q[o + 3 + k];
    const Mat<4, 4> Mp = rigid::euler_mass_matrix(p, m.bodies[b].inertia);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) M(o + 3 + r, o + 3 + c) = Mp(r, c);
  }
}

void generalized_forces(const Mechanism& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& Q) {
  Q.setZero(m.coordinate_count());
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    const int o = 7 * static_cast<int>(b);
    const rigid::BodyState s = state_of(static_cast<int>(b), q, v);
    for (int k = 0; k < 3; ++k) Q[o + k] = m.bodies[b].mass * m.gravity[k];
    const Vec<4> qv = rigid::quadratic_velocity_force(s.p, s.pd, m.bodies[b].inertia);
    for (int k = 0; k < 4; ++k) Q[o + 3 + k] = qv[k];
  }
}

JointReaction joint_reaction(const Mechanism& m, int joint, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda) {
  const Joint& j = m.joints[joint];
  if (j.body_i == kGround && j.body_j == kGround) throw std::invalid_argument("joint between ground and ground");
  // The reaction on body j (or, for a joint to ground as body j, minus the reaction on body i).
  const bool on_j = j.body_j != kGround;
  const int body = on_j ? j.body_j : j.body_i;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(q.size());
  const ConstraintState s = evaluate_constraints(m, q, zero, 0.0);
  const int first = m.joint_row(joint), count = rigid::joint_equation_count(j.type);
  // Generalized constraint force on the body: -Phi_q^T lambda over this joint's rows (and its
  // drivers' rows).
  Eigen::VectorXd g = Eigen::VectorXd::Zero(7);
  auto add_rows = [&](int row, int rows) {
    const Eigen::MatrixXd block = Eigen::MatrixXd(s.jacobian.middleRows(row, rows)).middleCols(7 * body, 7);
    g -= block.transpose() * lambda.segment(row, rows);
  };
  add_rows(first, count);
  for (size_t d = 0; d < m.drivers.size(); ++d)
    if (m.drivers[d].joint == joint) add_rows(m.driver_row(static_cast<int>(d)), 1);
  Vec<4> p;
  for (int k = 0; k < 4; ++k) p[k] = q[7 * body + 3 + k];
  Vec<3> force, torque;
  const Mat<3, 4> E = rigid::e_matrix(p);
  for (int k = 0; k < 3; ++k) {
    force[k] = g[k];
    torque[k] = 0.0;
    for (int c = 0; c < 4; ++c) torque[k] += 0.5 * E(k, c) * g[3 + c];  // Q_p = 2 E^T n
  }
  // About the marker point instead of the centre of mass: n_P = n - (P - r) x F.
  const Vec<3> arm = rigid::rotate(p, on_j ? j.marker_j.s : j.marker_i.s);
  const Vec<3> shift = rigid::cross3(arm, force);
  JointReaction out;
  const double sign = on_j ? 1.0 : -1.0;
  for (int k = 0; k < 3; ++k) {
    out.force[k] = sign * force[k];
    out.torque[k] = sign * (torque[k] - shift[k]);
  }
  return out;
}

}  // namespace catenary
