// Force elements (multibody/force_elements.hpp), each checked against an independent reference:
// central finite differences of potentials written here from the geometry (Eigen quaternions,
// extended off the unit sphere as |p|^2 R like A(p)), finite differences of lengths and angles
// along q + t v, the virtual power of the physical forces, and hand-built configurations.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include "catenary/multibody/force_elements.hpp"

using namespace catenary;
using namespace catenary::rigid;

namespace {

using Rng = std::mt19937;
using VecX = Eigen::VectorXd;
constexpr double kPi = 3.141592653589793;
constexpr double kFdStep = 1e-6;

double uniform(Rng& rng, double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
Vec<3> random_vec3(Rng& rng, double s = 1.0) {
  return vec3(uniform(rng, -s, s), uniform(rng, -s, s), uniform(rng, -s, s));
}
Eigen::Vector3d E3(const Vec<3>& v) { return Eigen::Vector3d(v[0], v[1], v[2]); }

Vec<4> unit_p(const Eigen::Quaterniond& e) { return vec4(e.w(), e.x(), e.y(), e.z()); }
Vec<4> random_unit_p(Rng& rng) {
  return unit_p(Eigen::Quaterniond(Eigen::Vector4d(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1),
                                                   uniform(rng, -1, 1)).normalized()));
}

// Body b's Euler parameters from q (ground: identity).
Vec<4> p_of(const VecX& q, int b) {
  return b == kGround ? vec4(1, 0, 0, 0) : vec4(q(7 * b + 3), q(7 * b + 4), q(7 * b + 5), q(7 * b + 6));
}
// Rotation matrix of p, extended off the unit sphere as |p|^2 R(p/|p|) (the form A(p) of
// euler_parameters.hpp whose exact derivatives the library uses).
Eigen::Matrix3d rot(const Vec<4>& p) {
  const Eigen::Quaterniond e(p[0], p[1], p[2], p[3]);
  return e.squaredNorm() * e.normalized().toRotationMatrix();
}
Eigen::Vector3d r_of(const VecX& q, int b) {
  return b == kGround ? Eigen::Vector3d(Eigen::Vector3d::Zero()) : Eigen::Vector3d(q.segment<3>(7 * b));
}
Eigen::Vector3d point(const VecX& q, int b, const Vec<3>& s) { return r_of(q, b) + rot(p_of(q, b)) * E3(s); }

// Ground-frame angular velocity omega = 2 E p' and the velocity r' + omega x (A s') of a body point.
Eigen::Vector3d omega_of(const VecX& q, const VecX& v, int b) {
  return b == kGround ? Eigen::Vector3d::Zero() : E3(angular_velocity(p_of(q, b), p_of(v, b)));
}
Eigen::Vector3d point_velocity(const VecX& q, const VecX& v, int b, const Vec<3>& s) {
  if (b == kGround) return Eigen::Vector3d::Zero();
  return v.segment<3>(7 * b) + omega_of(q, v, b).cross(rot(p_of(q, b)) * E3(s));
}

// n bodies at random positions with unit p and p' tangent to p.p = 1 (from a random omega).
struct State {
  VecX q, v;
};
State random_state(Rng& rng, int n) {
  State s{VecX::Zero(7 * n), VecX::Zero(7 * n)};
  for (int b = 0; b < n; ++b) {
    const Vec<4> p = random_unit_p(rng), pd = p_rate_from_angular_velocity(p, random_vec3(rng, 2.0));
    for (int k = 0; k < 3; ++k) s.q(7 * b + k) = uniform(rng, -2, 2), s.v(7 * b + k) = uniform(rng, -1, 1);
    for (int k = 0; k < 4; ++k) s.q(7 * b + 3 + k) = p[k], s.v(7 * b + 3 + k) = pd[k];
  }
  return s;
}

void set_p(VecX& q, int b, const Vec<4>& p) {
  for (int k = 0; k < 4; ++k) q(7 * b + 3 + k) = p[k];
}

VecX gradient(const std::function<double(const VecX&)>& f, const VecX& q) {
  VecX g(q.size());
  for (int k = 0; k < q.size(); ++k) {
    VecX a = q, b = q;
    a(k) += kFdStep, b(k) -= kFdStep;
    g(k) = (f(a) - f(b)) / (2 * kFdStep);
  }
  return g;
}
// d/dt f(q + t v) at t = 0.
double rate_along(const std::function<double(const VecX&)>& f, const VecX& q, const VecX& v) {
  return (f(q + kFdStep * v) - f(q - kFdStep * v)) / (2 * kFdStep);
}

// |a - b|_max <= tol * max(1, |b|_max)
bool close(const VecX& a, const VecX& b, double tol) {
  return (a - b).cwiseAbs().maxCoeff() <= tol * std::max(1.0, b.cwiseAbs().maxCoeff());
}

VecX forces(const ForceElements& fe, const State& s, double t, double* energy = nullptr) {
  VecX Q = VecX::Zero(s.q.size());
  const double e = add_force_element_forces(fe, s.q.data(), s.v.data(), t, Q.data());
  if (energy) *energy = e;
  return Q;
}

TimeFunction harmonic(double v0, double amplitude, double frequency, double phase) {
  TimeFunction f;
  f.kind = TimeFunction::Kind::Harmonic;
  f.v0 = v0, f.amplitude = amplitude, f.frequency = frequency, f.phase = phase;
  return f;
}
double harmonic_value(double v0, double amplitude, double frequency, double phase, double t) {
  return v0 + amplitude * std::sin(2 * kPi * frequency * t + phase);
}

// theta = atan2((f_i x f_j).h_i, f_i.f_j) from the ground-frame marker axes. An angle does not
// depend on |p|: the axes come from the unit p/|p| (with |p|^2 R the two atan2 arguments would
// scale differently with |p_i|, adding a gradient along p_i that the normalization row absorbs).
double rsda_angle(const Rsda& e, const VecX& q) {
  auto unit_rot = [](const Vec<4>& p) { return Eigen::Quaterniond(p[0], p[1], p[2], p[3]).normalized().toRotationMatrix(); };
  const Eigen::Matrix3d ai = unit_rot(p_of(q, e.body_i)), aj = unit_rot(p_of(q, e.body_j));
  const Eigen::Vector3d fi = ai * E3(e.marker_i.f), hi = ai * E3(e.marker_i.h), fj = aj * E3(e.marker_j.f);
  return std::atan2(fi.cross(fj).dot(hi), fi.dot(fj));
}

Rsda random_rsda(Rng& rng, int bi, int bj) {
  Rsda e;
  e.name = "rsda";
  e.body_i = bi, e.body_j = bj;
  e.marker_i = marker_from_axis(random_vec3(rng), random_vec3(rng));
  e.marker_j = marker_from_axis(random_vec3(rng), random_vec3(rng));
  return e;
}

// Orients body j so that marker j's triad is marker i's turned by `angle` about h_i.
void align_rsda(const Rsda& e, VecX& q, double angle) {
  auto frame = [](const Marker& m) {
    Eigen::Matrix3d f;
    f << E3(m.f), E3(m.g), E3(m.h);
    return f;
  };
  const Eigen::Matrix3d aj = rot(p_of(q, e.body_i)) * frame(e.marker_i) *
                             Eigen::AngleAxisd(angle, Eigen::Vector3d::UnitZ()).toRotationMatrix() *
                             frame(e.marker_j).transpose();
  set_p(q, e.body_j, unit_p(Eigen::Quaterniond(aj)));
}

}  // namespace

