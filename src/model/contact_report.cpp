#include "catenary/model/contact_report.hpp"

#include <algorithm>
#include <cmath>

namespace catenary {

namespace {

template <int D>
void add_element_report(const Model& m, int e, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                        ContactReport& report, Vec<3>& friction) {
  const ElementBlock& el = m.elements;
  const ElementProperties& p = el.properties[e];
  const ContactSurface& c = el.contact_surfaces[static_cast<int>(p.contact)];
  double qe[4 * D], ve[4 * D];
  for (int i = 0; i < 4 * D; ++i) {
    qe[i] = q[element_global_dof(m, e, i)];
    ve[i] = v[element_global_dof(m, e, i)];
  }
  for (int g = 0; g < GaussRule5::kPoints; ++g) {
    const HermiteShape h = hermite_shape(GaussRule5::point(g), p.length);
    const Vec<D> r = detail::interpolate<D>(h.s, qe), a = detail::interpolate<D>(h.sx, qe);
    detail::ContactPoint<D> point;
    if (!detail::contact_point<D>(c, el.contact_heights.data(), r, a, detail::interpolate<D>(h.s, ve), false, point))
      continue;
    const double w = el.quadrature[e].bending_w[g];
    ++report.points;
    report.normal_force += w * point.normal_force;
    report.penetration = std::max(report.penetration, point.penetration);
    // The force on the line is -point.force; its part along the normal is the normal force.
    for (int i = 0; i < D; ++i) friction[i] += -w * (point.force[i] + point.normal_force * point.normal[i]);
  }
}

template <int D>
Vec<3> contact_force_of(const ContactSurface& c, const double* heights, const double* r, const double* a,
                        const double* v) {
  Vec<D> rd, ad, vd;
  for (int i = 0; i < D; ++i) rd[i] = r[i], ad[i] = a[i], vd[i] = v[i];
  detail::ContactPoint<D> point;
  Vec<3> force = Vec<3>::zero();
  if (detail::contact_point<D>(c, heights, rd, ad, vd, false, point))
    for (int i = 0; i < D; ++i) force[i] = -point.force[i];  // point.force is the element's internal force
  return force;
}

}  // namespace

Vec<3> contact_force_at(const Model& m, int e, const double* r, const double* a, const double* v) {
  const double contact = m.elements.properties[e].contact;
  if (!(contact >= 0.0)) return Vec<3>::zero();
  const ContactSurface& c = m.elements.contact_surfaces[static_cast<int>(contact)];
  const double* heights = m.elements.contact_heights.data();
  return m.dimension == 3 ? contact_force_of<3>(c, heights, r, a, v) : contact_force_of<2>(c, heights, r, a, v);
}

std::vector<ContactReport> contact_reports(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const ElementBlock& el = m.elements;
  std::vector<ContactReport> reports(el.contact_surfaces.size());
  std::vector<Vec<3>> friction(reports.size(), Vec<3>::zero());
  for (int e = 0; e < el.size(); ++e) {
    const double contact = el.properties[e].contact;
    if (!(contact >= 0.0)) continue;
    const int k = static_cast<int>(contact);
    if (m.dimension == 3)
      add_element_report<3>(m, e, q, v, reports[k], friction[k]);
    else
      add_element_report<2>(m, e, q, v, reports[k], friction[k]);
  }
  for (size_t k = 0; k < reports.size(); ++k) reports[k].friction_force = std::sqrt(dot(friction[k], friction[k]));
  return reports;
}

std::vector<RigidContactReport> rigid_contact_reports(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const RigidContacts& rc = m.mechanism.contacts;
  std::vector<RigidContactReport> out(rc.count());
  // Body b's coordinates are at rigid_offset() + 7 b, as the contacts read them.
  const double* qb = q.data() + m.rigid_offset();
  const double* vb = v.data() + m.rigid_offset();
  for (int c = 0; c < rc.count(); ++c) {
    RigidContactReport& r = out[c];
    Vec<3> friction = Vec<3>::zero();
    bool first = true;
    for (const RigidContactPoint& p : rigid_contact_points(rc, c, qb, vb)) {
      r.gap = first ? p.gap : std::min(r.gap, p.gap);
      first = false;
      const RigidContactForce F = rigid_contact_force(rc.law(c), p);
      if (!(p.gap < 0.0)) continue;
      ++r.points;
      r.normal_force += F.normal;
      friction = vec_add(friction, F.friction);
      r.penetration = std::max(r.penetration, -p.gap);
      r.slip_velocity = std::max(r.slip_velocity, vec_norm(p.slip));
    }
    r.friction_force = vec_norm(friction);
    if (r.points > 0) r.state = r.slip_velocity < rc.law(c).friction.stiction_velocity ? 1 : 2;
  }
  return out;
}

std::vector<ContactReport> cable_shape_contact_reports(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const Mechanism& mech = m.mechanism;
  std::vector<ContactReport> out(mech.cable_contacts.size());
  for (size_t k = 0; k < out.size(); ++k) {
    const CableShapeContact& c = mech.cable_contacts[k];
    const int body = m.rigid_offset() + 7 * c.body;
    Vec<3> friction = Vec<3>::zero();
    for (const CableShapeSpan& s : c.spans) {
      double e[12], edot[12];
      for (int i = 0; i < 12; ++i) {
        e[i] = q[element_global_dof(m, s.element, i)];
        edot[i] = v[element_global_dof(m, s.element, i)];
      }
      const SpanContact span = span_contact(mech.contacts, c, s, e, edot, q.data() + body, v.data() + body);
      out[k].points += span.points;
      out[k].normal_force += span.normal_force;
      out[k].penetration = std::max(out[k].penetration, span.penetration);
      friction = vec_add(friction, span.friction);
    }
    out[k].friction_force = vec_norm(friction);
  }
  return out;
}

bool has_contacts(const Model& m) {
  return !m.elements.contact_surfaces.empty() || !m.mechanism.contacts.empty() || !m.mechanism.cable_contacts.empty();
}

}  // namespace catenary
