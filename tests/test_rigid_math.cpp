// Rigid-body math (include/catenary/rigid): Euler parameters, Haug's constraint primitives, the
// joint library and drivers, each checked against an independent reference: Rodrigues' formula,
// finite differences of A(p(t)), central finite differences of Phi and of Phi_q, the Lagrange
// equations of T(p, p'), Euler's equations, virtual power, and the rank and null space of the
// joint Jacobians at assembled configurations.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "catenary/rigid/joints.hpp"
#include "body_frame_rates.hpp"

using namespace catenary;
using namespace catenary::rigid;

namespace {

using Rng = std::mt19937;
using Vec14 = Eigen::Matrix<double, 14, 1>;

double uniform(Rng& rng, double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }

Vec<3> random_vec3(Rng& rng, double scale = 1.0) {
  return vec3(uniform(rng, -scale, scale), uniform(rng, -scale, scale), uniform(rng, -scale, scale));
}

Vec<4> random_vec4(Rng& rng, double scale = 1.0) {
  return vec4(uniform(rng, -scale, scale), uniform(rng, -scale, scale), uniform(rng, -scale, scale),
              uniform(rng, -scale, scale));
}

Vec<4> random_unit_p(Rng& rng) {
  Vec<4> p;
  do p = random_vec4(rng);
  while (vec_norm(p) < 0.2);
  return normalized(p);
}

template <int N>
Eigen::Matrix<double, N, 1> to_eigen(const Vec<N>& v) {
  Eigen::Matrix<double, N, 1> e;
  for (int i = 0; i < N; ++i) e(i) = v[i];
  return e;
}

template <int R, int C>
Eigen::Matrix<double, R, C> to_eigen(const Mat<R, C>& m) {
  Eigen::Matrix<double, R, C> e;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) e(i, j) = m(i, j);
  return e;
}

Vec<3> from_eigen3(const Eigen::Vector3d& e) { return vec3(e(0), e(1), e(2)); }

Mat<3, 3> from_eigen33(const Eigen::Matrix3d& e) {
  Mat<3, 3> m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = e(i, j);
  return m;
}

Eigen::Vector3d vee(const Eigen::Matrix3d& w) {  // axial vector of the skew part
  return 0.5 * Eigen::Vector3d(w(2, 1) - w(1, 2), w(0, 2) - w(2, 0), w(1, 0) - w(0, 1));
}

double max_abs(const Eigen::MatrixXd& m) { return m.size() ? m.cwiseAbs().maxCoeff() : 0.0; }

// Relative closeness: |a - b|_max <= tol * max(1, |b|_max).
bool close(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tol) {
  return max_abs(a - b) <= tol * std::max(1.0, max_abs(b));
}

int numerical_rank(const Eigen::MatrixXd& m) {
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(m);
  const Eigen::VectorXd s = svd.singularValues();
  int rank = 0;
  for (int i = 0; i < s.size(); ++i)
    if (s(i) > 1e-9 * std::max(1.0, s(0))) ++rank;
  return rank;
}

// Two bodies as one 14-vector q = (r_i, p_i, r_j, p_j) and its rate.
void split(const Vec14& q, const Vec14& qd, BodyState& bi, BodyState& bj) {
  bi = body_state(q.data(), qd.data());
  bj = body_state(q.data() + 7, qd.data() + 7);
}

Vec14 random_q(Rng& rng, bool unit_p) {
  Vec14 q;
  for (int b = 0; b < 2; ++b) {
    const Vec<3> r = random_vec3(rng);
    const Vec<4> p = unit_p ? random_unit_p(rng) : random_vec4(rng);
    for (int k = 0; k < 3; ++k) q(7 * b + k) = r[k];
    for (int k = 0; k < 4; ++k) q(7 * b + 3 + k) = p[k];
  }
  return q;
}

Vec14 random_qd(Rng& rng) {
  Vec14 qd;
  for (int k = 0; k < 14; ++k) qd(k) = uniform(rng, -1.0, 1.0);
  return qd;
}

// A marker at a random body-frame point with the triad of a random rotation (its columns).
Marker random_marker(Rng& rng) {
  const Mat<3, 3> frame = rotation_matrix(random_unit_p(rng));
  Marker m;
  m.s = random_vec3(rng);
  m.f = column3(frame, 0);
  m.g = column3(frame, 1);
  m.h = column3(frame, 2);
  return m;
}

template <int N>
using Evaluator = std::function<ConstraintRows<N>(const BodyState&, const BodyState&)>;

template <int N>
Eigen::Matrix<double, N, 14> full_jacobian(const ConstraintRows<N>& c) {
  Eigen::Matrix<double, N, 14> j;
  j.template leftCols<7>() = to_eigen(c.jac_i);
  j.template rightCols<7>() = to_eigen(c.jac_j);
  return j;
}

template <int N>
Eigen::Matrix<double, N, 1> phi_at(const Evaluator<N>& eval, const Vec14& q, const Vec14& qd) {
  BodyState bi, bj;
  split(q, qd, bi, bj);
  return to_eigen(eval(bi, bj).phi);
}

template <int N>
Eigen::Matrix<double, N, 14> jac_at(const Evaluator<N>& eval, const Vec14& q, const Vec14& qd) {
  BodyState bi, bj;
  split(q, qd, bi, bj);
  return full_jacobian(eval(bi, bj));
}

