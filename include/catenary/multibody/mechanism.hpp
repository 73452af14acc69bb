#pragma once
// A rigid multibody system in Cartesian coordinates (ADAMS / DADS style): bodies with centre-of-
// mass position r and Euler parameters p (7 coordinates each, body b at 7 b), joints between
// markers, drivers on joint coordinates, attachments of cable nodes to body points, gravity.
//
// The mechanism's coordinate vector q: the bodies' 7 coordinates, then the 6 coordinates
// (r, r') of each attached cable node (attachment k at node_coordinate(k)), then those of the
// other nodes that cables' contacts with body shapes read (contact_nodes); without either it is
// the bodies' coordinates alone. Constraint rows in order: the joints, the drivers, the bodies'
// prescribed motions (six rows each), the attachments, then one normalization row p.p - 1 per
// body. The equations of motion are
//   M(q) q'' + Phi_q^T lambda = Q(q, q', t),   Phi(q, t) = 0,
// with M = diag(m I, 4 G^T J' G) and Q = (m g, 8 G'^T J' G' p) (rigid/euler_parameters.hpp) on
// the bodies' coordinates (the cable nodes' mass and forces belong to the cable elements).
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "catenary/core/time_function.hpp"
#include "catenary/multibody/body_motion.hpp"
#include "catenary/multibody/cable_shape_contact.hpp"
#include "catenary/multibody/force_elements.hpp"
#include "catenary/multibody/ground.hpp"
#include "catenary/multibody/rigid_contact.hpp"
#include "catenary/rigid/joints.hpp"

namespace catenary {

struct RigidBody {
  std::string name;
  double mass = 1.0;
  Mat<3, 3> inertia;  // about the centre of mass, body frame
  Vec<3> position;    // initial centre of mass
  Vec<4> orientation; // initial Euler parameters
  Vec<3> velocity, angular_velocity;  // initial, ground frame
  // Weight of this body in the assembly of inconsistent initial positions and velocities (its
  // share of the metric, times its mass matrix): a large weight keeps the given values.
  double assembly_weight = 1.0;
};

struct Joint {
  std::string name;
  rigid::JointType type = rigid::JointType::Revolute;
  int body_i = kGround, body_j = kGround;
  rigid::Marker marker_i, marker_j;
};

// A joint coordinate driven as f(t): the rotation about, or the displacement along, one axis of
// the joint's marker frame (axis 2, h, the joint axis, by default; 0 and 1 are f and g). The
// rotation about axis k is the angle of marker j's next axis from marker i's in the plane normal
// to marker i's axis k (revolute and cylindrical joints: their rotation; planar: the rotation in
// the plane); the displacement is along marker i's axis k (translational, cylindrical: the
// sliding; planar: the in-plane position along f or g).
struct Driver {
  std::string name;
  enum class Kind { Rotation, Translation } kind = Kind::Rotation;
  int joint = 0;  // index into Mechanism::joints
  TimeFunction motion;
  int axis = 2;   // marker frame axis: 0 f, 1 g, 2 h
};

// Rigid-flexible coupling: a cable node held at the body point s' (3 rows, r_node = r + A s');
// with align_slope also its slope kept parallel to the body axis a' (2 rows, r'_node . A b' =
// r'_node . A c' = 0 with b', c' completing a'), a clamp of the cable's end into the body.
struct Attachment {
  std::string name;
  int body = 0;
  int node = 0;  // the cable node (a Model node index)
  // Zero unless set (the body's centre; no axis): Vec is a plain array, which an attachment built
  // field by field would otherwise leave uninitialized.
  Vec<3> point = Vec<3>::zero();
  bool align_slope = false;
  Vec<3> axis = Vec<3>::zero();
  int row_count() const { return align_slope ? 5 : 3; }
};

struct Mechanism {
  std::vector<RigidBody> bodies;
  std::vector<Joint> joints;
  std::vector<Driver> drivers;
  std::vector<BodyMotion> motions;  // bodies moved along prescribed paths
  std::vector<Attachment> attachments;
  ForceElements forces;  // spring-damper-actuators and body loads
  RigidContacts contacts;  // shapes against planes, joints with clearance
  std::vector<CableShapeContact> cable_contacts;  // cables against bodies' shapes
  // The nodes cable_contacts touch that are not attached, ascending (settle_contact_nodes).
  std::vector<int> contact_nodes;

