#include "contact_reader.hpp"

#include "contact_law_reader.hpp"
#include "rigid_contact_reader.hpp"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace catenary {

namespace {

using namespace case_reading;

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

// A height grid: "origin" and "spacing" over the horizontal axes (x, y; a planar model's profile:
// x alone) and "heights" of its nodes along the up axis (z; planar: y), an array of rows along x,
// one per y (planar: one array along x).
void read_grid(const Node& n, int D, ContactSurface& c, std::vector<double>& heights) {
  c.kind = double(SurfaceKind::grid);
  const int axes = D - 1;
  const auto numbers = [&](const Node& v, const char* what) {
    if (!v.v.is_array() || static_cast<int>(v.v.size()) != axes)
      v.fail("must be an array of " + std::to_string(axes) + " number" + (axes > 1 ? "s" : "") + " (" + what + ")" + v.got());
  };
  const Node on = n.required("origin"), sn = n.required("spacing");
  numbers(on, "x, y of the first node");
  numbers(sn, "the distance between nodes along x, y");
  for (int k = 0; k < axes; ++k) {
    c.grid_origin[k] = get_number(on.at(k));
    c.grid_spacing[k] = get_positive(sn.at(k));
  }
  const Node hn = n.required("heights");
  const std::string rule = D == 3 ? "must be an array of at least 2 rows (one per y), each of at least 2 heights along x"
                                  : "must be an array of at least 2 heights along x";
  if (!hn.v.is_array() || hn.v.size() < 2) hn.fail(rule + hn.got());
  if (D == 2) {
    for (size_t i = 0; i < hn.v.size(); ++i) heights.push_back(get_number(hn.at(i)));
    c.grid_size[0] = static_cast<double>(heights.size());
    c.grid_size[1] = 1.0;
    return;
  }
  size_t nx = 0;
  for (size_t j = 0; j < hn.v.size(); ++j) {
    const Node row = hn.at(j);
    if (!row.v.is_array() || row.v.size() < 2) row.fail(rule + row.got());
    if (j == 0) nx = row.v.size();
    if (row.v.size() != nx)
      row.fail("has " + std::to_string(row.v.size()) + " heights, the first row " + std::to_string(nx) +
               " (every row holds the same nodes along x)");
    for (size_t i = 0; i < nx; ++i) heights.push_back(get_number(row.at(i)));
  }
  c.grid_size[0] = static_cast<double>(nx);
  c.grid_size[1] = static_cast<double>(hn.v.size());
}

// A plane (a point and its normal), the outside of a cylinder (a point of its axis, the axis, its
// radius; in a planar model a circle about the point) or a height grid (its heights into
// `heights`), with the tube radius, law and friction.
ContactSurface read_surface(const Node& n, int D, std::vector<double>& heights) {
  const std::string type = get_choice(n.required("type"), {"plane", "cylinder", "grid"}, "contact type");
  std::vector<std::string> keys = {"name", "type", "bodies", "radius", "law", "friction"};
  if (type == "plane")
    keys.insert(keys.end(), {"point", "normal"});
  else if (type == "cylinder")
    keys.insert(keys.end(), {"point", "cylinder_radius", "axis"});
  else
    keys.insert(keys.end(), {"origin", "spacing", "heights"});
  expect_object(n, keys);
  ContactSurface c{};
  Vec3 direction{};
  if (type == "grid") {
    read_grid(n, D, c, heights);
  } else if (type == "plane") {
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
  const Vec3 point = type == "grid" ? Vec3{} : get_vector(n.required("point"), D);
  for (int i = 0; i < 3; ++i) {
    c.direction[i] = direction[i];
    c.point[i] = point[i];
  }
  c.radius = n.has("radius") ? get_non_negative(n.child("radius")) : 0.0;
  c.law = read_contact_law(n.required("law"));
  c.friction_axial = c.friction_lateral = 0.0;
  c.slip_velocity = 1.0;  // unused without friction
  if (n.has("friction")) read_friction(n.child("friction"), c);
  return c;
}

// A contact of cables with shapes of a rigid body: "rigid_body" names it, "shapes" (optional:
// all of them) names its shapes, "bodies" the cables; the tube radius, law and friction as for a
// fixed surface.
void read_cable_shape_contact(const Node& n, const std::string& name, Model& m) {
  expect_object(n, {"name", "type", "bodies", "rigid_body", "shapes", "radius", "law", "friction"});
  CableShapeContact c;
  c.name = name;
  const Node rn = n.required("rigid_body");
  const std::string body = get_name(rn);
  std::vector<std::string> rigid_names;
  c.body = -1;
  for (size_t b = 0; b < m.mechanism.bodies.size(); ++b) {
    rigid_names.push_back(m.mechanism.bodies[b].name);
    if (m.mechanism.bodies[b].name == body) c.body = static_cast<int>(b);
  }
  if (c.body < 0)
    rn.fail("unknown rigid body '" + body + "' (" + suggestion(body, rigid_names) + "rigid bodies: " +
            join_some(rigid_names) + ")");
  const auto& shapes = m.mechanism.contacts.shapes;
  std::vector<std::string> own;
  for (size_t k = 0; k < shapes.size(); ++k)
    if (shapes[k].body == c.body) own.push_back(shapes[k].name);
  if (own.empty()) rn.fail("rigid body '" + body + "' has no shapes for the cables to touch (give it \"shapes\")");
  if (n.has("shapes")) {
    const Node sn = n.child("shapes");
    if (!sn.v.is_array() || sn.v.empty()) sn.fail("must be a non-empty array of the rigid body's shape names" + sn.got());
    for (size_t i = 0; i < sn.v.size(); ++i) {
      const std::string shape = get_name(sn.at(i));
      int found = -1;
      for (size_t k = 0; k < shapes.size(); ++k)
        if (shapes[k].body == c.body && shapes[k].name == shape) found = static_cast<int>(k);
      if (found < 0)
        sn.at(i).fail("rigid body '" + body + "' has no shape '" + shape + "' (" + suggestion(shape, own) +
                      "its shapes: " + join_some(own) + ")");
      c.shapes.push_back(found);
    }
  } else {
    for (size_t k = 0; k < shapes.size(); ++k)
      if (shapes[k].body == c.body) c.shapes.push_back(static_cast<int>(k));
  }
  c.radius = n.has("radius") ? get_non_negative(n.child("radius")) : 0.0;
  c.law = read_contact_law(n.required("law"));
  if (n.has("friction")) {
    ContactSurface friction{};
    read_friction(n.child("friction"), friction);
    c.friction_axial = friction.friction_axial;
    c.friction_lateral = friction.friction_lateral;
    c.slip_velocity = friction.slip_velocity;
  }
  std::vector<int> cables;
  const Node bodies = n.required("bodies");
  for (size_t i = 0; i < bodies.v.size(); ++i) cables.push_back(read_body_reference(bodies.at(i), m));
  add_cable_shape_contact(m, c, cables);
}

}  // namespace

void read_contacts(const Node& model, Model& m) {
  std::map<int, std::string> contact_of_body;  // body -> the path of the contact that names it
  int count = 0;
  std::vector<std::string> names;
  read_list(model, "contacts", "contacts", [&](const Node& n) {
    const std::string name = n.has("name") ? get_name(n.child("name")) : "contacts[" + std::to_string(count) + "]";
    for (const std::string& earlier : names)
      if (earlier == name) (n.has("name") ? n.child("name") : n).fail("contact name '" + shown(name) + "' is already used");
    names.push_back(name);
    ++count;
    const Node bodies = n.required("bodies");
    if (!bodies.v.is_array() || bodies.v.empty()) bodies.fail("must be a non-empty array of body names" + bodies.got());
    // Rigid bodies touch a plane with their shapes (rigid_contact_reader.hpp); cables and beams
    // with their centrelines. One contact holds one kind: their friction laws differ.
    std::vector<int> rigid;
    for (size_t i = 0; i < bodies.v.size(); ++i) {
      const Node bn = bodies.at(i);
      const std::string body = get_name(bn);
      for (size_t b = 0; b < m.mechanism.bodies.size(); ++b)
        if (m.mechanism.bodies[b].name == body) rigid.push_back(static_cast<int>(b));
      if (rigid.size() != i + 1 && find_body(m, body) < 0) {
        std::vector<std::string> known;
        for (const Body& b : m.bodies) known.push_back(b.name);
        for (const RigidBody& b : m.mechanism.bodies) known.push_back(b.name);
        bn.fail("unknown body '" + body + "' (" + suggestion(body, known) + "cables, beams and rigid bodies: " +
                join_some(known) + ")");
      }
      if (!rigid.empty() && rigid.size() != i + 1)
        bn.fail("a contact's bodies are all rigid bodies or all cables and beams ('" + body + "' and '" +
                get_name(bodies.at(0)) + "' are not alike): give each kind its own contact");
    }
    const std::string type = get_choice(n.required("type"), {"plane", "cylinder", "grid", "shape"}, "contact type");
    if (!rigid.empty()) {
      if (type != "plane")
        n.child("type").fail("rigid bodies' shapes touch planes (cylinders, height grids and shapes are for cables "
                             "and beams)");
      read_rigid_plane_contact(n, name, rigid, m);
      return;
    }
    if (type == "shape") {
      read_cable_shape_contact(n, name, m);
      return;
    }
    std::vector<double> heights;
    const ContactSurface surface = read_surface(n, m.dimension, heights);
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
    add_contact_surface(m, name, surface, touching, heights);
  });
  // The impact model's velocity jump solves with the bodies' mass matrix alone (contact_events.hpp).
  if (m.mechanism.contacts.any_impact() && (!m.mechanism.attachments.empty() || !m.mechanism.cable_contacts.empty()))
    model.fail("the classical impact model (a contact law of type \"impact\") needs a mechanism without cable "
               "attachments or cables touching its shapes: give the contacts a continuous law (hunt_crossley, "
               "lankarani_nikravesh, ...)");
}

}  // namespace catenary