// Jacobian blocks against central differences of Phi (relative 1e-7); gamma against
// -(d/dt Phi_q(q + t q')) q' (central differences of the analytic Jacobian, relative 1e-7) and
// against the second difference of Phi(q + t q') (relative 1e-5, fully independent of the
// Jacobian); nu = 0. Random states with p off the unit sphere unless unit_p: the formulas are
// exact derivatives of the homogeneous A(p) = E G^T.
template <int N>
void check_rows(const std::string& name, const Evaluator<N>& eval, Rng& rng, bool unit_p = false,
                double expected_nu = 0.0) {
  INFO(name);
  for (int trial = 0; trial < 5; ++trial) {
    const Vec14 q = random_q(rng, unit_p);
    const Vec14 qd = random_qd(rng);
    BodyState bi, bj;
    split(q, qd, bi, bj);
    const ConstraintRows<N> c = eval(bi, bj);
    const Eigen::Matrix<double, N, 14> jac = full_jacobian(c);

    const double h = 1e-6;
    Eigen::Matrix<double, N, 14> fd;
    for (int k = 0; k < 14; ++k) {
      Vec14 qp = q, qm = q;
      qp(k) += h;
      qm(k) -= h;
      fd.col(k) = (phi_at(eval, qp, qd) - phi_at(eval, qm, qd)) / (2.0 * h);
    }
    INFO("Jacobian analytic\n" << jac << "\nfinite differences\n" << fd);
    CHECK(close(jac, fd, 1e-7));

    const Eigen::Matrix<double, N, 1> gamma = to_eigen(c.gamma);
    const double ht = 1e-5;
    const Eigen::Matrix<double, N, 1> gamma_fd =
        -(jac_at(eval, q + ht * qd, qd) - jac_at(eval, q - ht * qd, qd)) * qd / (2.0 * ht);
    INFO("gamma " << gamma.transpose() << "   -(Phi_q q')' " << gamma_fd.transpose());
    CHECK(close(gamma, gamma_fd, 1e-7));

    // second difference with step h2 and h2/2, Richardson-extrapolated: O(h2^4) (the drivers'
    // atan2 is not a polynomial in t)
    auto second_difference = [&](double h2) {
      return ((phi_at(eval, q + h2 * qd, qd) - 2.0 * phi_at(eval, q, qd) + phi_at(eval, q - h2 * qd, qd)) /
              (h2 * h2))
          .eval();
    };
    const Eigen::Matrix<double, N, 1> phi_dd = (4.0 * second_difference(5e-4) - second_difference(1e-3)) / 3.0;
    INFO("-Phi'' along q + t q' " << (-phi_dd).transpose());
    CHECK(close(gamma, -phi_dd, 1e-5));

    for (int r = 0; r < N; ++r) CHECK(c.nu[r] == expected_nu);
  }
}

Eigen::Matrix3d rot(int axis, double angle) {
  return Eigen::AngleAxisd(angle, Eigen::Vector3d::Unit(axis)).toRotationMatrix();
}

}  // namespace

// ---- Euler parameters -------------------------------------------------------------------------

TEST_CASE("rigid: A(p) is a rotation, matches Rodrigues' formula, and is |p|^2 R off the unit sphere",
          "[rigid]") {
  Rng rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec<4> p = random_unit_p(rng);
    const Eigen::Matrix3d a = to_eigen(rotation_matrix(p));
    CHECK((a.transpose() * a - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() < 1e-14);
    CHECK(a.determinant() == Approx(1.0).epsilon(1e-14));
    // A = E G^T
    CHECK((a - to_eigen(e_matrix(p)) * to_eigen(g_matrix(p)).transpose()).cwiseAbs().maxCoeff() < 1e-15);
    // homogeneous form: A(c p) = c^2 A(p)
    const Eigen::Matrix3d a2 = to_eigen(rotation_matrix(vec_scale(1.7, p)));
    CHECK((a2 - 1.7 * 1.7 * a).cwiseAbs().maxCoeff() < 1e-14);

    // Rodrigues: R = I + sin(t) K + (1 - cos(t)) K^2, K = skew(u)
    const Eigen::Vector3d axis = to_eigen(random_vec3(rng));
    const double angle = uniform(rng, -4.0, 4.0);
    const Eigen::Vector3d u = axis.normalized();
    Eigen::Matrix3d k;
    k << 0, -u(2), u(1), u(2), 0, -u(0), -u(1), u(0), 0;
    const Eigen::Matrix3d rodrigues = Eigen::Matrix3d::Identity() + std::sin(angle) * k + (1 - std::cos(angle)) * k * k;
    const Eigen::Matrix3d from_aa = to_eigen(rotation_matrix(from_axis_angle(from_eigen3(axis), angle)));
    CHECK((from_aa - rodrigues).cwiseAbs().maxCoeff() < 1e-14);
  }
  // zero axis: identity
  const Vec<4> id = from_axis_angle(vec3(0, 0, 0), 1.0);
  CHECK((to_eigen(id) - Eigen::Vector4d(1, 0, 0, 0)).norm() == 0.0);
}

TEST_CASE("rigid: Euler parameters from a rotation matrix round-trip on every branch", "[rigid]") {
  Rng rng(12);
  std::vector<Vec<4>> cases;
  for (int i = 0; i < 30; ++i) cases.push_back(random_unit_p(rng));
  // each component dominant (selects each of Shepperd's four branches)
  for (int k = 0; k < 4; ++k) {
    Vec<4> p = vec4(0.1, -0.2, 0.15, 0.05);
    p[k] = 0.95;
    cases.push_back(normalized(p));
  }
  // identity, small angles, and 180-degree rotations (e0 = 0) about the axes and random axes
  cases.push_back(vec4(1, 0, 0, 0));
  cases.push_back(from_axis_angle(vec3(0.3, -0.5, 0.8), 1e-9));
  for (int k = 0; k < 3; ++k) {
    Vec<3> axis = vec3(0, 0, 0);
    axis[k] = 1.0;
    cases.push_back(from_axis_angle(axis, M_PI));
    cases.push_back(from_axis_angle(axis, M_PI - 1e-9));
    cases.push_back(from_axis_angle(axis, -M_PI + 1e-9));
  }
  for (int i = 0; i < 10; ++i) {
    cases.push_back(from_axis_angle(random_vec3(rng), M_PI));
    cases.push_back(from_axis_angle(random_vec3(rng), M_PI + 1e-7));
  }
  for (const Vec<4>& p : cases) {
    const Mat<3, 3> a = rotation_matrix(p);
    const Vec<4> back = from_rotation_matrix(a);
    INFO("p = " << to_eigen(p).transpose() << "  back = " << to_eigen(back).transpose());
    CHECK(std::abs(vec_norm(back) - 1.0) < 1e-15);
    CHECK(back[0] >= 0.0);
    const double sign = dot(back, p) >= 0.0 ? 1.0 : -1.0;
    CHECK((to_eigen(back) - sign * to_eigen(p)).cwiseAbs().maxCoeff() < 1e-13);
    CHECK((to_eigen(rotation_matrix(back)) - to_eigen(a)).cwiseAbs().maxCoeff() < 1e-14);
  }
}

