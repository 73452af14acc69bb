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

// The marker with its axes turned cyclically so that axis k becomes h (k = 2: unchanged); the
// triad stays right-handed, so the drivers of rigid/joints.hpp (about and along h) apply.
rigid::Marker with_axis(const rigid::Marker& m, int k) {
  rigid::Marker out = m;
  if (k == 0) out.f = m.g, out.g = m.h, out.h = m.f;
  if (k == 1) out.f = m.h, out.g = m.f, out.h = m.g;
  return out;
}

rigid::ConstraintRows<1> driver_rows(const Mechanism& m, const Driver& d, const Eigen::VectorXd& q,
                                     const Eigen::VectorXd& v, double t) {
  const Joint& j = m.joints[d.joint];
  const rigid::BodyState bi = state_of(j.body_i, q, v), bj = state_of(j.body_j, q, v);
  const rigid::Marker mi = with_axis(j.marker_i, d.axis), mj = with_axis(j.marker_j, d.axis);
  const double f = d.motion.value(t), fd = d.motion.first_derivative(t), fdd = d.motion.second_derivative(t);
  return d.kind == Driver::Kind::Rotation ? rigid::rotation_driver(bi, mi, bj, mj, f, fd, fdd)
                                          : rigid::translation_driver(bi, mi, bj, mj, f, fd, fdd);
}

// The attached node as a pseudo-body: its position (or slope) as r, orientation fixed, so that
// body points and directions of rigid/constraint_primitives.hpp apply to it.
rigid::BodyState node_state(const Attachment&, int first, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  rigid::BodyState b = rigid::ground_state();
  for (int k = 0; k < 3; ++k) b.r[k] = q[first + k], b.rd[k] = v[first + k];
  return b;
}

// The rows of attachment k: r_node - (r + A s') = 0, then with align_slope r'_node . A b' and
// r'_node . A c' = 0. Node columns: the pseudo-body's r columns at the node's position (or slope)
// coordinates.
// Attachment k's rows, from row `row` (Mechanism::attachment_row(k)).
void put_attachment_rows(const Mechanism& m, int k, int row, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                         ConstraintState& s, std::vector<Eigen::Triplet<double>>& jac) {
  const Attachment& a = m.attachments[k];
  const rigid::BodyState body = state_of(a.body, q, v);
  const int node = m.node_coordinate(k);
  auto put = [&](const auto& rows, int count, int first_row, int node_first) {
    for (int r = 0; r < count; ++r) {
      s.phi[first_row + r] = rows.phi[r];
      s.nu[first_row + r] = rows.nu[r];
      s.gamma[first_row + r] = rows.gamma[r];
      for (int c = 0; c < 7; ++c) jac.emplace_back(first_row + r, 7 * a.body + c, rows.jac_i(r, c));
      for (int c = 0; c < 3; ++c) jac.emplace_back(first_row + r, node_first + c, rows.jac_j(r, c));
    }
  };
  const rigid::Marker at_point = rigid::marker_from_axis(a.point, vec3(0.0, 0.0, 1.0));
  const rigid::Marker at_node = rigid::marker_from_axis(Vec<3>::zero(), vec3(0.0, 0.0, 1.0));
  put(rigid::spherical_joint(body, at_point, node_state(a, node, q, v), at_node), 3, row, node);
  if (!a.align_slope) return;
  const rigid::Marker axis = rigid::marker_from_axis(Vec<3>::zero(), a.axis);
  const rigid::BodyState slope = node_state(a, node + 3, q, v);
  for (int r = 0; r < 2; ++r) {
    const rigid::KinematicVector across = rigid::body_direction(body, r == 0 ? axis.f : axis.g, rigid::Side::I);
    const rigid::KinematicVector node_slope = rigid::body_point(slope, Vec<3>::zero(), rigid::Side::J);
    put(rigid::scalar_row(rigid::kv_dot(across, node_slope)), 1, row + 3 + r, node + 3);
  }
}