TEST_CASE("force elements: TSDA force is minus the gradient of its potential, damping acts along the line",
          "[force-elements]") {
  Rng rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    const State s = random_state(rng, 2);
    const double t = uniform(rng, 0, 2);
    Tsda e;
    e.name = "spring";
    e.body_i = trial % 3 == 2 ? kGround : 0;  // ground-anchored in some trials
    e.body_j = 1;
    e.point_i = random_vec3(rng), e.point_j = random_vec3(rng);
    e.stiffness = uniform(rng, 10, 100), e.free_length = uniform(rng, 0.2, 2.0);
    ForceElements fe;
    fe.tsda.push_back(e);
    auto length = [&](const VecX& q) { return (point(q, e.body_j, e.point_j) - point(q, e.body_i, e.point_i)).norm(); };
    auto potential = [&](const VecX& q) {
      const double x = length(q) - e.free_length;
      return 0.5 * e.stiffness * x * x;
    };
    double energy = 0.0;
    const VecX Q = forces(fe, s, t, &energy);
    CHECK(energy == Approx(potential(s.q)).epsilon(1e-12));
    CHECK(close(Q, -gradient(potential, s.q), 1e-6));  // ground rows of body 0 included: both 0

    // Damping and actuator: F = c l' + a(t), l' from finite differences of l along q + t v.
    fe.tsda[0].stiffness = 0.0;
    fe.tsda[0].damping = uniform(rng, 1, 10);
    fe.tsda[0].has_actuator = true;
    fe.tsda[0].actuator = harmonic(0.5, 2.0, 1.3, 0.4);
    const double rate = rate_along(length, s.q, s.v);
    const double F = fe.tsda[0].damping * rate + harmonic_value(0.5, 2.0, 1.3, 0.4, t);
    const TsdaState st = tsda_state(fe.tsda[0], s.q.data(), s.v.data(), t);
    CHECK(st.length == Approx(length(s.q)).epsilon(1e-12));
    CHECK(st.rate == Approx(rate).epsilon(1e-7).margin(1e-9));
    CHECK(st.force == Approx(F).epsilon(1e-7).margin(1e-9));
    CHECK(close(forces(fe, s, t), -F * gradient(length, s.q), 1e-6));
  }
}