TEST_CASE("rigid: G and E give the angular velocity of A(p(t)) by finite differences", "[rigid]") {
  Rng rng(13);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec<4> p = random_unit_p(rng);
    Vec<4> pd = random_vec4(rng);
    pd = vec_sub(pd, vec_scale(dot(pd, p), p));  // tangent: p.p' = 0
    const double h = 1e-6;
    auto a_at = [&](double t) { return to_eigen(rotation_matrix(normalized(vec_add(p, vec_scale(t, pd))))); };
    const Eigen::Matrix3d a = a_at(0.0);
    const Eigen::Matrix3d ad = (a_at(h) - a_at(-h)) / (2.0 * h);
    const Eigen::Vector3d omega_fd = vee(ad * a.transpose());       // A' A^T = skew(omega)
    const Eigen::Vector3d omega_body_fd = vee(a.transpose() * ad);  // A^T A' = skew(omega')
    CHECK((ad * a.transpose() + (ad * a.transpose()).transpose()).cwiseAbs().maxCoeff() < 1e-8);
    const Eigen::Vector3d omega = to_eigen(angular_velocity(p, pd));
    const Eigen::Vector3d omega_body = to_eigen(testing::body_angular_velocity(p, pd));
    CHECK((omega - omega_fd).norm() < 1e-8 * std::max(1.0, omega.norm()));
    CHECK((omega_body - omega_body_fd).norm() < 1e-8 * std::max(1.0, omega.norm()));
    CHECK((omega - a * omega_body).norm() < 1e-14);
    // inverses for a tangent p'
    CHECK((to_eigen(p_rate_from_angular_velocity(p, from_eigen3(omega))) - to_eigen(pd)).norm() < 1e-14);
    CHECK((to_eigen(testing::p_rate_from_body_angular_velocity(p, from_eigen3(omega_body))) - to_eigen(pd)).norm() < 1e-14);
  }
}

TEST_CASE("rigid: B(p, s') is the derivative of A(p) s' for any p", "[rigid]") {
  Rng rng(14);
  for (int trial = 0; trial < 20; ++trial) {
    const Vec<4> p = random_vec4(rng);
    const Vec<3> s = random_vec3(rng);
    const Eigen::Matrix<double, 3, 4> b = to_eigen(b_matrix(p, s));
    Eigen::Matrix<double, 3, 4> fd;
    const double h = 1e-6;
    for (int k = 0; k < 4; ++k) {
      Vec<4> pp = p, pm = p;
      pp[k] += h;
      pm[k] -= h;
      fd.col(k) = (to_eigen(rotate(pp, s)) - to_eigen(rotate(pm, s))) / (2.0 * h);
    }
    CHECK(close(b, fd, 1e-9));
    CHECK((b * to_eigen(p) - 2.0 * to_eigen(rotate(p, s))).norm() < 1e-14);
  }
}

TEST_CASE("rigid: normalization constraint Jacobian and gamma", "[rigid]") {
  Rng rng(15);
  for (int trial = 0; trial < 10; ++trial) {
    const Vec<4> p = random_vec4(rng), pd = random_vec4(rng);
    const NormalizationRow row = normalization_constraint(p, pd);
    CHECK(row.phi == Approx(dot(p, p) - 1.0));
    const double h = 1e-6;
    for (int k = 0; k < 4; ++k) {
      Vec<4> pp = p, pm = p;
      pp[k] += h;
      pm[k] -= h;
      CHECK(row.jac_p[k] == Approx((dot(pp, pp) - dot(pm, pm)) / (2.0 * h)).epsilon(1e-8));
    }
    const double h2 = 1e-3;
    auto phi = [&](double t) {
      const Vec<4> x = vec_add(p, vec_scale(t, pd));
      return dot(x, x) - 1.0;
    };
    CHECK(row.gamma == Approx(-(phi(h2) - 2.0 * phi(0.0) + phi(-h2)) / (h2 * h2)).epsilon(1e-6));
  }
}