// The rows of evaluate_constraints: phi, nu, gamma into s, the Jacobian's entries into jac,
// row after row.
void evaluate_rows(const Mechanism& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double t, ConstraintState& s,
                   std::vector<Eigen::Triplet<double>>& jac) {
  const int rows = m.row_count();
  s.phi.setZero(rows);
  s.nu.setZero(rows);
  s.gamma.setZero(rows);
  // Each kind's rows counted along from its first (Mechanism::joint_row and the others count from
  // row 0 at each call: asked per item, a sweep of thousands of bodies would pay that squared).
  int first_row = m.joint_row(0);
  for (size_t k = 0; k < m.joints.size(); ++k) {
    const Joint& j = m.joints[k];
    rigid::JointRows r;
    const int count =
        rigid::evaluate_joint(j.type, state_of(j.body_i, q, v), j.marker_i, state_of(j.body_j, q, v), j.marker_j, r);
    put_rows(r, count, first_row, j.body_i, j.body_j, s, jac);
    first_row += rigid::joint_equation_count(j.type);
  }
  first_row = m.driver_row(0);
  for (size_t k = 0; k < m.drivers.size(); ++k, ++first_row) {
    const Joint& j = m.joints[m.drivers[k].joint];
    put_rows(driver_rows(m, m.drivers[k], q, v, t), 1, first_row, j.body_i, j.body_j, s, jac);
  }
  first_row = m.motion_row(0);
  for (size_t k = 0; k < m.motions.size(); ++k, first_row += 6) {
    const BodyMotion& motion = m.motions[k];
    put_rows(body_motion_rows(motion, state_of(motion.body, q, v), t), 6, first_row, kGround, motion.body, s, jac);
  }
  first_row = m.attachment_row(0);
  for (size_t k = 0; k < m.attachments.size(); ++k) {
    put_attachment_rows(m, static_cast<int>(k), first_row, q, v, s, jac);
    first_row += m.attachments[k].row_count();
  }
  first_row = m.normalization_row(0);
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    const rigid::BodyState body = state_of(static_cast<int>(b), q, v);
    const rigid::NormalizationRow row = rigid::normalization_constraint(body.p, body.pd);
    const int r = first_row + static_cast<int>(b);
    s.phi[r] = row.phi;
    s.gamma[r] = row.gamma;
    for (int c = 0; c < 4; ++c) jac.emplace_back(r, 7 * static_cast<int>(b) + 3 + c, row.jac_p[c]);
  }
}

}  // namespace

int Mechanism::joint_row(int k) const {
  int row = 0;
  for (int i = 0; i < k; ++i) row += rigid::joint_equation_count(joints[i].type);
  return row;
}
int Mechanism::driver_row(int k) const { return joint_row(static_cast<int>(joints.size())) + k; }
int Mechanism::motion_row(int k) const { return driver_row(static_cast<int>(drivers.size())) + 6 * k; }
int Mechanism::attachment_row(int k) const {
  int row = motion_row(static_cast<int>(motions.size()));
  for (int i = 0; i < k; ++i) row += attachments[i].row_count();
  return row;
}
int Mechanism::normalization_row(int b) const { return attachment_row(static_cast<int>(attachments.size())) + b; }
int Mechanism::row_count() const { return normalization_row(static_cast<int>(bodies.size())); }

std::string Mechanism::describe_row(int r) const {
  for (size_t k = 0; k < joints.size(); ++k) {
    const int first = joint_row(static_cast<int>(k)), n = rigid::joint_equation_count(joints[k].type);
    if (r >= first && r < first + n) return "joint '" + joints[k].name + "' row " + std::to_string(r - first);
  }
  for (size_t k = 0; k < drivers.size(); ++k)
    if (r == driver_row(static_cast<int>(k))) return "driver '" + drivers[k].name + "'";
  for (size_t k = 0; k < motions.size(); ++k) {
    const int first = motion_row(static_cast<int>(k));
    if (r >= first && r < first + 6) return "the motion of rigid body '" + motions[k].name + "' row " + std::to_string(r - first);
  }
  for (size_t k = 0; k < attachments.size(); ++k) {
    const int first = attachment_row(static_cast<int>(k));
    if (r >= first && r < first + attachments[k].row_count())
      return "attachment '" + attachments[k].name + "' row " + std::to_string(r - first);
  }
  for (size_t b = 0; b < bodies.size(); ++b)
    if (r == normalization_row(static_cast<int>(b))) return "Euler-parameter normalization of body '" + bodies[b].name + "'";
  return "row " + std::to_string(r);
}

Eigen::VectorXd Mechanism::initial_positions() const {
  Eigen::VectorXd q(body_coordinate_count());
  for (size_t b = 0; b < bodies.size(); ++b) {
    for (int k = 0; k < 3; ++k) q[7 * b + k] = bodies[b].position[k];
    for (int k = 0; k < 4; ++k) q[7 * b + 3 + k] = bodies[b].orientation[k];
  }
  return q;
}

Eigen::VectorXd Mechanism::initial_velocities() const {
  Eigen::VectorXd v(body_coordinate_count());
  for (size_t b = 0; b < bodies.size(); ++b) {
    const Vec<4> pd = rigid::p_rate_from_angular_velocity(bodies[b].orientation, bodies[b].angular_velocity);
    for (int k = 0; k < 3; ++k) v[7 * b + k] = bodies[b].velocity[k];
    for (int k = 0; k < 4; ++k) v[7 * b + 3 + k] = pd[k];
  }
  return v;
}

ConstraintState evaluate_constraints(const Mechanism& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double t) {
  ConstraintState s;
  std::vector<Eigen::Triplet<double>> jac;
  evaluate_rows(m, q, v, t, s, jac);
  s.jacobian.resize(m.row_count(), m.coordinate_count());
  s.jacobian.setFromTriplets(jac.begin(), jac.end());
  return s;
}

Eigen::VectorXd constraint_jacobian_transpose_product(const Mechanism& m, const Eigen::VectorXd& q,
                                                      const Eigen::VectorXd& v, double t, const Eigen::VectorXd& mu) {
  ConstraintState s;
  std::vector<Eigen::Triplet<double>> jac;
  evaluate_rows(m, q, v, t, s, jac);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(m.coordinate_count());
  for (const Eigen::Triplet<double>& entry : jac) out[entry.col()] += entry.value() * mu[entry.row()];
  return out;
}