  bool empty() const { return bodies.empty(); }
  int body_coordinate_count() const { return 7 * static_cast<int>(bodies.size()); }
  // Node slots: the attached nodes, then contact_nodes.
  int node_slot_count() const { return static_cast<int>(attachments.size() + contact_nodes.size()); }
  // The bodies' coordinates plus the node slots' (the size of the mechanism's q).
  int coordinate_count() const { return body_coordinate_count() + 6 * node_slot_count(); }
  int node_coordinate(int slot) const { return body_coordinate_count() + 6 * slot; }
  int row_count() const;
  // First row of joint k, of driver k, of motion k, of attachment k, of body b's normalization.
  int joint_row(int k) const;
  int driver_row(int k) const;
  int motion_row(int k) const;
  int attachment_row(int k) const;
  int normalization_row(int b) const;
  Eigen::VectorXd initial_positions() const;
  Eigen::VectorXd initial_velocities() const;
  // Name of row r, e.g. "joint 'crank pin' row 2", for messages.
  std::string describe_row(int r) const;
};

// Sets contact_nodes from cable_contacts' spans and the attachments, and each span's node slots
// (finalize_model and the batches' merge call it).
void settle_contact_nodes(Mechanism& m);

// The 12 coordinates (or rates) of span s's element out of the mechanism's q: node a's r, r', then
// node b's.
void span_coordinates(const Mechanism& m, const CableShapeSpan& s, const double* q, double* e);

// Q += the generalized forces of the cables' contacts with body shapes at (q, q'); returns their
// contact energy.
double add_cable_shape_forces(const Mechanism& m, const double* q, const double* v, double* Q);

// Phi(q, t), its Jacobian, and the velocity and acceleration right-hand sides
// (Phi_q q' = nu, Phi_q q'' = gamma(q, q', t)).
struct ConstraintState {
  Eigen::VectorXd phi, nu, gamma;
  Eigen::SparseMatrix<double> jacobian;
};
ConstraintState evaluate_constraints(const Mechanism& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double t);
// Phi_q(q)^T mu from the same rows, without building the sparse Jacobian: MultibodyBlock's central
// differences need only this product, 2 x 7 x (colours) times per Newton matrix.
Eigen::VectorXd constraint_jacobian_transpose_product(const Mechanism& m, const Eigen::VectorXd& q,
                                                      const Eigen::VectorXd& v, double t, const Eigen::VectorXd& mu);

// M(q) and Q(q, q', t) = gravity + quadratic velocity forces + force elements + rigid contacts (zero on the
// attached nodes' coordinates); gravity is the model's (Model::gravity).
void mass_matrix(const Mechanism& m, const Eigen::VectorXd& q, Eigen::MatrixXd& M);
void generalized_forces(const Mechanism& m, const Vec<3>& gravity, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                        double t, Eigen::VectorXd& Q);
// A body's 7 x 7 block of M(q) (q: its 7 coordinates): its mass on the position, the Euler
// parameters' 4 x 4 (rigid::euler_mass_matrix); bodies do not couple in M.
Eigen::Matrix<double, 7, 7> body_mass_block(const RigidBody& body, const double* q);
// y += M(q) x over the bodies' coordinates (x, y of the mechanism's size).
void add_mass_product(const Mechanism& m, const double* q, const double* x, double* y);
// Q += the force elements' and the rigid contacts' generalized forces at (q, q', t); returns their
// potential energy (springs and the contact laws' elastic part). The cables' contacts with body
// shapes are add_cable_shape_forces'.
double add_applied_forces(const Mechanism& m, const double* q, const double* v, double t, double* Q);
// Q += 8 G'^T J' G' p of every body (the Euler parameters' quadratic velocity force).
void add_quadratic_velocity_forces(const Mechanism& m, const double* q, const double* v, double* Q);

// The reaction of a joint (or driver) on body j from its multipliers: force on j in the ground
// frame, and torque on j about the marker point of j (ground frame); the driver's generalized
// force along its coordinate is -lambda (a torque for rotation drivers, a force for translation).
struct JointReaction {
  Vec<3> force, torque;
};
JointReaction joint_reaction(const Mechanism& m, int joint, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda);
// What prescribed motion k does to its body from its multipliers at time t: the force (ground
// frame) and the torque about the centre of mass that move it along its path (what it takes
// beyond the body's other loads: m a - the rest of the forces, likewise for the moments).
JointReaction motion_reaction(const Mechanism& m, int motion, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda,
                              double t);
// What the attachments on `body` do to it from their multipliers: the force (ground frame) and the
// torque about its centre of mass with which the attached cables pull it (a platform's fairlead
// loads; with align_slope the couple of the slope rows too).
JointReaction attachment_loads(const Mechanism& m, int body, const Eigen::VectorXd& q, const Eigen::VectorXd& lambda);

}  // namespace catenary