TEST_CASE("rigid: Euler-parameter mass matrix, kinetic energy and the Lagrange equations", "[rigid]") {
  Rng rng(16);
  for (int trial = 0; trial < 10; ++trial) {
    // a full (non-diagonal) inertia tensor: Q diag Q^T
    const Eigen::Matrix3d qr = to_eigen(rotation_matrix(random_unit_p(rng)));
    const Eigen::Matrix3d jm = qr * Eigen::Vector3d(1.0, 2.5, 3.2).asDiagonal() * qr.transpose();
    const Mat<3, 3> inertia = from_eigen33(jm);

    // kinetic energy: 1/2 omega'^T J' omega' with omega' from finite differences of A(p(t))
    const Vec<4> p = random_unit_p(rng);
    Vec<4> pd = random_vec4(rng);
    pd = vec_sub(pd, vec_scale(dot(pd, p), p));
    const double h = 1e-6;
    auto a_at = [&](double t) { return to_eigen(rotation_matrix(normalized(vec_add(p, vec_scale(t, pd))))); };
    const Eigen::Vector3d wb = vee(a_at(0).transpose() * (a_at(h) - a_at(-h)) / (2.0 * h));
    const double t_ref = 0.5 * wb.dot(jm * wb);
    const Eigen::Matrix4d m = to_eigen(euler_mass_matrix(p, inertia));
    CHECK(0.5 * to_eigen(pd).dot(m * to_eigen(pd)) == Approx(t_ref).epsilon(1e-8));
    CHECK((m - m.transpose()).cwiseAbs().maxCoeff() < 1e-14);
    CHECK((m * to_eigen(p)).norm() < 1e-13);  // rank 3: p is in the null space

    // Lagrange: d/dt(dT/dp') - dT/dp = 4 G^T J' G p'' - 8 G'^T J' G' p, T(p, p') = 2 p'^T G^T J' G p',
    // for any p, p', p'' (not only on the unit sphere)
    const Vec<4> x = random_vec4(rng), xd = random_vec4(rng), xdd = random_vec4(rng);
    auto kinetic = [&](const Vec<4>& pp, const Vec<4>& ppd) {
      const Eigen::Vector3d w = 2.0 * to_eigen(g_matrix(pp)) * to_eigen(ppd);
      return 0.5 * w.dot(jm * w);
    };
    auto dT_dpd = [&](const Vec<4>& pp, const Vec<4>& ppd) {
      Eigen::Vector4d g;
      for (int k = 0; k < 4; ++k) {
        Vec<4> a = ppd, b = ppd;
        a[k] += h;
        b[k] -= h;
        g(k) = (kinetic(pp, a) - kinetic(pp, b)) / (2.0 * h);
      }
      return g;
    };
    const double ht = 1e-4;
    auto at = [&](double t, Vec<4>& pp, Vec<4>& ppd) {  // p(t) = x + t x' + t^2/2 x''
      pp = vec_add(vec_add(x, vec_scale(t, xd)), vec_scale(0.5 * t * t, xdd));
      ppd = vec_add(xd, vec_scale(t, xdd));
    };
    Vec<4> pp, ppd, pm, pmd;
    at(ht, pp, ppd);
    at(-ht, pm, pmd);
    const Eigen::Vector4d ddt = (dT_dpd(pp, ppd) - dT_dpd(pm, pmd)) / (2.0 * ht);
    Eigen::Vector4d dT_dp;
    for (int k = 0; k < 4; ++k) {
      Vec<4> a = x, b = x;
      a[k] += h;
      b[k] -= h;
      dT_dp(k) = (kinetic(a, xd) - kinetic(b, xd)) / (2.0 * h);
    }
    const Eigen::Vector4d lagrange = ddt - dT_dp;
    const Eigen::Vector4d ours = to_eigen(inertia_force(x, xd, xdd, inertia));
    INFO("Lagrange " << lagrange.transpose() << "  inertia_force " << ours.transpose());
    CHECK(close(ours, lagrange, 1e-6));
    // the same with the quadratic velocity force on the right-hand side
    const Eigen::Vector4d rhs = to_eigen(quadratic_velocity_force(x, xd, inertia));
    CHECK(close(to_eigen(euler_mass_matrix(x, inertia)) * to_eigen(xdd) - rhs, lagrange, 1e-6));
  }
}

TEST_CASE("rigid: Euler-parameter equations of motion reproduce Euler's equations", "[rigid]") {
  Rng rng(17);
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::Matrix3d qr = to_eigen(rotation_matrix(random_unit_p(rng)));
    const Eigen::Matrix3d jm = qr * Eigen::Vector3d(0.7, 1.9, 2.4).asDiagonal() * qr.transpose();
    const Mat<3, 3> inertia = from_eigen33(jm);
    const Vec<4> p = random_unit_p(rng);
    const Vec<3> wb = random_vec3(rng, 2.0);
    const Vec<4> pd = testing::p_rate_from_body_angular_velocity(p, wb);
    // torque-free, then with a body-frame torque n'
    for (int with_torque = 0; with_torque < 2; ++with_torque) {
      const Vec<3> n = with_torque ? random_vec3(rng) : vec3(0, 0, 0);
      // [4 G^T J' G  2p; 2p^T 0] [p''; lambda] = [2 G^T n' + 8 G'^T J' G' p; -2 p'.p']
      Eigen::Matrix<double, 5, 5> k = Eigen::Matrix<double, 5, 5>::Zero();
      Eigen::Matrix<double, 5, 1> rhs;
      const NormalizationRow norm = normalization_constraint(p, pd);
      k.topLeftCorner<4, 4>() = to_eigen(euler_mass_matrix(p, inertia));
      k.block<4, 1>(0, 4) = to_eigen(norm.jac_p);
      k.block<1, 4>(4, 0) = to_eigen(norm.jac_p).transpose();
      rhs.head<4>() = to_eigen(vec_add(body_torque_on_p(p, n), quadratic_velocity_force(p, pd, inertia)));
      rhs(4) = norm.gamma;
      const Eigen::Matrix<double, 5, 1> sol = k.fullPivLu().solve(rhs);
      Vec<4> pdd;
      for (int i = 0; i < 4; ++i) pdd[i] = sol(i);
      // omega'' = d/dt (2 G p') = 2 G p'' + 2 G(p') p'
      const Eigen::Vector3d wdot =
          2.0 * to_eigen(g_matrix(p)) * to_eigen(pdd) + 2.0 * to_eigen(g_matrix(pd)) * to_eigen(pd);
      const Eigen::Vector3d w = to_eigen(wb);
      const Eigen::Vector3d euler = jm * wdot + w.cross(jm * w) - to_eigen(n);
      INFO("J w' + w x J w - n' = " << euler.transpose());
      CHECK(euler.norm() < 1e-12 * std::max(1.0, (jm * wdot).norm()));
      // the normalization multiplier (p^T times the p rows): 2 p.p lambda = 8 (G' p)^T J' (G' p) = 4 T
      CHECK(sol(4) == Approx(w.dot(jm * w)).epsilon(1e-12));
    }
  }
}

