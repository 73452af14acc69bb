#pragma once
// The body-frame angular velocity of Euler parameters and its inverse, for checking rigid-body
// motion in the tests: omega' = 2 G p' and, for a unit p (G G^T = I, G p = 0), p' = 1/2 G^T omega'
// (rigid/euler_parameters.hpp has the ground-frame pair the solver uses).
#include "catenary/rigid/euler_parameters.hpp"

namespace catenary::testing {

inline Vec<3> body_angular_velocity(const Vec<4>& p, const Vec<4>& pd) {
  return vec_scale(2.0, mat_vec(rigid::g_matrix(p), pd));
}

inline Vec<4> p_rate_from_body_angular_velocity(const Vec<4>& p, const Vec<3>& omega_body) {
  return vec_scale(0.5, mat_t_vec(rigid::g_matrix(p), omega_body));
}

}  // namespace catenary::testing
