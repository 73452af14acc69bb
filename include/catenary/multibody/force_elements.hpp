#pragma once
// Force elements on rigid bodies (the 7-coordinate (r, p) layout of multibody/mechanism.hpp):
// translational and rotational spring-damper-actuators between two bodies, and prescribed
// loads on one body. Each adds its generalized force to Q through the Euler-parameter force
// mapping of rigid/euler_parameters.hpp (a ground-frame force f at the body point s' gives
// Q_r = f, Q_p = B(p, s')^T f; a torque n gives Q_p = 2 E^T n, a body-frame torque n' 2 G^T n').
// Body kGround is the ground (r = 0, p = (1, 0, 0, 0)): it gets no generalized force.
#include <string>
#include <vector>

#include "catenary/core/time_function.hpp"
#include "catenary/multibody/ground.hpp"
#include "catenary/multibody/impact_law.hpp"
#include "catenary/rigid/joints.hpp"

namespace catenary {

// Translational spring-damper-actuator between the body-frame point point_i of body i and
// point_j of body j (ground: a ground-frame point). Along the line P_i -> P_j, l = |P_j - P_i|:
//   F = stiffness (l - free_length) + damping l' - IMPACT(l, l', free_length) + actuator(t)
// F > 0 is tension: it pulls the two points together. The IMPACT term (has_impact: ADAMS's
// one-sided stop, multibody/impact_law.hpp) pushes the points apart while l < free_length.
// Potential 1/2 stiffness (l - free_length)^2 plus the stop's impact_energy.
// At l = 0 the line has no direction: the element then applies no force (see force_elements.cpp).
struct Tsda {
  std::string name;
  int body_i = kGround, body_j = kGround;
  Vec<3> point_i = Vec<3>::zero(), point_j = Vec<3>::zero();
  double stiffness = 0.0, damping = 0.0, free_length = 0.0;
  bool has_impact = false;
  ImpactLaw impact;
  bool has_actuator = false;
  TimeFunction actuator;
};

// Rotational spring-damper-actuator about a common axis h (markers as for a revolute joint).
// theta is the rotation of marker j's f axis from marker i's f axis about h_i,
//   theta = atan2((f_i x f_j).h_i, f_i.f_j)      (= rigid::rotation_coordinate)
// and the spring acts on the deflection theta - free_angle wrapped into [-pi, pi]: the element is
// continuous anywhere within half a turn of free_angle and does not count turns (no unwrapping;
// the torque flips sign when the deflection passes a half turn). The moment
//   T = stiffness (theta - free_angle) + damping theta' + actuator(t)
// acts as -T h_i on body j and +T h_i on body i. The generalized force is -T dtheta/dq, which
// is exactly that torque pair when h_j is parallel to h_i (revolute, cylindrical joint) and the
// conservative generalization of it otherwise. Undefined (throws) when f_j is parallel to h_i.
struct Rsda {
  std::string name;
  int body_i = kGround, body_j = kGround;
  rigid::Marker marker_i, marker_j;
  double stiffness = 0.0, damping = 0.0, free_angle = 0.0;
  bool has_actuator = false;
  TimeFunction actuator;
};

// Force and torque on one body, each a constant vector times scale(t), in the ground frame or
// (body_frame) the body frame, so that they turn with the body; the force acts at the body-frame
// point `point`. A load on kGround has no effect.
struct BodyLoad {
  std::string name;
  int body = 0;
  Vec<3> force = Vec<3>::zero(), torque = Vec<3>::zero(), point = Vec<3>::zero();
  bool body_frame = false;
  TimeFunction scale = TimeFunction::constant(1.0);
};

struct ForceElements {
  std::vector<Tsda> tsda;
  std::vector<Rsda> rsda;
  std::vector<BodyLoad> loads;
  bool empty() const { return tsda.empty() && rsda.empty() && loads.empty(); }
};

// Q += generalized forces of all elements at (q, q' = v, t); q, v, Q hold 7 entries per body
// (size >= 7 * the largest body index + 7). Returns the springs' potential energy
// (sum of 1/2 k (l - l0)^2, the stops' impact_energy and 1/2 k (theta - theta0)^2).
double add_force_element_forces(const ForceElements& fe, const double* q, const double* v, double t, double* Q);

// Per element, for output. TSDA: length l, rate l', force F (tension positive).
// RSDA: angle free_angle + wrapped deflection (equal to theta modulo 2 pi), rate theta', moment T
// (the torque on body j about h_i is -T).
struct TsdaState {
  double length, rate, force;
};
struct RsdaState {
  double angle, rate, torque;
};
TsdaState tsda_state(const Tsda& e, const double* q, const double* v, double t);
RsdaState rsda_state(const Rsda& e, const double* q, const double* v, double t);

}  // namespace catenary