TEST_CASE("rigid: generalized forces of a point force and a torque by virtual power", "[rigid]") {
  Rng rng(18);
  for (int trial = 0; trial < 10; ++trial) {
    const Vec<4> p = random_unit_p(rng);
    const Vec<3> s = random_vec3(rng), f = random_vec3(rng), n = random_vec3(rng), rd = random_vec3(rng);
    const Vec<3> w = random_vec3(rng);
    const Vec<4> pd = p_rate_from_angular_velocity(p, w);
    // velocity of the point: r' + omega x A s'
    const Vec<3> vp = vec_add(rd, cross3(w, rotate(p, s)));
    CHECK(dot(f, rd) + dot(point_force_on_p(p, s, f), pd) == Approx(dot(f, vp)).epsilon(1e-13));
    CHECK(dot(torque_on_p(p, n), pd) == Approx(dot(n, w)).epsilon(1e-13));
    const Vec<3> nb = rotate_back(p, n);
    CHECK(dot(body_torque_on_p(p, nb), pd) == Approx(dot(n, w)).epsilon(1e-13));
  }
}

// ---- primitives, joints and drivers by finite differences ---------------------------------------

TEST_CASE("rigid: constraint primitives, Jacobian blocks and gamma by finite differences", "[rigid]") {
  Rng rng(21);
  const Vec<3> ai = random_vec3(rng), aj = random_vec3(rng), si = random_vec3(rng), sj = random_vec3(rng);
  check_rows<1>("dot-1", [&](const BodyState& bi, const BodyState& bj) { return dot1_constraint(bi, ai, bj, aj); },
                rng);
  check_rows<1>("dot-2",
                [&](const BodyState& bi, const BodyState& bj) { return dot2_constraint(bi, ai, si, bj, sj); }, rng);
  check_rows<3>("spherical",
                [&](const BodyState& bi, const BodyState& bj) { return spherical_constraint(bi, si, bj, sj); }, rng);
  check_rows<1>("distance",
                [&](const BodyState& bi, const BodyState& bj) { return distance_constraint(bi, si, bj, sj, 0.8); },
                rng);
  // the same on the unit sphere, and against the ground (body i constant)
  check_rows<1>("dot-2 unit p",
                [&](const BodyState& bi, const BodyState& bj) { return dot2_constraint(bi, ai, si, bj, sj); }, rng,
                true);
  const BodyState ground = ground_state();
  check_rows<3>("spherical to ground", [&](const BodyState&, const BodyState& bj) {
    ConstraintRows<3> c = spherical_constraint(ground, si, bj, sj);
    c.jac_i = Mat<3, 7>::zero();
    return c;
  }, rng);

  // the closed forms quoted in constraint_primitives.hpp
  const Vec14 q = random_q(rng, false), qd = random_qd(rng);
  BodyState bi, bj;
  split(q, qd, bi, bj);
  const ConstraintRows<1> d1 = dot1_constraint(bi, ai, bj, aj);
  const Eigen::Vector3d gai = to_eigen(rotate(bi.p, ai)), gaj = to_eigen(rotate(bj.p, aj));
  const Eigen::Matrix<double, 3, 4> bai = to_eigen(b_matrix(bi.p, ai)), baj = to_eigen(b_matrix(bj.p, aj));
  CHECK(close((gaj.transpose() * bai).transpose(), to_eigen(d1.jac_i).rightCols<4>().transpose(), 1e-14));
  const double g1 = -gaj.dot(to_eigen(b_matrix(bi.pd, ai)) * to_eigen(bi.pd)) -
                    gai.dot(to_eigen(b_matrix(bj.pd, aj)) * to_eigen(bj.pd)) -
                    2.0 * (bai * to_eigen(bi.pd)).dot(baj * to_eigen(bj.pd));
  CHECK(d1.gamma[0] == Approx(g1).epsilon(1e-13));
  const ConstraintRows<3> sph = spherical_constraint(bi, si, bj, sj);
  const Eigen::Vector3d gs = to_eigen(b_matrix(bi.pd, si)) * to_eigen(bi.pd) - to_eigen(b_matrix(bj.pd, sj)) * to_eigen(bj.pd);
  CHECK(close(to_eigen(sph.gamma), gs, 1e-14));
}

namespace {

struct JointCase {
  JointType type;
  const char* name;
  Eigen::Matrix3d rel_rotation;     // marker j triad in marker i coordinates at the test configuration
  Eigen::Vector3d rel_translation;  // P_j - P_i in marker i coordinates
};

// Twists of body j relative to body i (ground frame): angular omega about the point P_j, and
// linear velocity v of the material point at P_j.
struct Twist {
  Eigen::Vector3d omega, v;
};

JointRows eval_joint(JointType t, const Marker& mi, const Marker& mj, const BodyState& bi, const BodyState& bj) {
  JointRows rows;
  evaluate_joint(t, bi, mi, bj, mj, rows);
  return rows;
}

}  // namespace

