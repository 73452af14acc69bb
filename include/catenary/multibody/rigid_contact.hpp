#pragma once
// Contact of rigid bodies (the 7-coordinate (r, p) layout of multibody/mechanism.hpp): shapes on
// bodies against fixed planes, and joints with clearance (a pin in a hole, a ball in a socket),
// following the clearance-joint lecture of the references and ADAMS's contact forces.
//
// Every contact is a fixed number of contact points (a sphere one, a capsule or cylinder two, a
// box eight, a clearance joint one or two). At a point, with the outward unit normal n (pushing
// body j away from surface i) and the signed gap g (> 0 apart, < 0 penetrating, delta = -g):
//   normal force     F = w max(0, K delta^e + C delta^m delta')      (elements/contact_law.hpp;
//                    w the point's share of the contact: 1, or 1/2 at each end of a journal)
//   friction         -mu(|u|) F u / |u|, u the tangential slip velocity of j relative to i at the
//                    point; mu rises from 0 at rest to mu_s at the stiction velocity v_s and moves
//                    to mu_d at the transition velocity v_d, both along ADAMS's cubic STEP (a
//                    regularized Coulomb law: a body "sticks" by creeping slower than v_s)
//   rolling torque   -c_r F phi(R w_t) w_t / |w_t|, w_t the relative angular velocity in the
//                    tangent plane, R the rolling radius of the point (the shape's radius)
//   spinning torque  -c_s F phi(R w_n) n, w_n = n . (omega_j - omega_i)
// with phi(x) = STEP(|x|, 0, 0, v_s, 1) the same regularization; c_r and c_s are lengths (m), the
// lever arms of the resistance, and act only at points with a rolling radius (not a box's
// corners). Body i gets the opposite forces and torques at the same ground point.
//
// With a restitution coefficient (the classical impact model), a contact whose gap closes with an
// approach speed above its capture speed takes a velocity jump at the located instant instead
// (impact_velocity_jump); while the bodies stay together the continuous law carries the load.
#include <string>
#include <vector>

#include "catenary/elements/contact_law.hpp"
#include "catenary/multibody/ground.hpp"
#include "catenary/rigid/joints.hpp"

namespace catenary {

enum class ShapeKind { sphere, capsule, cylinder, box };

// A shape fixed in a body: its frame's origin frame.s (body frame) is the shape's centre, its h
// axis the capsule's or cylinder's axis (the box's edges run along f, g and h).
struct RigidShape {
  std::string name;
  int body = 0;
  ShapeKind kind = ShapeKind::sphere;
  rigid::Marker frame;
  double radius = 0.0;  // sphere, capsule, cylinder
  double length = 0.0;  // capsule: between its end spheres' centres; cylinder: between its end faces
  Vec<3> size = Vec<3>::zero();  // box: edge lengths along f, g, h
};

// The number of contact points a shape has against a plane.
int shape_point_count(const RigidShape& s);

struct RigidFriction {
  double static_coefficient = 0.0, dynamic_coefficient = 0.0;  // mu_s, mu_d
  double stiction_velocity = 1e-3, transition_velocity = 2e-3;  // v_s < v_d (m/s)
  double rolling = 0.0, spinning = 0.0;                          // c_r, c_s (m)
  bool any() const { return static_coefficient > 0.0 || dynamic_coefficient > 0.0 || rolling > 0.0 || spinning > 0.0; }
};

// What a rigid contact does at a point: its continuous law, friction and the impact model.
struct RigidContactLaw {
  ContactLaw law{1.0, 1.0, 0.0, 0.0};
  RigidFriction friction;
  double restitution = -1.0;     // e in [0, 1]: the classical impact model; < 0: none
  double capture_speed = 1e-3;   // m/s: slower closings are left to the continuous law
  bool impact() const { return restitution >= 0.0; }
};

// A shape against the fixed plane {x : n.(x - point) = 0}, n out of the solid.
struct PlaneContact {
  std::string name;
  int shape = 0;  // index into RigidContacts::shapes
  Vec<3> normal = Vec<3>::zero(), point = Vec<3>::zero();
  RigidContactLaw law;
};

// A joint with clearance: the bearing (hole, socket) in body i, the journal (pin, ball) in body j,
// centred at their markers' points. Revolute: the eccentricity is taken normal to marker i's h
// axis, at the journal's centre when length = 0, else at its two ends (s_j -+ length/2 h_j), each
// with half the law; spherical: the full eccentricity of the centres. The gap is
// (R_bearing - R_journal) - |e|, the normal e / |e| (the journal pushed back to the centre).
struct ClearanceJoint {
  enum class Kind { revolute, spherical };
  std::string name;
  Kind kind = Kind::revolute;
  int body_i = kGround, body_j = kGround;
  rigid::Marker marker_i, marker_j;
  double bearing_radius = 0.0, journal_radius = 0.0, length = 0.0;
  RigidContactLaw law;
  double clearance() const { return bearing_radius - journal_radius; }
  int point_count() const { return kind == Kind::revolute && length > 0.0 ? 2 : 1; }
};

struct RigidContacts {
  std::vector<RigidShape> shapes;
  std::vector<PlaneContact> planes;
  std::vector<ClearanceJoint> clearance_joints;
  bool empty() const { return planes.empty() && clearance_joints.empty(); }
  // Contacts in one numbering: the plane contacts, then the clearance joints.
  int count() const { return static_cast<int>(planes.size() + clearance_joints.size()); }
  const RigidContactLaw& law(int contact) const;
  const std::string& name(int contact) const;
  // Its bodies (i: the plane's side, kGround for a fixed plane; j: the shape's or the journal's).
  int body_i(int contact) const;
  int body_j(int contact) const;
  int point_count(int contact) const;
  bool any_impact() const;
};

// A contact point at (q, q'): where, which way, how far apart and how fast.
struct RigidContactPoint {
  Vec<3> point = Vec<3>::zero();   // ground frame, on j's surface
  Vec<3> normal = Vec<3>::zero();  // unit, pushing j away from i
  double gap = 0.0;                // > 0 apart, < 0 penetrating
  double gap_rate = 0.0;           // g'
  Vec<3> slip = Vec<3>::zero();    // tangential velocity of j relative to i at the point
  Vec<3> spin = Vec<3>::zero();    // omega_j - omega_i
  double rolling_radius = 0.0;
  double weight = 1.0;             // the point's share of the law
};

// The points of contact c at q, v (the mechanism's coordinate vectors, 7 per body first).
std::vector<RigidContactPoint> rigid_contact_points(const RigidContacts& rc, int contact, const double* q,
                                                    const double* v);

// The forces and torques of one point, in the ground frame, on body j (body i gets their opposite).
struct RigidContactForce {
  double normal = 0.0;                  // F (N), >= 0
  Vec<3> friction = Vec<3>::zero();     // tangential force on j
  Vec<3> torque = Vec<3>::zero();       // rolling and spinning torque on j
  double energy = 0.0;                  // the law's elastic potential at the point
};
RigidContactForce rigid_contact_force(const RigidContactLaw& law, const RigidContactPoint& p);

// Q += the generalized forces of every contact at (q, q'); returns their elastic potential.
double add_rigid_contact_forces(const RigidContacts& rc, const double* q, const double* v, double* Q);

}  // namespace catenary
