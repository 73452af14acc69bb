// Contact of cables with rigid bodies' shapes (see include/catenary/multibody/cable_shape_contact.hpp).
#include "catenary/multibody/cable_shape_contact.hpp"

#include <algorithm>
#include <map>

#include "body_load.hpp"
#include "catenary/elements/surface_contact.hpp"
#include "catenary/multibody/mechanism.hpp"
#include "catenary/multibody/shape_distance.hpp"
#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {

SpanContact span_contact(const RigidContacts& rc, const CableShapeContact& c, const CableShapeSpan& s,
                         const double* e, const double* edot, const double* body_q, const double* body_v) {
  SpanContact out;
  const rigid::BodyState body = rigid::body_state(body_q, body_v);
  // The body frame by the rotation A(p) / |p|^2 (p is a unit vector up to the Newton iterates'
  // drift from the normalization row).
  const double scale = 1.0 / dot(body.p, body.p);
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), s.length);
    const Vec<3> r = detail::interpolate<3>(h.s, e), a = detail::interpolate<3>(h.sx, e);
    const Vec<3> local = vec_scale(scale, rigid::rotate_back(body.p, vec_sub(r, body.r)));
    // The shape the point is deepest in (a sheave's tread or its flange).
    detail::SurfacePoint<3> surface{};
    surface.delta = 0.0;
    for (int k : c.shapes) {
      const ShapeDistance d = shape_distance(rc.shapes[k], local);
      if (c.radius - d.distance > surface.delta) {
        surface.delta = c.radius - d.distance;
        surface.n = vec_scale(scale, rigid::rotate(body.p, d.normal));
      }
    }
    if (!(surface.delta > 0.0)) continue;
    surface.curved = false;
    const Vec<3> slip = vec_sub(detail::interpolate<3>(h.s, edot), material_velocity(body, r));
    detail::ContactPoint<3> point;
    if (!detail::contact_at<3>(c, surface, a, slip, false, point)) continue;
    const double w = s.weight[g];
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 3; ++i) out.element_force[3 * k + i] -= w * h.s[k] * point.force[i];
    add_body_load(0, body_q, r, vec_scale(w, point.force), Vec<3>::zero(), out.body_force);
    out.energy += w * point.energy;
    ++out.points;
    out.normal_force += w * point.normal_force;
    if (point.penetration > out.penetration) out.penetration = point.penetration;
    // fp = -F n + (friction on the element as an internal force): the friction on the cable is
    // -(fp + F n).
    for (int i = 0; i < 3; ++i) out.friction[i] -= w * (point.force[i] + point.normal_force * surface.n[i]);
  }
  return out;
}

void settle_contact_nodes(Mechanism& m) {
  std::map<int, int> slot;  // model node -> node slot
  for (size_t k = 0; k < m.attachments.size(); ++k) slot.emplace(m.attachments[k].node, static_cast<int>(k));
  m.contact_nodes.clear();
  for (const CableShapeContact& c : m.cable_contacts)
    for (const CableShapeSpan& s : c.spans)
      for (int node : {s.node_a, s.node_b})
        if (!slot.count(node)) m.contact_nodes.push_back(node);
  std::sort(m.contact_nodes.begin(), m.contact_nodes.end());
  m.contact_nodes.erase(std::unique(m.contact_nodes.begin(), m.contact_nodes.end()), m.contact_nodes.end());
  for (size_t k = 0; k < m.contact_nodes.size(); ++k)
    slot.emplace(m.contact_nodes[k], static_cast<int>(m.attachments.size() + k));
  for (CableShapeContact& c : m.cable_contacts)
    for (CableShapeSpan& s : c.spans) {
      s.slot_a = slot.at(s.node_a);
      s.slot_b = slot.at(s.node_b);
    }
}

void span_coordinates(const Mechanism& m, const CableShapeSpan& s, const double* q, double* e) {
  const double* a = q + m.node_coordinate(s.slot_a);
  const double* b = q + m.node_coordinate(s.slot_b);
  std::copy(a, a + 6, e);
  std::copy(b, b + 6, e + 6);
}

double add_cable_shape_forces(const Mechanism& m, const double* q, const double* v, double* Q) {
  double energy = 0.0;
  for (const CableShapeContact& c : m.cable_contacts)
    for (const CableShapeSpan& s : c.spans) {
      double e[12], edot[12];
      span_coordinates(m, s, q, e);
      span_coordinates(m, s, v, edot);
      const SpanContact out = span_contact(m.contacts, c, s, e, edot, q + 7 * c.body, v + 7 * c.body);
      if (out.points == 0) continue;
      for (int k = 0; k < 6; ++k) {
        Q[m.node_coordinate(s.slot_a) + k] += out.element_force[k];
        Q[m.node_coordinate(s.slot_b) + k] += out.element_force[6 + k];
      }
      for (int k = 0; k < 7; ++k) Q[7 * c.body + k] += out.body_force[k];
      energy += out.energy;
    }
  return energy;
}

}  // namespace catenary
