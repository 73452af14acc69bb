#include "catenary/multibody/mechanism_builders.hpp"

#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {

Mat<3, 3> triad(const Vec<3>& f, const Vec<3>& g, const Vec<3>& h) {
  Mat<3, 3> m;
  for (int k = 0; k < 3; ++k) m(k, 0) = f[k], m(k, 1) = g[k], m(k, 2) = h[k];
  return m;
}

Mat<3, 3> triad_from_axis(const Vec<3>& axis) {
  const rigid::Marker m = rigid::marker_from_axis(Vec<3>::zero(), axis);
  return triad(m.f, m.g, m.h);
}

RigidBody rigid_body_at_rest(const std::string& name, double mass, const Vec<3>& principal_inertia,
                             const Vec<3>& position, const Vec<4>& orientation) {
  RigidBody b;
  b.name = name;
  b.mass = mass;
  b.inertia = Mat<3, 3>::zero();
  for (int k = 0; k < 3; ++k) b.inertia(k, k) = principal_inertia[k];
  b.position = position;
  b.orientation = orientation;
  b.velocity = b.angular_velocity = Vec<3>::zero();
  return b;
}

int add_joint(Mechanism& m, const std::string& name, rigid::JointType type, int body_i, int body_j,
              const Vec<3>& point, const Mat<3, 3>& frame) {
  auto initial_state = [&](int body) {
    if (body == kGround) return rigid::ground_state();
    const RigidBody& b = m.bodies.at(body);
    rigid::BodyState s = rigid::ground_state();
    s.r = b.position;
    s.p = rigid::normalized(b.orientation);
    return s;
  };
  Joint joint;
  joint.name = name;
  joint.type = type;
  joint.body_i = body_i;
  joint.body_j = body_j;
  joint.marker_i = rigid::marker_from_ground(initial_state(body_i), point, frame);
  joint.marker_j = rigid::marker_from_ground(initial_state(body_j), point, frame);
  m.joints.push_back(joint);
  return static_cast<int>(m.joints.size()) - 1;
}

}  // namespace catenary
