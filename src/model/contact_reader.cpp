#include "contact_reader.hpp"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace catenary {

namespace {

using namespace case_reading;

// The normal force law's K, e, C and m (ContactSurface) from /law. Each named law is a case of
// F = K delta^e + C delta^m delta':
//   linear (Dubowsky's spring-damper):    e = 1, C = damping, m = 0;
//   hertz:                                K delta^e, no damping (e = 1.5 by default);
//   hunt_crossley:                        C = alpha K, m = e, alpha = 3 (1 - c_r) / (2 v_ref);
//   lankarani_nikravesh:                  C = alpha K, m = e, alpha = 3 (1 - c_r^2) / (4 v_ref);
//   general:                              all four given.
// The hysteresis laws' alpha comes from a restitution coefficient c_r at a reference impact speed
// v_ref: the formulas hold the impact speed of each contact, which a continuum of points along a
// cable has none of, so one stated speed stands for them.
void read_law(const Node& n, ContactSurface& c) {
  if (!n.v.is_object()) n.fail("must be an object" + n.got());
  const std::string type = get_choice(n.required("type"),
                                      {"linear", "hertz", "hunt_crossley", "lankarani_nikravesh", "general"},
                                      "contact law");
  const auto exponent = [&](const char* key, double fallback, double least) {
    if (!n.has(key)) return fallback;
    const Node x = n.child(key);
    const double value = get_number(x);
    if (!(value >= least))
      x.fail("must be at least " + format_number(least) + " (got " + format_number(value) + ")");
    return value;
  };
  c.stiffness = get_positive(n.required("stiffness"));
  c.damping = 0.0;
  c.damping_exponent = 0.0;
  if (type == "linear") {
    expect_object(n, {"type", "stiffness", "damping"});
    c.exponent = 1.0;
    if (n.has("damping")) c.damping = get_non_negative(n.child("damping"));
  } else if (type == "hertz") {
    expect_object(n, {"type", "stiffness", "exponent"});
    c.exponent = exponent("exponent", 1.5, 1.0);
  } else if (type == "general") {
    expect_object(n, {"type", "stiffness", "exponent", "damping", "damping_exponent"});
    c.exponent = exponent("exponent", 1.5, 1.0);
    c.damping = get_non_negative(n.required("damping"));
    c.damping_exponent = exponent("damping_exponent", 0.0, 0.0);
  } else {
    expect_object(n, {"type", "stiffness", "exponent", "restitution", "impact_velocity"});
    c.exponent = exponent("exponent", 1.5, 1.0);
    const Node rn = n.required("restitution");
    const double cr = get_number(rn);
    if (!(cr >= 0.0 && cr <= 1.0)) rn.fail("must lie in [0, 1] (got " + format_number(cr) + ")");
    const double v = get_positive(n.required("impact_velocity"));
    const double alpha = type == "hunt_crossley" ? 3.0 * (1.0 - cr) / (2.0 * v) : 3.0 * (1.0 - cr * cr) / (4.0 * v);
    c.damping = alpha * c.stiffness;
    c.damping_exponent = c.exponent;
  }
}

// Coulomb friction from /friction: axial and lateral coefficients (lateral defaults to axial) and
// the slip velocity of its regularization.
void read_friction(const Node& n, ContactSurface& c) {
  expect_object(n, {"axial", "lateral", "slip_velocity"});
  c.friction_axial = get_non_negative(n.required("axial"));
  c.friction_lateral = n.has("lateral") ? get_non_negative(n.child("lateral")) : c.friction_axial;
  c.slip_velocity = get_positive(n.required("slip_velocity"));
}

// A unit vector from n: nonzero, normalized.
Vec3 read_direction(const Node& n, int D) {
  const Vec3 v = get_vector(n, D);
  const double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(length > 0.0) || !std::isfinite(length)) n.fail("must be a nonzero vector");
  return {v[0] / length, v[1] / length, v[2] / length};
}

// A plane (a point and its normal) or the outside of a cylinder (a point of its axis, the axis,
// its radius; in a planar model a circle about the point), with the tube radius, law and friction.
ContactSurface read_surface(const Node& n, int D) {
  const std::string type = get_choice(n.required("type"), {"plane", "cylinder"}, "contact type");
  std::vector<std::string> keys = {"name", "type", "bodies", "point", "radius", "law", "friction"};
  if (type == "plane")
    keys.push_back("normal");
  else
    keys.insert(keys.end(), {"cylinder_radius", "axis"});
  expect_object(n, keys);
  ContactSurface c{};
  Vec3 direction{};
  if (type == "plane") {
    c.kind = double(SurfaceKind::plane);
    direction = read_direction(n.required("normal"), D);
  } else {
    c.kind = double(SurfaceKind::cylinder);
    if (D == 3)
      direction = read_direction(n.required("axis"), D);
    else if (n.has("axis"))
      n.child("axis").fail("a planar model's cylinder is a circle about \"point\" in the model's plane: no axis");
    c.surface_radius = get_positive(n.required("cylinder_radius"));
  }
  const Vec3 point = get_vector(n.required("point"), D);
  for (int i = 0; i < 3; ++i) {
    c.direction[i] = direction[i];
    c.point[i] = point[i];
  }
  c.radius = n.has("radius") ? get_non_negative(n.child("radius")) : 0.0;
  read_law(n.required("law"), c);
  c.friction_axial = c.friction_lateral = 0.0;
  c.slip_velocity = 1.0;  // unused without friction
  if (n.has("friction")) read_friction(n.child("friction"), c);
  return c;
}

}  // namespace

void read_contacts(const Node& model, Model& m) {
  std::map<int, std::string> contact_of_body;  // body -> the path of the contact that names it
  int count = 0;
  read_list(model, "contacts", "contacts", [&](const Node& n) {
    const ContactSurface surface = read_surface(n, m.dimension);
    const std::string name = n.has("name") ? get_name(n.child("name")) : "contacts[" + std::to_string(count) + "]";
    for (const std::string& earlier : m.elements.contact_names)
      if (earlier == name) (n.has("name") ? n.child("name") : n).fail("contact name '" + shown(name) + "' is already used");
    const Node bodies = n.required("bodies");
    if (!bodies.v.is_array() || bodies.v.empty()) bodies.fail("must be a non-empty array of body names" + bodies.got());
    std::vector<int> touching;
    for (size_t i = 0; i < bodies.v.size(); ++i) {
      const Node bn = bodies.at(i);
      const int body = read_body_reference(bn, m);
      const auto [at, added] = contact_of_body.emplace(body, n.path);
      if (!added)
        bn.fail("body '" + m.bodies[body].name + "' already touches the contact at " + at->second +
                " (a body touches one surface)");
      touching.push_back(body);
    }
    add_contact_surface(m, name, surface, touching);
    ++count;
  });
}

}  // namespace catenary