TEST_CASE("rigid: joints, Jacobian blocks and gamma by finite differences", "[rigid]") {
  Rng rng(22);
  const Marker mi = random_marker(rng), mj = random_marker(rng);
  auto with = [&](auto f) {
    return [&, f](const BodyState& bi, const BodyState& bj) { return f(bi, mi, bj, mj); };
  };
  check_rows<3>("spherical", with([](auto&... a) { return spherical_joint(a...); }), rng);
  check_rows<5>("revolute", with([](auto&... a) { return revolute_joint(a...); }), rng);
  check_rows<4>("cylindrical", with([](auto&... a) { return cylindrical_joint(a...); }), rng);
  check_rows<5>("translational", with([](auto&... a) { return translational_joint(a...); }), rng);
  check_rows<4>("universal", with([](auto&... a) { return universal_joint(a...); }), rng);
  check_rows<6>("fixed", with([](auto&... a) { return fixed_joint(a...); }), rng);
  check_rows<3>("planar", with([](auto&... a) { return planar_joint(a...); }), rng);
  check_rows<2>("point-on-line", with([](auto&... a) { return point_on_line_joint(a...); }), rng);
  check_rows<2>("parallel axes", with([](auto&... a) { return parallel_axes_joint(a...); }), rng);
  check_rows<1>("perpendicular axes", with([](auto&... a) { return perpendicular_axes_joint(a...); }), rng);
  // drivers with f fixed in time (f' = f'' = 0): the q-dependence alone
  check_rows<1>("rotation driver", with([](auto&... a) { return rotation_driver(a..., 0.3, 0.0, 0.0); }), rng);
  check_rows<1>("translation driver", with([](auto&... a) { return translation_driver(a..., 0.3, 0.0, 0.0); }),
                rng);

  // the runtime dispatcher gives the same rows
  const Vec14 q = random_q(rng, true), qd = random_qd(rng);
  BodyState bi, bj;
  split(q, qd, bi, bj);
  JointRows rows;
  CHECK(evaluate_joint(JointType::Translational, bi, mi, bj, mj, rows) == 5);
  const ConstraintRows<5> tr = translational_joint(bi, mi, bj, mj);
  for (int r = 0; r < 5; ++r) {
    CHECK(rows.phi[r] == tr.phi[r]);
    CHECK(rows.gamma[r] == tr.gamma[r]);
    for (int c = 0; c < 7; ++c) CHECK(rows.jac_j(r, c) == tr.jac_j(r, c));
  }
  CHECK(rows.phi[5] == 0.0);
}

