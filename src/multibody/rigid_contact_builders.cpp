#include "catenary/multibody/rigid_contact_builders.hpp"

#include <cmath>

#include "catenary/core/errors.hpp"
#include "catenary/multibody/mechanism_builders.hpp"
#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {
namespace {

rigid::BodyState initial_state(const Mechanism& m, int body) {
  rigid::BodyState s = rigid::ground_state();
  if (body == kGround) return s;
  const RigidBody& b = m.bodies.at(body);
  s.r = b.position;
  s.p = rigid::normalized(b.orientation);
  return s;
}

void require(bool ok, const std::string& what, const std::string& rule) {
  if (!ok) throw ModelError(what + ": " + rule);
}

void check_body(const Mechanism& m, int body, const std::string& what) {
  require(body == kGround || (body >= 0 && body < static_cast<int>(m.bodies.size())), what,
          "body " + std::to_string(body) + " is not in the mechanism");
}

}  // namespace

void check_rigid_contact_law(const RigidContactLaw& law, const std::string& what) {
  const ContactLaw& c = law.law;
  require(c.stiffness > 0.0 && std::isfinite(c.stiffness), what, "the stiffness must be positive");
  require(c.exponent >= 1.0, what, "the force exponent must be at least 1");
  require(c.damping >= 0.0 && c.damping_exponent >= 0.0, what, "the damping and its exponent must not be negative");
  const RigidFriction& f = law.friction;
  require(f.static_coefficient >= 0.0 && f.dynamic_coefficient >= 0.0, what, "friction coefficients must not be negative");
  require(f.rolling >= 0.0 && f.spinning >= 0.0, what, "rolling and spinning friction must not be negative");
  require(f.stiction_velocity > 0.0 && f.transition_velocity > f.stiction_velocity, what,
          "the stiction velocity must be positive and below the transition velocity");
  require(law.restitution < 0.0 || law.restitution <= 1.0, what, "the restitution must lie in [0, 1]");
  require(law.capture_speed > 0.0, what, "the capture speed must be positive");
}

int add_rigid_shape(Mechanism& m, const RigidShape& shape) {
  const std::string what = "shape '" + shape.name + "'";
  require(shape.body >= 0 && shape.body < static_cast<int>(m.bodies.size()), what, "a shape belongs to a rigid body");
  switch (shape.kind) {
    case ShapeKind::sphere: require(shape.radius > 0.0, what, "the radius must be positive"); break;
    case ShapeKind::capsule:
    case ShapeKind::cylinder:
      require(shape.radius > 0.0, what, "the radius must be positive");
      require(shape.length > 0.0, what, "the length must be positive");
      break;
    case ShapeKind::box:
      require(shape.size[0] > 0.0 && shape.size[1] > 0.0 && shape.size[2] > 0.0, what,
              "the edge lengths must be positive");
      break;
  }
  for (const Vec<3>* axis : {&shape.frame.f, &shape.frame.g, &shape.frame.h})
    require(std::fabs(vec_norm(*axis) - 1.0) < 1e-9, what, "the shape's axes must be unit vectors");
  m.contacts.shapes.push_back(shape);
  return static_cast<int>(m.contacts.shapes.size()) - 1;
}

int add_plane_contact(Mechanism& m, const std::string& name, int shape, const Vec<3>& normal, const Vec<3>& point,
                      const RigidContactLaw& law) {
  const std::string what = "contact '" + name + "'";
  require(shape >= 0 && shape < static_cast<int>(m.contacts.shapes.size()), what, "no such shape");
  const double n = vec_norm(normal);
  require(n > 0.0 && std::isfinite(n), what, "the plane's normal must be a nonzero vector");
  check_rigid_contact_law(law, what);
  PlaneContact c;
  c.name = name;
  c.shape = shape;
  c.normal = vec_scale(1.0 / n, normal);
  c.point = point;
  c.law = law;
  m.contacts.planes.push_back(c);
  return static_cast<int>(m.contacts.planes.size()) - 1;
}

int add_clearance_joint(Mechanism& m, const std::string& name, ClearanceJoint::Kind kind, int body_i, int body_j,
                        const Vec<3>& point, const Vec<3>& axis, double bearing_radius, double journal_radius,
                        double length, const RigidContactLaw& law) {
  const std::string what = "joint '" + name + "'";
  check_body(m, body_i, what);
  check_body(m, body_j, what);
  require(body_i != body_j, what, "a joint with clearance connects two different bodies");
  require(journal_radius > 0.0, what, "the journal radius must be positive");
  require(bearing_radius > journal_radius, what, "the bearing radius must exceed the journal radius (the clearance)");
  require(length >= 0.0, what, "the journal's length must not be negative");
  check_rigid_contact_law(law, what);
  const Mat<3, 3> frame = triad_from_axis(axis);
  ClearanceJoint c;
  c.name = name;
  c.kind = kind;
  c.body_i = body_i;
  c.body_j = body_j;
  c.marker_i = rigid::marker_from_ground(initial_state(m, body_i), point, frame);
  c.marker_j = rigid::marker_from_ground(initial_state(m, body_j), point, frame);
  c.bearing_radius = bearing_radius;
  c.journal_radius = journal_radius;
  c.length = kind == ClearanceJoint::Kind::revolute ? length : 0.0;
  c.law = law;
  m.contacts.clearance_joints.push_back(c);
  return static_cast<int>(m.contacts.clearance_joints.size()) - 1;
}

}  // namespace catenary