TEST_CASE("force elements: Q . v is the power of the physical forces (TSDA, RSDA, body loads)", "[force-elements]") {
  Rng rng(17);
  for (int trial = 0; trial < 6; ++trial) {
    State s = random_state(rng, 2);
    const double t = uniform(rng, 0, 2);
    const int bi = trial % 2 ? kGround : 0;

    {  // TSDA: the pair of forces F u on P_i, -F u on P_j
      Tsda e;
      e.body_i = bi, e.body_j = 1;
      e.point_i = random_vec3(rng), e.point_j = random_vec3(rng);
      e.stiffness = 40.0, e.damping = 3.0, e.free_length = 0.8, e.has_actuator = true;
      e.actuator = harmonic(1.0, 0.5, 2.0, 0.0);
      ForceElements fe;
      fe.tsda.push_back(e);
      const Eigen::Vector3d pi = point(s.q, bi, e.point_i), pj = point(s.q, 1, e.point_j);
      const Eigen::Vector3d vi = point_velocity(s.q, s.v, bi, e.point_i), vj = point_velocity(s.q, s.v, 1, e.point_j);
      const Eigen::Vector3d u = (pj - pi).normalized();
      const double l = (pj - pi).norm(), rate = u.dot(vj - vi);
      const double F = 40.0 * (l - 0.8) + 3.0 * rate + harmonic_value(1.0, 0.5, 2.0, 0.0, t);
      const double power = (F * u).dot(vi) + (-F * u).dot(vj);
      CHECK(forces(fe, s, t).dot(s.v) == Approx(power).epsilon(1e-10).margin(1e-10));
    }
    {  // RSDA with aligned axes: torques -T h on j, +T h on i
      Rsda e = random_rsda(rng, bi, 1);
      const double angle = uniform(rng, -3.0, 3.0);
      align_rsda(e, s.q, angle);
      // The p' of body j must stay tangent to its new p: rebuild it from a random omega.
      const Vec<4> pd = p_rate_from_angular_velocity(p_of(s.q, 1), random_vec3(rng, 2.0));
      for (int k = 0; k < 4; ++k) s.v(7 + 3 + k) = pd[k];
      e.stiffness = 25.0, e.damping = 2.0, e.free_angle = 0.4, e.has_actuator = true;
      e.actuator = harmonic(-1.0, 0.5, 1.0, 0.3);
      ForceElements fe;
      fe.rsda.push_back(e);
      const Eigen::Vector3d h = rot(p_of(s.q, bi)) * E3(e.marker_i.h);
      const Eigen::Vector3d wi = omega_of(s.q, s.v, bi), wj = omega_of(s.q, s.v, 1);
      const double rate = h.dot(wj - wi);
      const double T = 25.0 * std::remainder(angle - 0.4, 2 * kPi) + 2.0 * rate + harmonic_value(-1.0, 0.5, 1.0, 0.3, t);
      const double power = (-T * h).dot(wj) + (T * h).dot(wi);
      const RsdaState st = rsda_state(e, s.q.data(), s.v.data(), t);
      CHECK(st.rate == Approx(rate).epsilon(1e-10).margin(1e-12));
      CHECK(st.torque == Approx(T).epsilon(1e-10).margin(1e-12));
      CHECK(forces(fe, s, t).dot(s.v) == Approx(power).epsilon(1e-10).margin(1e-10));
    }
    {  // body loads, ground and body frame
      const bool body_frame = trial % 2 == 1;
      BodyLoad e;
      e.body = 1, e.body_frame = body_frame;
      e.force = random_vec3(rng, 5.0), e.torque = random_vec3(rng, 5.0), e.point = random_vec3(rng);
      e.scale = harmonic(1.0, 0.5, 0.7, 0.0);
      ForceElements fe;
      fe.loads.push_back(e);
      const double scale = harmonic_value(1.0, 0.5, 0.7, 0.0, t);
      const Eigen::Matrix3d a = body_frame ? rot(p_of(s.q, 1)) : Eigen::Matrix3d::Identity();
      const Eigen::Vector3d f = scale * a * E3(e.force), n = scale * a * E3(e.torque);
      const double power = f.dot(point_velocity(s.q, s.v, 1, e.point)) + n.dot(omega_of(s.q, s.v, 1));
      const VecX Q = forces(fe, s, t);
      CHECK(Q.head<7>().isZero());  // body 0 untouched
      CHECK(Q.dot(s.v) == Approx(power).epsilon(1e-10).margin(1e-10));
    }
  }
}