TEST_CASE("rigid: joints at assembled configurations: allowed and forbidden motions, Jacobian rank", "[rigid]") {
  Rng rng(23);
  const Eigen::Matrix3d id = Eigen::Matrix3d::Identity();
  const Eigen::Matrix3d random_rot = to_eigen(rotation_matrix(random_unit_p(rng)));
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  const Eigen::Vector3d random_t = to_eigen(random_vec3(rng));
  const std::vector<JointCase> cases = {
      {JointType::Spherical, "spherical", random_rot, zero},
      {JointType::Revolute, "revolute", rot(2, 0.7), zero},
      {JointType::Cylindrical, "cylindrical", rot(2, -1.1), Eigen::Vector3d(0, 0, 0.4)},
      {JointType::Translational, "translational", id, Eigen::Vector3d(0, 0, -0.3)},
      {JointType::Universal, "universal", rot(0, 0.5) * rot(1, -0.8), zero},
      {JointType::Fixed, "fixed", id, zero},
      {JointType::Planar, "planar", rot(2, 2.0), Eigen::Vector3d(0.3, -0.2, 0.0)},
      {JointType::PointOnLine, "point-on-line", random_rot, Eigen::Vector3d(0, 0, 0.25)},
      {JointType::ParallelAxes, "parallel axes", rot(2, 0.9), random_t},
      {JointType::PerpendicularAxes, "perpendicular axes", rot(0, -0.4) * rot(1, 1.2), random_t},
  };
  for (const JointCase& jc : cases) {
    INFO(jc.name);
    const int n = joint_equation_count(jc.type);
    for (int trial = 0; trial < 3; ++trial) {
      // body i and both markers at random; body j placed so that marker j = marker i * (R_rel, t_rel)
      BodyState bi, bj;
      bi.r = random_vec3(rng);
      bi.p = random_unit_p(rng);
      const Marker mi = random_marker(rng), mj = random_marker(rng);
      const Eigen::Matrix3d ai = to_eigen(rotation_matrix(bi.p));
      Eigen::Matrix3d ci, cj;  // body-frame triads
      ci << to_eigen(mi.f), to_eigen(mi.g), to_eigen(mi.h);
      cj << to_eigen(mj.f), to_eigen(mj.g), to_eigen(mj.h);
      const Eigen::Matrix3d fi = ai * ci, fj = fi * jc.rel_rotation;  // ground-frame triads
      const Eigen::Vector3d pi = to_eigen(bi.r) + ai * to_eigen(mi.s);
      const Eigen::Vector3d pj = pi + fi * jc.rel_translation;
      const Eigen::Matrix3d aj = fj * cj.transpose();
      bj.p = from_rotation_matrix(from_eigen33(aj));
      bj.r = from_eigen3(pj - aj * to_eigen(mj.s));

      // body velocities: body i at random; body j = body i's rigid motion + a relative twist
      const Eigen::Vector3d vi = to_eigen(random_vec3(rng)), wi = to_eigen(random_vec3(rng));
      auto set_velocities = [&](const Twist& rel) {
        bi.rd = from_eigen3(vi);
        bi.pd = p_rate_from_angular_velocity(bi.p, from_eigen3(wi));
        const Eigen::Vector3d rj = to_eigen(bj.r), ri = to_eigen(bi.r);
        bj.rd = from_eigen3(vi + wi.cross(rj - ri) + rel.omega.cross(rj - pj) + rel.v);
        bj.pd = p_rate_from_angular_velocity(bj.p, from_eigen3(wi + rel.omega));
      };
      auto constraint_rate = [&](const Twist& rel) {
        set_velocities(rel);
        const JointRows rows = eval_joint(jc.type, mi, mj, bi, bj);
        return (full_jacobian(rows) * (Eigen::Matrix<double, 14, 1>() << to_eigen(bi.rd), to_eigen(bi.pd),
                                       to_eigen(bj.rd), to_eigen(bj.pd))
                                          .finished())
            .head(n)
            .eval();
      };

      const Eigen::Vector3d f = fi.col(0), g = fi.col(1), h = fi.col(2), gj = fj.col(1);
      std::vector<Twist> allowed, forbidden;
      switch (jc.type) {
        case JointType::Spherical:
          allowed = {{f, zero}, {g, zero}, {h, zero}};
          forbidden = {{zero, f}};
          break;
        case JointType::Revolute:
          allowed = {{h, zero}};
          forbidden = {{f, zero}, {zero, h}};
          break;
        case JointType::Cylindrical:
          allowed = {{h, zero}, {zero, h}};
          forbidden = {{f, zero}, {zero, g}};
          break;
        case JointType::Translational:
          allowed = {{zero, h}};
          forbidden = {{h, zero}, {zero, f}};
          break;
        case JointType::Universal:
          allowed = {{f, zero}, {gj, zero}};
          forbidden = {{f.cross(gj).normalized(), zero}, {zero, h}};
          break;
        case JointType::Fixed:
          forbidden = {{h, zero}, {zero, f}};
          break;
        case JointType::Planar:
          allowed = {{h, zero}, {zero, f}, {zero, g}};
          forbidden = {{zero, h}, {f, zero}};
          break;
        case JointType::PointOnLine:
          allowed = {{zero, h}, {f, zero}, {g, zero}, {h, zero}};
          forbidden = {{zero, f}};
          break;
        case JointType::ParallelAxes:
          allowed = {{h, zero}, {zero, f}, {zero, g}, {zero, h}};
          forbidden = {{f, zero}};
          break;
        case JointType::PerpendicularAxes:
          allowed = {{f, zero}, {gj, zero}, {zero, f}, {zero, g}, {zero, h}};
          forbidden = {{f.cross(gj).normalized(), zero}};
          break;
      }
      REQUIRE(static_cast<int>(allowed.size()) == 6 - n);  // the table lists a basis of the motions left

      set_velocities({zero, zero});
      const JointRows rows = eval_joint(jc.type, mi, mj, bi, bj);
      for (int r = 0; r < n; ++r) CHECK(std::abs(rows.phi[r]) < 1e-13);
      CHECK(constraint_rate({zero, zero}).norm() < 1e-13);  // common rigid motion of both bodies
      Twist combination{zero, zero};
      for (const Twist& t : allowed) {
        CHECK(constraint_rate(t).norm() < 1e-13);
        const double c = uniform(rng, -2.0, 2.0);
        combination.omega += c * t.omega;
        combination.v += c * t.v;
      }
      CHECK(constraint_rate(combination).norm() < 1e-12);
      for (const Twist& t : forbidden) CHECK(constraint_rate(t).norm() > 1e-2);

      // rank of the full n x 14 Jacobian, and of the map from body j's twist to Phi_q q'
      // (rank n: the joint removes exactly n relative degrees of freedom)
      const Eigen::MatrixXd jac = full_jacobian(rows).topRows(n);
      CHECK(numerical_rank(jac) == n);
      Eigen::Matrix<double, 7, 6> twist_to_qd = Eigen::Matrix<double, 7, 6>::Zero();
      twist_to_qd.topRightCorner<3, 3>() = id;
      twist_to_qd.bottomLeftCorner<4, 3>() = 0.5 * to_eigen(e_matrix(bj.p)).transpose();
      const Eigen::MatrixXd jt = to_eigen(rows.jac_j).topRows(n) * twist_to_qd;
      CHECK(numerical_rank(jt) == n);
    }
  }
}

TEST_CASE("rigid: drivers, nu and gamma by finite differences in time", "[rigid]") {
  Rng rng(24);
  const Marker mi = random_marker(rng), mj = random_marker(rng);
  const double f0 = 0.4, f1 = -0.7, f2 = 1.3;  // f(t) = f0 + f1 t + f2 t^2 / 2
  using DriverFn = std::function<ConstraintRows<1>(const BodyState&, const BodyState&, double, double, double)>;
  const std::vector<std::pair<const char*, DriverFn>> drivers = {
      {"rotation", [&](const BodyState& bi, const BodyState& bj, double f, double fd, double fdd) {
         return rotation_driver(bi, mi, bj, mj, f, fd, fdd);
       }},
      {"translation", [&](const BodyState& bi, const BodyState& bj, double f, double fd, double fdd) {
         return translation_driver(bi, mi, bj, mj, f, fd, fdd);
       }},
  };
  for (const auto& entry : drivers) {
    const DriverFn& driver = entry.second;
    INFO(entry.first << " driver");
    for (int trial = 0; trial < 5; ++trial) {
      const Vec14 q = random_q(rng, true), qd = random_qd(rng);
      // Phi(t) = Phi(q + t q', f(t)):  Phi'(0) = Phi_q q' - nu,  Phi''(0) = -gamma (q'' = 0)
      auto phi = [&](double t) {
        const Vec14 qt = q + t * qd;
        BodyState bi, bj;
        split(qt, qd, bi, bj);
        return driver(bi, bj, f0 + f1 * t + 0.5 * f2 * t * t, f1 + f2 * t, f2).phi[0];
      };
      BodyState bi, bj;
      split(q, qd, bi, bj);
      const ConstraintRows<1> c = driver(bi, bj, f0, f1, f2);
      const double rate = (full_jacobian(c) * qd)(0);
      const double h = 1e-5, h2 = 1e-3;
      CHECK(rate - c.nu[0] == Approx((phi(h) - phi(-h)) / (2 * h)).epsilon(1e-7).margin(1e-9));
      auto second_difference = [&](double hh) { return (phi(hh) - 2 * phi(0) + phi(-hh)) / (hh * hh); };
      const double phi_dd = (4.0 * second_difference(0.5 * h2) - second_difference(h2)) / 3.0;  // Richardson
      CHECK(-c.gamma[0] == Approx(phi_dd).epsilon(1e-5).margin(1e-6));
    }
  }
  // nu = f' for the coordinate drivers
  const Vec14 q = random_q(rng, true), qd = random_qd(rng);
  BodyState bi, bj;
  split(q, qd, bi, bj);
  CHECK(rotation_driver(bi, mi, bj, mj, f0, f1, f2).nu[0] == f1);
  CHECK(translation_driver(bi, mi, bj, mj, f0, f1, f2).nu[0] == f1);
}

