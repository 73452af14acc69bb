#include "rigid_contact_reader.hpp"

#include <cmath>

#include "catenary/core/errors.hpp"
#include "catenary/multibody/rigid_contact_builders.hpp"
#include "catenary/rigid/joints.hpp"
#include "contact_law_reader.hpp"

namespace catenary {

using namespace case_reading;

namespace {

// /law: a continuous law, or the classical impact model
//   {"type": "impact", "restitution": e, "stiffness": K, "damping": C, "capture_speed": v_c}
// whose velocity jump replaces the law at closing speeds above v_c, while the linear
// spring-damper K, C carries the bodies' persistent contact.
void read_law(const Node& n, RigidContactLaw& law) {
  if (!n.v.is_object()) n.fail("must be an object" + n.got());
  std::vector<std::string> types = continuous_contact_law_names();
  types.push_back("impact");
  const std::string type = get_choice(n.required("type"), types, "contact law");
  if (type == "impact") {
    expect_object(n, {"type", "restitution", "stiffness", "damping", "capture_speed"});
    const Node rn = n.required("restitution");
    law.restitution = get_number(rn);
    if (!(law.restitution >= 0.0 && law.restitution <= 1.0))
      rn.fail("must lie in [0, 1] (got " + format_number(law.restitution) + ")");
    law.law = {get_positive(n.required("stiffness")), 1.0,
               n.has("damping") ? get_non_negative(n.child("damping")) : 0.0, 0.0};
    if (n.has("capture_speed")) law.capture_speed = get_positive(n.child("capture_speed"));
    return;
  }
  law.law = read_contact_law(n);
}

// /friction: {"static", "dynamic" (default: static), "stiction_velocity", "transition_velocity"
// (default: twice the stiction velocity), "rolling", "spinning"}.
void read_friction(const Node& n, RigidFriction& f) {
  expect_object(n, {"static", "dynamic", "stiction_velocity", "transition_velocity", "rolling", "spinning"});
  f.static_coefficient = n.has("static") ? get_non_negative(n.child("static")) : 0.0;
  f.dynamic_coefficient = n.has("dynamic") ? get_non_negative(n.child("dynamic")) : f.static_coefficient;
  // Every friction force and torque is regularized over the stiction velocity: it has no default.
  f.stiction_velocity = get_positive(n.required("stiction_velocity"));
  f.transition_velocity = 2.0 * f.stiction_velocity;
  if (n.has("transition_velocity")) {
    const Node tn = n.child("transition_velocity");
    f.transition_velocity = get_positive(tn);
    if (!(f.transition_velocity > f.stiction_velocity))
      tn.fail("must exceed the stiction velocity " + format_number(f.stiction_velocity) + " (got " +
              format_number(f.transition_velocity) + ")");
  }
  f.rolling = n.has("rolling") ? get_non_negative(n.child("rolling")) : 0.0;
  f.spinning = n.has("spinning") ? get_non_negative(n.child("spinning")) : 0.0;
}

RigidContactLaw read_contact(const Node& n) {
  RigidContactLaw law;
  read_law(n.required("law"), law);
  if (n.has("friction")) read_friction(n.child("friction"), law.friction);
  return law;
}

// A unit vector from a nonzero 3-vector.
Vec<3> read_unit(const Node& n) {
  const Vec<3> a = get_vector(n, 3);
  const double length = vec_norm(a);
  if (!(length > 0.0) || !std::isfinite(length)) n.fail("must be a nonzero vector");
  return vec_scale(1.0 / length, a);
}

template <class Build>
void build(const Node& n, Build b) {
  try {
    b();
  } catch (const ModelError& e) {
    n.fail(e.what());
  }
}

}  // namespace

void read_rigid_shapes(const Node& n, int body, Model& m) {
  if (!n.v.is_array()) n.fail("must be an array of shapes" + n.got());
  const std::string& body_name = m.mechanism.bodies[body].name;
  for (size_t k = 0; k < n.v.size(); ++k) {
    const Node sn = n.at(k);
    if (!sn.v.is_object()) sn.fail("must be an object" + sn.got());
    RigidShape s;
    s.body = body;
    s.name = sn.has("name") ? get_name(sn.child("name")) : body_name + ".shapes[" + std::to_string(k) + "]";
    const std::string type = get_choice(sn.required("type"), {"sphere", "capsule", "cylinder", "box"}, "shape type");
    const Vec<3> centre = sn.has("position") ? get_vector(sn.child("position"), 3) : Vec<3>::zero();
    if (type == "box") {
      expect_object(sn, {"name", "type", "position", "size"});
      s.kind = ShapeKind::box;
      s.frame = rigid::marker_from_axis(centre, vec3(0, 0, 1));
      s.frame.f = vec3(1, 0, 0);
      s.frame.g = vec3(0, 1, 0);
      const Node zn = sn.required("size");
      const Vec<3> size = get_vector(zn, 3);
      for (int i = 0; i < 3; ++i)
        if (!(size[i] > 0.0)) zn.at(i).fail("must be positive (an edge length, m)");
      s.size = size;
    } else {
      const bool long_shape = type != "sphere";
      if (long_shape)
        expect_object(sn, {"name", "type", "position", "radius", "length", "axis"});
      else
        expect_object(sn, {"name", "type", "position", "radius"});
      s.kind = type == "sphere" ? ShapeKind::sphere : type == "capsule" ? ShapeKind::capsule : ShapeKind::cylinder;
      s.radius = get_positive(sn.required("radius"));
      if (long_shape) s.length = get_positive(sn.required("length"));
      s.frame = rigid::marker_from_axis(centre, sn.has("axis") ? read_unit(sn.child("axis")) : vec3(0, 0, 1));
    }
    for (const RigidShape& earlier : m.mechanism.contacts.shapes)
      if (earlier.name == s.name) sn.fail("shape name '" + shown(s.name) + "' is already used");
    build(sn, [&] { add_rigid_shape(m.mechanism, s); });
  }
}

void read_clearance_joint(const Node& n, const std::string& name, ClearanceJoint::Kind kind, int body_i, int body_j,
                          const Vec<3>& point, const Vec<3>& axis, Model& m) {
  if (!n.v.is_object()) n.fail("must be an object" + n.got());
  if (kind == ClearanceJoint::Kind::revolute)
    expect_object(n, {"bearing_radius", "journal_radius", "length", "law", "friction"});
  else
    expect_object(n, {"bearing_radius", "journal_radius", "law", "friction"});
  const double journal = get_positive(n.required("journal_radius"));
  const Node bn = n.required("bearing_radius");
  const double bearing = get_positive(bn);
  if (!(bearing > journal))
    bn.fail("must exceed the journal radius " + format_number(journal) + " (the clearance is their difference; got " +
            format_number(bearing) + ")");
  const double length = n.has("length") ? get_non_negative(n.child("length")) : 0.0;
  const RigidContactLaw law = read_contact(n);
  build(n, [&] { add_clearance_joint(m.mechanism, name, kind, body_i, body_j, point, axis, bearing, journal, length, law); });
}

void read_rigid_plane_contact(const Node& n, const std::string& name, const std::vector<int>& bodies, Model& m) {
  expect_object(n, {"name", "type", "bodies", "point", "normal", "law", "friction"});
  const Vec<3> normal = read_unit(n.required("normal"));
  const Vec<3> point = get_vector(n.required("point"), 3);
  const RigidContactLaw law = read_contact(n);
  for (size_t k = 0; k < bodies.size(); ++k) {
    bool any = false;
    const auto& shapes = m.mechanism.contacts.shapes;
    for (size_t s = 0; s < shapes.size(); ++s) {
      if (shapes[s].body != bodies[k]) continue;
      any = true;
      const std::string contact = name + "/" + shapes[s].name;
      build(n, [&] { add_plane_contact(m.mechanism, contact, static_cast<int>(s), normal, point, law); });
    }
    if (!any)
      n.child("bodies").at(k).fail("rigid body '" + m.mechanism.bodies[bodies[k]].name +
                                   "' has no shapes to touch the plane with (give it \"shapes\")");
  }
}

}  // namespace catenary
