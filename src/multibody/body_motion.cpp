// A rigid body moved along a prescribed path (see include/catenary/multibody/body_motion.hpp).
#include "catenary/multibody/body_motion.hpp"

#include <cmath>

#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {
namespace {

// The rotation by angle(t) about ground axis `axis` as a quaternion, with its two time
// derivatives: q = (cos h, sin h e), h = angle / 2.
TargetOrientation about_axis(const TimeFunction& angle, int axis, double t) {
  const double h = 0.5 * angle.value(t), hd = 0.5 * angle.first_derivative(t), hdd = 0.5 * angle.second_derivative(t);
  const double c = std::cos(h), s = std::sin(h);
  TargetOrientation out{Vec<4>::zero(), Vec<4>::zero(), Vec<4>::zero()};
  out.q[0] = c, out.q[1 + axis] = s;
  out.rate[0] = -s * hd, out.rate[1 + axis] = c * hd;
  out.acceleration[0] = -s * hdd - c * hd * hd, out.acceleration[1 + axis] = c * hdd - s * hd * hd;
  return out;
}

// a (x) b with its derivatives by Leibniz's rule.
TargetOrientation product(const TargetOrientation& a, const TargetOrientation& b) {
  TargetOrientation out;
  using rigid::quaternion_product;
  out.q = quaternion_product(a.q, b.q);
  out.rate = vec_add(quaternion_product(a.rate, b.q), quaternion_product(a.q, b.rate));
  out.acceleration = vec_add(vec_add(quaternion_product(a.acceleration, b.q), quaternion_product(a.q, b.acceleration)),
                             vec_scale(2.0, quaternion_product(a.rate, b.rate)));
  return out;
}

}  // namespace

TargetOrientation target_orientation(const BodyMotion& m, double t) {
  const TargetOrientation rotation = product(product(about_axis(m.rotation[2], 2, t), about_axis(m.rotation[1], 1, t)),
                                             about_axis(m.rotation[0], 0, t));
  const TargetOrientation initial{m.orientation, Vec<4>::zero(), Vec<4>::zero()};
  return product(rotation, initial);
}

rigid::ConstraintRows<6> body_motion_rows(const BodyMotion& m, const rigid::BodyState& b, double t) {
  rigid::ConstraintRows<6> rows = rigid::ConstraintRows<6>::zero();
  for (int k = 0; k < 3; ++k) {
    const TimeFunction& d = m.translation[k];
    rows.phi[k] = b.r[k] - m.position[k] - d.value(t);
    rows.jac_j(k, k) = 1.0;
    rows.nu[k] = d.first_derivative(t);
    rows.gamma[k] = d.second_derivative(t);
  }
  const TargetOrientation target = target_orientation(m, t);
  const Mat<3, 4> G = rigid::g_matrix(target.q);
  const Vec<3> phi = mat_vec(G, b.p);
  const Vec<3> turning = mat_vec(rigid::g_matrix(target.rate), b.p);
  const Vec<3> gamma = vec_sub(vec_scale(-2.0, mat_vec(rigid::g_matrix(target.rate), b.pd)),
                               mat_vec(rigid::g_matrix(target.acceleration), b.p));
  for (int k = 0; k < 3; ++k) {
    rows.phi[3 + k] = phi[k];
    for (int c = 0; c < 4; ++c) rows.jac_j(3 + k, 3 + c) = G(k, c);
    rows.nu[3 + k] = -turning[k];
    rows.gamma[3 + k] = gamma[k];
  }
  return rows;
}

}  // namespace catenary
