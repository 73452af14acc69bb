#pragma once
// Contact of a cable's centreline tube (radius R) with the shapes of a rigid body: a sheave or a
// drum turning on its axle, a hook, a hull, a crane's boom tip. The law is that of a cable on a
// fixed surface (elements/surface_contact.hpp), per unit reference length at each element's five
// quadrature points, with the surface moving with the body:
//   penetration   delta = R - d(r), d the signed distance of the centreline point r from the
//                 shape and n the shape's outward normal there (multibody/shape_distance.hpp);
//   rate, slip    of r relative to the body's material point at r (a turning sheave carries the
//                 rope along: friction acts on the slip alone; a rope that does not slip on a
//                 sheave runs at the speed of its centreline's radius, the pitch radius);
//   forces        the cable takes -(w fp) at r, fp the point law's force per length (normal and
//                 regularized Coulomb friction with axial and lateral coefficients); the body
//                 takes +(w fp) at its material point at r, so that the pair's power is -w fp .
//                 slip: friction dissipates, the normal law's elastic part stores, nothing else.
// The elements' and the body's coordinates couple, so these terms are evaluated on the host with
// the rest of the mechanism (assembly/multibody_block.hpp), whichever backend runs the elements;
// the touched nodes join the mechanism's coordinates as attached nodes do, and the body enters
// the solvers' border as a body attached to several nodes does.
#include <string>
#include <vector>

#include "catenary/elements/contact_law.hpp"
#include "catenary/elements/hermite_shape.hpp"
#include "catenary/multibody/rigid_contact.hpp"

namespace catenary {

// One element of a touching cable: its nodes (model node indices) and their slots among the
// mechanism's node coordinates (settle_contact_nodes), its length and its quadrature points'
// reference arc-length weights.
struct CableShapeSpan {
  int element = 0, node_a = 0, node_b = 0;
  int slot_a = -1, slot_b = -1;
  double length = 0.0;
  double weight[GaussRule5::kPoints] = {};
};

// The cables' elements that may touch the shapes of one rigid body.
struct CableShapeContact {
  std::string name;
  int body = 0;
  std::vector<int> shapes;  // indices into RigidContacts::shapes, all on `body`
  double radius = 0.0;      // the cables' tube radius R (m)
  ContactLaw law;           // per unit length, as a cable's contact with a fixed surface
  double friction_axial = 0.0, friction_lateral = 0.0;  // mu_a, mu_l
  double slip_velocity = 1.0;                           // u_s (m/s), where friction is regularized
  std::vector<CableShapeSpan> spans;
  bool reads_velocity() const { return law.damping > 0.0 || friction_axial > 0.0 || friction_lateral > 0.0; }
};

// What one span's contact does at (q, q'): the generalized forces on the element's 12 coordinates
// (-w S_k fp summed over the points, the opposite of the rows the element pass adds for a fixed
// surface) and on the body's 7 (Euler-parameter form), the contact energy, and the figures
// contacts.csv reports (points in contact, their summed normal force, the deepest penetration).
struct SpanContact {
  double element_force[12] = {};
  double body_force[7] = {};
  double energy = 0.0;
  int points = 0;
  double normal_force = 0.0, penetration = 0.0;
  Vec<3> friction = Vec<3>::zero();  // on the cable
};

// The contact of span s of contact c: e and edot the element's 12 coordinates and rates (node a's
// r, r', node b's r, r'), body_q and body_v the body's 7.
SpanContact span_contact(const RigidContacts& rc, const CableShapeContact& c, const CableShapeSpan& s,
                         const double* e, const double* edot, const double* body_q, const double* body_v);

}  // namespace catenary