TEST_CASE("force elements: RSDA torque is minus the gradient of its potential, and the angle of a known turn",
          "[force-elements]") {
  Rng rng(23);
  SECTION("gradient at random (non-aligned) states, and damping with theta' along q + t v") {
    for (int trial = 0; trial < 6; ++trial) {
      const State s = random_state(rng, 2);
      const double t = uniform(rng, 0, 2);
      Rsda e = random_rsda(rng, trial % 3 == 2 ? kGround : 0, 1);
      e.stiffness = uniform(rng, 10, 100);
      e.free_angle = rsda_angle(e, s.q) - 0.9;  // deflection 0.9, far from the wrap at a half turn
      ForceElements fe;
      fe.rsda.push_back(e);
      auto angle = [&](const VecX& q) { return rsda_angle(e, q); };
      auto potential = [&](const VecX& q) {
        const double x = std::remainder(rsda_angle(e, q) - e.free_angle, 2 * kPi);
        return 0.5 * e.stiffness * x * x;
      };
      double energy = 0.0;
      const VecX Q = forces(fe, s, t, &energy);
      CHECK(energy == Approx(potential(s.q)).epsilon(1e-10));
      CHECK(close(Q, -gradient(potential, s.q), 1e-6));

      fe.rsda[0].stiffness = 0.0;
      fe.rsda[0].damping = uniform(rng, 1, 10);
      const double rate = rate_along(angle, s.q, s.v);
      const RsdaState st = rsda_state(fe.rsda[0], s.q.data(), s.v.data(), t);
      CHECK(st.rate == Approx(rate).epsilon(1e-7).margin(1e-9));
      CHECK(close(forces(fe, s, t), -fe.rsda[0].damping * rate * gradient(angle, s.q), 1e-6));
    }
  }
  SECTION("body j turned by a about the marker axis gives theta = a; the deflection wraps") {
    for (const double a : {0.0, 0.3, -1.2, kPi / 2, 2.9, -3.1}) {
      for (const int bi : {kGround, 0}) {
        State s = random_state(rng, 2);
        Rsda e = random_rsda(rng, bi, 1);
        e.stiffness = 10.0;
        align_rsda(e, s.q, a);
        CHECK(rsda_state(e, s.q.data(), s.v.data(), 0.0).angle == Approx(a).margin(1e-12));
        // Free angle 3 and theta = -3.1: a deflection of 2 pi - 6.1, not -6.1.
        e.free_angle = 3.0;
        const RsdaState st = rsda_state(e, s.q.data(), s.v.data(), 0.0);
        const double deflection = a - 3.0 < -kPi ? a - 3.0 + 2 * kPi : a - 3.0;
        CHECK(st.angle == Approx(3.0 + deflection).margin(1e-12));
        CHECK(st.torque == Approx(10.0 * deflection).margin(1e-10));
      }
    }
  }
  SECTION("f_j along h_i: no angle, an exception rather than NaN") {
    State s = random_state(rng, 2);
    Rsda e;
    e.name = "twisted";
    e.body_i = kGround, e.body_j = 0;
    e.marker_i = marker_from_axis(vec3(0, 0, 0), vec3(0, 0, 1));  // h_i = z
    e.marker_j = marker_from_axis(vec3(0, 0, 0), vec3(1, 0, 0));  // f_j some axis normal to x
    set_p(s.q, 0, unit_p(Eigen::Quaterniond::FromTwoVectors(E3(e.marker_j.f), Eigen::Vector3d::UnitZ())));
    ForceElements fe;
    fe.rsda.push_back(e);
    CHECK_THROWS_AS(forces(fe, s, 0.0), std::runtime_error);
    CHECK_THROWS_AS(rsda_state(e, s.q.data(), s.v.data(), 0.0), std::runtime_error);
  }
}