TEST_CASE("rigid: driven revolute and translational joints follow f, f', f''", "[rigid]") {
  Rng rng(25);
  const BodyState ground = ground_state();
  const Eigen::Vector3d axis = Eigen::Vector3d(0.2, -0.5, 0.9).normalized();
  const Mat<3, 3> frame = rotation_matrix(from_rotation_matrix(from_eigen33(
      Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), axis).toRotationMatrix())));
  const Vec<3> point = vec3(0.3, 0.1, -0.2);
  const double f = 2.5 + 2.0 * M_PI, fd = 0.8, fdd = -1.7;  // more than one turn

  for (int kind = 0; kind < 2; ++kind) {
    const bool rotation = kind == 0;
    INFO(std::string(rotation ? "revolute + rotation driver" : "translational + translation driver"));
    // body j: a random body whose marker is the joint frame at the reference, then moved by f
    BodyState bj;
    bj.r = random_vec3(rng);
    bj.p = random_unit_p(rng);
    const Marker mi = marker_from_ground(ground, point, frame);
    const Marker mj = marker_from_ground(bj, point, frame);
    const Eigen::Vector3d pnt = to_eigen(point);
    if (rotation) {
      const Eigen::Matrix3d rz = Eigen::AngleAxisd(f, axis).toRotationMatrix();
      bj.r = from_eigen3(pnt + rz * (to_eigen(bj.r) - pnt));
      bj.p = from_rotation_matrix(from_eigen33(rz * to_eigen(rotation_matrix(bj.p))));
    } else {
      bj.r = from_eigen3(to_eigen(bj.r) + f * axis);
    }
    bj.rd = vec3(0, 0, 0);
    bj.pd = Vec<4>::zero();
    ConstraintRows<6> rows;
    set_rows(rows, 0, rotation ? ConstraintRows<5>(revolute_joint(ground, mi, bj, mj))
                               : ConstraintRows<5>(translational_joint(ground, mi, bj, mj)));
    set_rows(rows, 5, rotation ? rotation_driver(ground, mi, bj, mj, f, fd, fdd)
                               : translation_driver(ground, mi, bj, mj, f, fd, fdd));
    for (int r = 0; r < 6; ++r) CHECK(std::abs(rows.phi[r]) < 1e-13);
    if (rotation) CHECK(rotation_coordinate(ground, mi, bj, mj).value == Approx(2.5).epsilon(1e-13));

    // velocities: [Phi_q; 2 p^T] q' = [nu; 0]
    Eigen::Matrix<double, 7, 7> k;
    k.topRows<6>() = to_eigen(rows.jac_j);
    k.row(6) << 0, 0, 0, 2.0 * to_eigen(bj.p).transpose();
    Eigen::Matrix<double, 7, 1> rhs;
    rhs << to_eigen(rows.nu), 0.0;
    const Eigen::Matrix<double, 7, 1> qd = k.fullPivLu().solve(rhs);
    for (int i = 0; i < 3; ++i) bj.rd[i] = qd(i);
    for (int i = 0; i < 4; ++i) bj.pd[i] = qd(3 + i);
    const Eigen::Vector3d w = to_eigen(angular_velocity(bj.p, bj.pd));
    const Eigen::Vector3d vp = to_eigen(bj.rd) + w.cross(pnt - to_eigen(bj.r));  // velocity of the joint point
    // accelerations: [Phi_q; 2 p^T] q'' = [gamma; -2 p'.p'], gamma evaluated with the new velocities
    set_rows(rows, 0, rotation ? ConstraintRows<5>(revolute_joint(ground, mi, bj, mj))
                               : ConstraintRows<5>(translational_joint(ground, mi, bj, mj)));
    set_rows(rows, 5, rotation ? rotation_driver(ground, mi, bj, mj, f, fd, fdd)
                               : translation_driver(ground, mi, bj, mj, f, fd, fdd));
    rhs << to_eigen(rows.gamma), normalization_constraint(bj.p, bj.pd).gamma;
    const Eigen::Matrix<double, 7, 1> qdd = k.fullPivLu().solve(rhs);
    // angular acceleration 2 E p'' (E(p') p' = 0) and acceleration of the joint point
    const Eigen::Vector3d wd = 2.0 * to_eigen(e_matrix(bj.p)) * qdd.tail<4>();
    const Eigen::Vector3d arm = to_eigen(rotate(bj.p, mj.s));
    const Eigen::Vector3d ap = qdd.head<3>() + wd.cross(arm) + w.cross(w.cross(arm));
    if (rotation) {
      CHECK((w - fd * axis).norm() < 1e-12);
      CHECK(vp.norm() < 1e-12);
      CHECK((wd - fdd * axis).norm() < 1e-12);
      CHECK(ap.norm() < 1e-12);
    } else {
      CHECK(w.norm() < 1e-12);
      CHECK((vp - fd * axis).norm() < 1e-12);
      CHECK(wd.norm() < 1e-12);
      CHECK((ap - fdd * axis).norm() < 1e-12);
    }
  }
}
