#pragma once
// What a frame reports of each contact surface (contacts.csv): how many of the touching elements'
// quadrature points are in contact, the resultant normal and friction forces, and the deepest
// penetration, from the same point law the element passes evaluate (elements/surface_contact.hpp).
#include <vector>

#include <Eigen/Core>

#include "catenary/model/model.hpp"

namespace catenary {

struct ContactReport {
  int points = 0;                // quadrature points in contact
  double normal_force = 0.0;     // N: the sum of w F over them (on a curved surface, of magnitudes)
  double friction_force = 0.0;   // N: the magnitude of the summed friction forces
  double penetration = 0.0;      // m: the largest delta (0 where none)
};

// A rigid contact's (multibody/rigid_contact.hpp) over its points: how many touch, the summed
// normal force, the magnitude of the summed friction force, the deepest penetration, the smallest
// gap (negative: the penetration), the largest slip speed of a touching point, and its state:
// 0 free (no point touches), 1 stick (every touching point slips slower than the stiction
// velocity) or 2 slip (a number, so that `compare` compares it as the other columns; contacts.csv
// writes 3, impact, for a frame whose contact took an impulse since the frame before).
struct RigidContactReport {
  int points = 0;
  double normal_force = 0.0, friction_force = 0.0, penetration = 0.0, gap = 0.0, slip_velocity = 0.0;
  int state = 0;
};
std::vector<RigidContactReport> rigid_contact_reports(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

// A cable's contact with a rigid body's shapes (multibody/cable_shape_contact.hpp) over its
// elements' quadrature points, as a contact surface's: one report per contact.
std::vector<ContactReport> cable_shape_contact_reports(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

// Whether m has contacts of any kind (and so contacts.csv).
bool has_contacts(const Model& m);

// One report per contact surface of m at q and v (model-sized).
std::vector<ContactReport> contact_reports(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

// The contact force per unit length on element e's line at a point of its centreline r, slope a
// = r' and velocity v (D values each; the VTU frames' point data): zero where it does not touch.
Vec<3> contact_force_at(const Model& m, int e, const double* r, const double* a, const double* v);

}  // namespace catenary