TEST_CASE("force elements: a body-frame load turns with the body", "[force-elements]") {
  // Body 0 at r = (1, 2, 3) turned 90 degrees about z: body x is ground y, body y is ground -x.
  State s{VecX::Zero(7), VecX::Zero(7)};
  s.q.head<3>() << 1, 2, 3;
  set_p(s.q, 0, vec4(std::cos(kPi / 4), 0, 0, std::sin(kPi / 4)));
  BodyLoad body;
  body.body = 0, body.body_frame = true;
  body.force = vec3(2, 0, 0), body.torque = vec3(1, 0, 0), body.point = vec3(0, 1, 0);
  body.scale = TimeFunction::constant(1.5);
  BodyLoad ground = body;  // the same load written in the ground frame
  ground.body_frame = false;
  ground.force = vec3(0, 2, 0), ground.torque = vec3(0, 1, 0);
  ForceElements fb, fg;
  fb.loads.push_back(body);
  fg.loads.push_back(ground);
  const VecX Q = forces(fb, s, 0.0);
  CHECK(close(Q.head<3>(), Eigen::Vector3d(0, 3, 0), 1e-14));  // force 1.5 * 2 along ground y
  CHECK(close(Q, forces(fg, s, 0.0), 1e-14));
  // Spinning about z at 1 rad/s: the point at ground offset (-1, 0, 0) moves at (0, -1, 0), so the
  // force (0, 3, 0) has power -3; the torque (0, 1.5, 0) does no work.
  const Vec<4> pd = p_rate_from_angular_velocity(p_of(s.q, 0), vec3(0, 0, 1));
  for (int k = 0; k < 4; ++k) s.v(3 + k) = pd[k];
  CHECK(Q.dot(s.v) == Approx(-3.0).epsilon(1e-14));
}

TEST_CASE("force elements: zero-length TSDA applies no force instead of NaN, and empty() says whether any is present", "[force-elements]") {
  Rng rng(3);
  State s = random_state(rng, 2);  // random velocities and body 1 orientation
  Tsda e;
  e.body_i = 0, e.body_j = 1, e.point_i = vec3(0.1, 0.2, 0.3), e.point_j = vec3(0, 0, 0);
  e.stiffness = 50.0, e.damping = 5.0, e.free_length = 1.0;
  // Body 0 unrotated, body 1's centre on P_i: the points coincide exactly in floating point.
  set_p(s.q, 0, vec4(1, 0, 0, 0));
  s.q.segment<3>(7) = s.q.head<3>() + E3(e.point_i);
  ForceElements fe;
  CHECK(fe.empty());
  fe.tsda.push_back(e);
  CHECK_FALSE(fe.empty());
  const TsdaState st = tsda_state(e, s.q.data(), s.v.data(), 0.0);
  CHECK(st.length == 0.0);
  CHECK(st.rate == 0.0);
  CHECK(st.force == Approx(-50.0));  // k (0 - l0): reported, but it has no direction to act along
  double energy = 0.0;
  const VecX Q = forces(fe, s, 0.0, &energy);
  CHECK(Q.isZero(0.0));
  CHECK(energy == Approx(25.0));
  // A hair apart the force is finite again.
  s.q(7) += 1e-9;
  CHECK(forces(fe, s, 0.0).allFinite());
}