Eigen::Matrix<double, 7, 7> body_mass_block(const RigidBody& body, const double* q) {
  Eigen::Matrix<double, 7, 7> M = Eigen::Matrix<double, 7, 7>::Zero();
  M.topLeftCorner<3, 3>().diagonal().setConstant(body.mass);
  Vec<4> p;
  for (int k = 0; k < 4; ++k) p[k] = q[3 + k];
  const Mat<4, 4> euler = rigid::euler_mass_matrix(p, body.inertia);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) M(3 + i, 3 + j) = euler(i, j);
  return M;
}

void add_mass_product(const Mechanism& m, const double* q, const double* x, double* y) {
  using Vec7 = Eigen::Matrix<double, 7, 1>;
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    const int o = 7 * static_cast<int>(b);
    Eigen::Map<Vec7>(y + o) += body_mass_block(m.bodies[b], q + o) * Eigen::Map<const Vec7>(x + o);
  }
}

void add_quadratic_velocity_forces(const Mechanism& m, const double* q, const double* v, double* Q) {
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    const int o = 7 * static_cast<int>(b);
    const rigid::BodyState s = rigid::body_state(q + o, v + o);
    const Vec<4> qv = rigid::quadratic_velocity_force(s.p, s.pd, m.bodies[b].inertia);
    for (int k = 0; k < 4; ++k) Q[o + 3 + k] += qv[k];
  }
}

void mass_matrix(const Mechanism& m, const Eigen::VectorXd& q, Eigen::MatrixXd& M) {
  const int n = m.coordinate_count();
  M.setZero(n, n);
  Eigen::VectorXd unit = Eigen::VectorXd::Zero(n);
  for (int c = 0; c < m.body_coordinate_count(); ++c) {
    unit[c] = 1.0;
    add_mass_product(m, q.data(), unit.data(), M.col(c).data());
    unit[c] = 0.0;
  }
}

void generalized_forces(const Mechanism& m, const Vec<3>& gravity, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                        double t, Eigen::VectorXd& Q) {
  Q.setZero(m.coordinate_count());
  for (size_t b = 0; b < m.bodies.size(); ++b)
    for (int k = 0; k < 3; ++k) Q[7 * b + k] = m.bodies[b].mass * gravity[k];
  add_quadratic_velocity_forces(m, q.data(), v.data(), Q.data());
  add_applied_forces(m, q.data(), v.data(), t, Q.data());
}

double add_applied_forces(const Mechanism& m, const double* q, const double* v, double t, double* Q) {
  return add_force_element_forces(m.forces, q, v, t, Q) + add_rigid_contact_forces(m.contacts, q, v, Q);
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
  const Vec<3> shift = cross3(arm, force);
  JointReaction out;
  const double sign = on_j ? 1.0 : -1.0;
  for (int k = 0; k < 3; ++k) {
    out.force[k] = sign * force[k];
    out.torque[k] = sign * (torque[k] - shift[k]);
  }
  return out;
}

namespace {

// A body's generalized force g over (r, p) as a force and a torque: Q_p = 2 E^T n gives n = E Q_p / 2.
JointReaction force_and_torque(const double* g, const Vec<4>& p) {
  JointReaction out;
  const Mat<3, 4> E = rigid::e_matrix(p);
  for (int k = 0; k < 3; ++k) {
    out.force[k] = g[k];
    out.torque[k] = 0.0;
    for (int c = 0; c < 4; ++c) out.torque[k] += 0.5 * E(k, c) * g[3 + c];
  }
  return out;
}

}  // namespace

JointReaction motion_reaction(const Mechanism& m, int motion, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda,
                              double t) {
  const BodyMotion& bm = m.motions[motion];
  const rigid::BodyState b = state_of(bm.body, q, Eigen::VectorXd::Zero(q.size()));
  const rigid::ConstraintRows<6> rows = body_motion_rows(bm, b, t);
  // The generalized force -Phi_q^T lambda over the six rows.
  Vec<7> g = Vec<7>::zero();
  const int first = m.motion_row(motion);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 7; ++c) g[c] -= rows.jac_j(r, c) * lambda[first + r];
  return force_and_torque(g.v, b.p);
}

JointReaction attachment_loads(const Mechanism& m, int body, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda) {
  // -Phi_q^T mu over the body's columns, mu the multipliers of its attachments' rows alone.
  Eigen::VectorXd mu = Eigen::VectorXd::Zero(m.row_count());
  for (size_t k = 0; k < m.attachments.size(); ++k) {
    if (m.attachments[k].body != body) continue;
    const int first = m.attachment_row(static_cast<int>(k));
    mu.segment(first, m.attachments[k].row_count()) = lambda.segment(first, m.attachments[k].row_count());
  }
  const Eigen::VectorXd g =
      -constraint_jacobian_transpose_product(m, q, Eigen::VectorXd::Zero(q.size()), 0.0, mu).segment(7 * body, 7);
  return force_and_torque(g.data(), state_of(body, q, Eigen::VectorXd::Zero(q.size())).p);
}

}  // namespace catenary
