#include "mechanism_reader.hpp"

#include "rigid_contact_reader.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/model/constraint_check.hpp"
#include "catenary/model/model_operators.hpp"
#include "catenary/model/multibody_layout.hpp"
#include "catenary/multibody/mechanism_builders.hpp"
#include "catenary/rigid/euler_angles.hpp"
#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {

using namespace case_reading;

namespace {

class MechanismReader {
 public:
  explicit MechanismReader(MechanismPaths& element_paths) : element_paths_(element_paths) {}

  void read_mechanism(const Node& n, Model& m);

 private:
  std::map<std::string, std::string> rigid_paths_;  // rigid body name -> json path
  MechanismPaths& element_paths_;                   // joint/driver/spring/attachment/load name -> path

  static constexpr const char* kMechanismKeys[] = {"rigid_bodies", "joints", "drivers", "springs",
                                                   "rotational_springs", "body_loads", "attachments"};

  std::vector<std::string> rigid_names(const Model& m) const {
    std::vector<std::string> out;
    for (const RigidBody& b : m.mechanism.bodies) out.push_back(b.name);
    return out;
  }

  // A unique name for a joint, driver, spring, attachment or body load (they share the output
  // columns of joint_reactions.csv, so they share one namespace).
  std::string read_element_name(const Node& n, const std::string& what) {
    const Node nn = n.required("name");
    const std::string name = get_name(nn);
    const auto dup = element_paths_.find(name);
    if (dup != element_paths_.end())
      nn.fail(what + " name '" + name + "' is already used by " + dup->second +
              " (joints, drivers, springs, attachments and body loads share one set of names)");
    element_paths_[name] = n.path;
    return name;
  }

  // A 3-vector that must not be zero, e.g. an axis; returned as given (not normalized).
  Vec<3> get_direction(const Node& n) {
    const Vec<3> a = get_vector(n, 3);
    if (!(vec_norm(a) > 1e-12)) n.fail("must not be the zero vector (it gives a direction)");
    return a;
  }

  // A rigid body name or "ground"; returns its index or kGround.
  int read_rigid_reference(const Node& n, const Model& m) {
    const std::string name = get_name(n);
    if (name == "ground") return kGround;
    for (size_t b = 0; b < m.mechanism.bodies.size(); ++b)
      if (m.mechanism.bodies[b].name == name) return static_cast<int>(b);
    std::vector<std::string> known = rigid_names(m);
    std::string hint = suggestion(name, known);
    if (find_body(m, name) >= 0) hint = "'" + name + "' is a cable body; joints connect rigid bodies and the ground; ";
    known.push_back("ground");
    n.fail("unknown rigid body '" + name + "' (" + hint + "rigid bodies: " + join(known) + ")");
  }

  static rigid::BodyState initial_state(const Model& m, int body) {
    if (body == kGround) return rigid::ground_state();
    const RigidBody& b = m.mechanism.bodies[body];
    rigid::BodyState s = rigid::ground_state();
    s.r = b.position;
    s.p = b.orientation;
    return s;
  }

  // "313" (z-x-z) or "123" (x-y-z, Bryant): rigid/euler_angles.hpp.
  rigid::EulerConvention read_euler_convention(const Node& n) {
    return get_choice(n, {"313", "123"}, "Euler angle convention") == "313" ? rigid::EulerConvention::z_x_z
                                                                          : rigid::EulerConvention::x_y_z;
  }

  Vec<4> read_orientation(const Node& n) {
    if (!n.v.is_object())
      n.fail("must be an object with \"axis\" and \"angle\", \"rotation_matrix\", \"euler_parameters\" or "
             "\"euler_angles\" and \"convention\"" + n.got());
    const bool axis_angle = n.has("axis") || n.has("angle");
    const bool angles = n.has("euler_angles") || n.has("convention");
    const int forms = (axis_angle ? 1 : 0) + (angles ? 1 : 0) + (n.has("rotation_matrix") ? 1 : 0) +
                      (n.has("euler_parameters") ? 1 : 0);
    if (forms != 1)
      n.fail(std::string(forms == 0 ? "gives no orientation" : "gives the orientation in more than one form") +
             ": use exactly one of {\"axis\": [x, y, z], \"angle\": radians}, {\"rotation_matrix\": [[...], [...], [...]]}, "
             "{\"euler_parameters\": [e0, e1, e2, e3]} or {\"euler_angles\": [a, b, c], \"convention\": \"313\" or \"123\"}");
    if (axis_angle) {
      expect_object(n, {"axis", "angle"});
      const Vec<3> axis = get_direction(n.required("axis"));
      return rigid::from_axis_angle(axis, get_number(n.required("angle")));
    }
    if (angles) {
      expect_object(n, {"euler_angles", "convention"});
      const Node an = n.required("euler_angles");
      if (!an.v.is_array() || an.v.size() != 3)
        an.fail("must be an array of 3 numbers (a, b, c in radians)" +
                (an.v.is_array() ? " (got " + std::to_string(an.v.size()) + " numbers)" : an.got()));
      return rigid::from_euler_angles(vec3(get_number(an.at(0)), get_number(an.at(1)), get_number(an.at(2))),
                                      read_euler_convention(n.required("convention")));
    }
    if (n.has("euler_parameters")) {
      expect_object(n, {"euler_parameters"});
      const Node en = n.child("euler_parameters");
      if (!en.v.is_array() || en.v.size() != 4)
        en.fail("must be an array of 4 numbers (e0, e1, e2, e3)" +
                (en.v.is_array() ? " (got " + std::to_string(en.v.size()) + " numbers)" : en.got()));
      Vec<4> p;
      for (int k = 0; k < 4; ++k) p[k] = get_number(en.at(k));
      const double norm_p = vec_norm(p);
      if (!(norm_p > 1e-12))
        en.fail("the Euler parameters have zero norm and describe no rotation (the identity is [1, 0, 0, 0])");
      return rigid::normalized(p);
    }
    expect_object(n, {"rotation_matrix"});
    const Node rn = n.child("rotation_matrix");
    const std::string rule = "must be a 3x3 rotation matrix given as an array of 3 rows of 3 numbers";
    if (!rn.v.is_array() || rn.v.size() != 3) rn.fail(rule + rn.got());
    const Mat<3, 3> a = get_matrix_rows(rn, rule);
    double off = 0.0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double s = 0.0;
        for (int k = 0; k < 3; ++k) s += a(k, i) * a(k, j);
        off = std::max(off, std::fabs(s - (i == j ? 1.0 : 0.0)));
      }
    if (off > 1e-6)
      rn.fail("is not orthonormal (largest entry of A^T A - I is " + format_number(off) +
              "; the columns are the body axes in the ground frame and must be unit and perpendicular)");
    const double det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
                       a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
    if (det < 0.0) rn.fail("is a reflection (determinant -1), not a rotation: the body axes must form a right-handed triad");
    return rigid::from_rotation_matrix(a);
  }

  Mat<3, 3> read_inertia(const Node& n) {
    const std::string rule = "must be 3 principal moments [Ixx, Iyy, Izz] or a symmetric 3x3 matrix (3 rows of 3 numbers), "
                             "about the centre of mass in the body frame";
    if (!n.v.is_array() || (n.v.size() != 3)) n.fail(rule + n.got());
    Mat<3, 3> J = Mat<3, 3>::zero();
    if (n.v[0].is_array()) {
      J = get_matrix_rows(n, rule);
      for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
          if (std::fabs(J(i, j) - J(j, i)) > 1e-12 * std::max({1.0, std::fabs(J(i, j)), std::fabs(J(j, i))}))
            n.at(j).at(i).fail("the inertia matrix is not symmetric (entry [" + std::to_string(j) + "][" +
                               std::to_string(i) + "] = " + format_number(J(j, i)) + ", entry [" + std::to_string(i) +
                               "][" + std::to_string(j) + "] = " + format_number(J(i, j)) + ")");
    } else {
      for (int i = 0; i < 3; ++i) J(i, i) = get_number(n.at(i));
    }
    Eigen::Matrix3d E;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) E(i, j) = J(i, j);
    const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(E).eigenvalues();
    if (!(ev[0] > 1e-12 * std::max(1.0, ev[2])) || !std::isfinite(ev[2]))
      n.fail("the inertia tensor must be positive definite (principal moments " + format_number(ev[0]) + ", " +
             format_number(ev[1]) + ", " + format_number(ev[2]) + ")");
    if (ev[0] + ev[1] < ev[2] * (1.0 - 1e-9))
      n.fail("the principal moments " + format_number(ev[0]) + ", " + format_number(ev[1]) + ", " + format_number(ev[2]) +
             " violate the triangle inequality (I1 + I2 >= I3) that every real body satisfies");
    return J;
  }

  void read_rigid_body(const Node& n, Model& m) {
    expect_object(n, {"name", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity",
                      "assembly_weight", "shapes", "motion"});
    const Node nn = n.required("name");
    RigidBody b;
    b.name = get_name(nn);
    if (b.name == "ground") nn.fail("'ground' is reserved for the fixed ground frame; choose another name");
    const auto dup = rigid_paths_.find(b.name);
    if (dup != rigid_paths_.end()) nn.fail("rigid body name '" + b.name + "' is already used by " + dup->second);
    if (find_body(m, b.name) >= 0)
      nn.fail("name '" + b.name + "' is already used by a cable body; rigid bodies and cables need different names");
    rigid_paths_[b.name] = n.path;
    b.mass = get_positive(n.required("mass"));
    b.inertia = read_inertia(n.required("inertia"));
    b.position = get_vector(n.required("position"), 3);
    b.orientation = n.has("orientation") ? read_orientation(n.child("orientation")) : vec4(1, 0, 0, 0);
    b.velocity = n.has("velocity") ? get_vector(n.child("velocity"), 3) : Vec<3>::zero();
    b.angular_velocity = n.has("angular_velocity") ? get_vector(n.child("angular_velocity"), 3) : Vec<3>::zero();
    if (n.has("assembly_weight")) b.assembly_weight = get_positive(n.child("assembly_weight"));
    m.mechanism.bodies.push_back(b);
    if (n.has("shapes")) read_rigid_shapes(n.child("shapes"), static_cast<int>(m.mechanism.bodies.size()) - 1, m);
    if (n.has("motion")) read_motion(n.child("motion"), m);
  }

  // The prescribed motion of the body just read: time functions of its centre of mass's
  // displacement x, y, z (m) and of its rotation roll, pitch, yaw (rad) about the ground axes, each
  // zero where not given; or "coupled": the six move as a coupling program says (at rest until it
  // does: run/coupled_run.hpp).
  void read_motion(const Node& n, Model& m) {
    static const char* const keys[] = {"x", "y", "z", "roll", "pitch", "yaw"};
    const RigidBody& b = m.mechanism.bodies.back();
    BodyMotion motion;
    motion.name = b.name;
    motion.body = static_cast<int>(m.mechanism.bodies.size()) - 1;
    motion.position = b.position;
    motion.orientation = b.orientation;
    if (n.v.is_string()) {
      if (n.v.get<std::string>() != "coupled")
        n.fail("must be an object of time functions (x, y, z, roll, pitch, yaw) or \"coupled\", got \"" +
               n.v.get<std::string>() + "\"");
      motion.coupled = true;
    } else {
      expect_object(n, {keys[0], keys[1], keys[2], keys[3], keys[4], keys[5]});
      if (n.v.empty()) n.fail("must prescribe at least one of x, y, z, roll, pitch, yaw");
    }
    for (int k = 0; k < 6; ++k) {
      TimeFunction& f = k < 3 ? motion.translation[k] : motion.rotation[k - 3];
      f = n.has(keys[k]) ? read_time_function(n.child(keys[k])) : TimeFunction::constant(0.0);
    }
    m.mechanism.motions.push_back(motion);
  }

  struct JointKind {
    const char* name;
    rigid::JointType type;
  };
  static const std::vector<JointKind>& joint_kinds() {
    static const std::vector<JointKind> kinds = {
        {"spherical", rigid::JointType::Spherical},       {"revolute", rigid::JointType::Revolute},
        {"cylindrical", rigid::JointType::Cylindrical},   {"translational", rigid::JointType::Translational},
        {"universal", rigid::JointType::Universal},       {"fixed", rigid::JointType::Fixed},
        {"planar", rigid::JointType::Planar},             {"point_on_line", rigid::JointType::PointOnLine},
        {"parallel_axes", rigid::JointType::ParallelAxes}, {"perpendicular_axes", rigid::JointType::PerpendicularAxes}};
    return kinds;
  }
  static std::string joint_type_name(rigid::JointType t) {
    for (const JointKind& k : joint_kinds())
      if (k.type == t) return k.name;
    return "?";
  }

  // The two bodies of a joint or spring-damper: body_i, body_j (names or "ground"), different.
  std::pair<int, int> read_body_pair(const Node& n, const Model& m, const std::string& what) {
    const int bi = read_rigid_reference(n.required("body_i"), m);
    const int bj = read_rigid_reference(n.required("body_j"), m);
    if (bi == bj)
      n.child("body_j").fail(bi == kGround ? what + " between the ground and the ground connects nothing"
                                           : what + " connects body '" + m.mechanism.bodies[bi].name + "' to itself");
    return {bi, bj};
  }

  // Triad (columns f, g, h) of a joint or rotational spring from "axis", or for universal and
  // perpendicular-axes joints from the cross axes "axis_i" (f) and "axis_j" (g), h = f x g.
  Mat<3, 3> read_joint_triad(const Node& n, bool cross_axes, bool axis_optional = false) {
    if (axis_optional && !n.has("axis")) return triad(vec3(1, 0, 0), vec3(0, 1, 0), vec3(0, 0, 1));
    if (!cross_axes) return triad_from_axis(get_direction(n.required("axis")));
    const Vec<3> f = get_direction(n.required("axis_i"));
    const Node gn = n.required("axis_j");
    const Vec<3> g = get_direction(gn);
    const Vec<3> fu = vec_scale(1.0 / vec_norm(f), f), gu = vec_scale(1.0 / vec_norm(g), g);
    const double c = fu[0] * gu[0] + fu[1] * gu[1] + fu[2] * gu[2];
    if (std::fabs(c) > 1e-9)
      gn.fail("must be perpendicular to axis_i (the angle between them is " +
              format_number(std::acos(std::max(-1.0, std::min(1.0, c))) * 180.0 / kPi) +
              " degrees; the two cross axes of the joint are perpendicular in its initial configuration)");
    return triad(fu, gu, cross3(fu, gu));
  }

  void read_joint(const Node& n, Model& m) {
    if (!n.v.is_object()) n.fail("must be an object" + n.got());
    std::vector<std::string> type_names;
    for (const JointKind& k : joint_kinds()) type_names.push_back(k.name);
    const std::string tname = get_choice(n.required("type"), type_names, "joint type");
    rigid::JointType type = rigid::JointType::Revolute;
    for (const JointKind& k : joint_kinds())
      if (tname == k.name) type = k.type;
    const bool cross = type == rigid::JointType::Universal || type == rigid::JointType::PerpendicularAxes;
    std::vector<std::string> keys = {"name", "type", "body_i", "body_j", "point", "point_i", "point_j"};
    const bool clearance = n.has("clearance");
    if (clearance && type != rigid::JointType::Revolute && type != rigid::JointType::Spherical)
      n.child("clearance").fail("only revolute and spherical joints take a clearance (this one is " + tname + ")");
    if (clearance) keys.push_back("clearance");
    if (cross)
      keys.insert(keys.end(), {"axis_i", "axis_j"});
    else
      keys.push_back("axis");
    expect_object(n, keys);
    const std::string name = read_element_name(n, "joint");
    const auto bodies = read_body_pair(n, m, "a joint");
    // A spherical joint has no axis; "axis" only orients the frame of its reaction output.
    const Mat<3, 3> frame = read_joint_triad(n, cross, type == rigid::JointType::Spherical);
    // One point for both markers, or (point_i, point_j): where the joint sits on each body.
    Vec<3> pi, pj;
    if (n.has("point")) {
      for (const char* k : {"point_i", "point_j"})
        if (n.has(k)) n.child(k).fail("give either \"point\" (one point for both bodies) or \"point_i\" and \"point_j\", not both");
      pi = pj = get_vector(n.child("point"), 3);
    } else if (n.has("point_i") || n.has("point_j")) {
      pi = get_vector(n.required("point_i"), 3);
      pj = get_vector(n.required("point_j"), 3);
    } else {
      n.required("point");
    }
    if (clearance) {
      // A joint with clearance: its bearing and journal start centred at the joint's point.
      if (n.has("point_i")) n.child("point_i").fail("a joint with clearance takes one \"point\", where the bearing and the journal are centred");
      read_clearance_joint(n.child("clearance"), name,
                           type == rigid::JointType::Revolute ? ClearanceJoint::Kind::revolute : ClearanceJoint::Kind::spherical,
                           bodies.first, bodies.second, pi, column3(frame, 2), m);
      return;
    }
    Joint joint;
    joint.name = name;
    joint.type = type;
    joint.body_i = bodies.first;
    joint.body_j = bodies.second;
    joint.marker_i = rigid::marker_from_ground(initial_state(m, bodies.first), pi, frame);
    joint.marker_j = rigid::marker_from_ground(initial_state(m, bodies.second), pj, frame);
    m.mechanism.joints.push_back(joint);
  }

  struct FreeAxes {
    std::string rotations, translations;  // marker-frame axes among "fgh"
  };
  static FreeAxes free_axes(rigid::JointType t) {
    switch (t) {
      case rigid::JointType::Spherical: return {"fgh", ""};
      case rigid::JointType::Revolute: return {"h", ""};
      case rigid::JointType::Cylindrical: return {"h", "h"};
      case rigid::JointType::Translational: return {"", "h"};
      case rigid::JointType::Universal: return {"fg", ""};
      case rigid::JointType::Fixed: return {"", ""};
      case rigid::JointType::Planar: return {"h", "fg"};
      case rigid::JointType::PointOnLine: return {"fgh", "h"};
      case rigid::JointType::ParallelAxes: return {"h", "fgh"};
      case rigid::JointType::PerpendicularAxes: return {"fg", "fgh"};
    }
    return {"", ""};
  }

  void read_driver(const Node& n, Model& m) {
    expect_object(n, {"name", "joint", "rotation", "translation", "axis"});
    Driver d;
    d.name = read_element_name(n, "driver");
    const Node jn = n.required("joint");
    const std::string joint = get_name(jn);
    d.joint = -1;
    for (size_t k = 0; k < m.mechanism.joints.size(); ++k)
      if (m.mechanism.joints[k].name == joint) d.joint = static_cast<int>(k);
    for (const ClearanceJoint& c : m.mechanism.contacts.clearance_joints)
      if (c.name == joint) jn.fail("joint '" + joint + "' has clearance: it holds no joint coordinate to drive");
    if (d.joint < 0) {
      std::vector<std::string> known;
      for (const Joint& j : m.mechanism.joints) known.push_back(j.name);
      jn.fail("unknown joint '" + joint + "' (" + suggestion(joint, known) + "joints: " +
              (known.empty() ? std::string("none") : join(known)) + ")");
    }
    if (n.has("rotation") == n.has("translation"))
      n.fail(std::string(n.has("rotation") ? "gives both" : "gives neither") +
             " \"rotation\" and \"translation\": a driver prescribes exactly one joint coordinate");
    const bool rotation = n.has("rotation");
    const Node fn = n.child(rotation ? "rotation" : "translation");
    const rigid::JointType t = m.mechanism.joints[d.joint].type;
    // The joint coordinates each joint type leaves free, as marker-frame axes f, g, h.
    const FreeAxes free = free_axes(t);
    const std::string& axes = rotation ? free.rotations : free.translations;
    if (n.has("axis")) {
      const Node an = n.child("axis");
      d.axis = static_cast<int>(std::string("fgh").find(get_choice(an, {"f", "g", "h"}, "joint frame axis")));
      if (axes.find("fgh"[d.axis]) == std::string::npos)
        an.fail(std::string("a ") + joint_type_name(t) + " joint leaves no " + (rotation ? "rotation about " : "translation along ") +
                "its " + "fgh"[d.axis] + " axis free" +
                (axes.empty() ? std::string() : " (free " + std::string(rotation ? "rotation" : "translation") + " axes: " + axes + ")"));
    } else if (axes.find('h') == std::string::npos) {
      fn.fail(std::string("a ") + (rotation ? "rotation" : "translation") + " driver needs a joint that leaves " +
              (rotation ? "a rotation" : "a translation") + " about its axis h free; joint '" + joint + "' is " +
              joint_type_name(t) +
              (axes.empty() ? (rotation ? " (drive it with \"translation\")" : " (drive it with \"rotation\")")
                            : " (give \"axis\": one of " + axes + ")"));
    }
    d.kind = rotation ? Driver::Kind::Rotation : Driver::Kind::Translation;
    d.motion = read_time_function(fn);
    m.mechanism.drivers.push_back(d);
  }

  // Body-frame point of a ground-frame point at t = 0 (ground: the point itself).
  static Vec<3> body_point(const Model& m, int body, const Vec<3>& ground_point) {
    const rigid::BodyState s = initial_state(m, body);
    return rigid::rotate_back(s.p, vec_sub(ground_point, s.r));
  }

  // What translational and rotational spring-dampers share: name, bodies, stiffness, damping
  // (unless the element has another law: linear = false), actuator.
  template <class Element>
  void read_spring_damper(const Node& n, const Model& m, Element& e, const std::string& what, bool linear = true) {
    e.name = read_element_name(n, what);
    const auto bodies = read_body_pair(n, m, "a " + what);
    e.body_i = bodies.first;
    e.body_j = bodies.second;
    if (linear) {
      e.stiffness = get_non_negative(n.required("stiffness"));
      e.damping = n.has("damping") ? get_non_negative(n.child("damping")) : 0.0;
    }
    if (n.has("actuator")) {
      e.has_actuator = true;
      e.actuator = read_time_function(n.child("actuator"));
    }
  }

  // ADAMS's IMPACT law of a spring (multibody/impact_law.hpp): k, e, cmax, d.
  ImpactLaw read_impact_law(const Node& n) {
    expect_object(n, {"stiffness", "exponent", "max_damping", "penetration"});
    ImpactLaw law;
    law.stiffness = get_positive(n.required("stiffness"));
    const Node en = n.required("exponent");
    law.exponent = get_number(en);
    if (!(law.exponent >= 1.0))
      en.fail("must be at least 1 (got " + format_number(law.exponent) + "): below 1 the force's slope is infinite at contact");
    law.max_damping = get_non_negative(n.required("max_damping"));
    law.penetration = get_positive(n.required("penetration"));
    return law;
  }

  void read_spring(const Node& n, Model& m) {
    expect_object(n, {"name", "body_i", "body_j", "point_i", "point_j", "stiffness", "damping", "free_length", "impact",
                      "actuator"});
    Tsda s;
    s.has_impact = n.has("impact");
    if (s.has_impact)
      for (const char* key : {"stiffness", "damping"})
        if (n.has(key))
          n.child(key).fail("must not be given with \"impact\": the IMPACT law has its own stiffness and damping");
    read_spring_damper(n, m, s, "spring", !s.has_impact);
    if (s.has_impact) s.impact = read_impact_law(n.child("impact"));
    const Vec<3> pi = get_vector(n.required("point_i"), 3);
    const Node pjn = n.required("point_j");
    const Vec<3> pj = get_vector(pjn, 3);
    const double length = vec_norm(vec_sub(pj, pi));
    if (!(length > 1e-12)) pjn.fail("coincides with point_i: a spring between coincident points has no line of action");
    s.point_i = body_point(m, s.body_i, pi);
    s.point_j = body_point(m, s.body_j, pj);
    s.free_length = n.has("free_length") ? get_non_negative(n.child("free_length")) : length;
    m.mechanism.forces.tsda.push_back(s);
  }

  void read_rotational_spring(const Node& n, Model& m) {
    expect_object(n, {"name", "body_i", "body_j", "point", "axis", "stiffness", "damping", "free_angle", "actuator"});
    Rsda s;
    read_spring_damper(n, m, s, "rotational spring");
    const Vec<3> point = get_vector(n.required("point"), 3);
    const Mat<3, 3> frame = read_joint_triad(n, false);
    s.marker_i = rigid::marker_from_ground(initial_state(m, s.body_i), point, frame);
    s.marker_j = rigid::marker_from_ground(initial_state(m, s.body_j), point, frame);
    s.free_angle = n.has("free_angle") ? get_number(n.child("free_angle")) : 0.0;
    m.mechanism.forces.rsda.push_back(s);
  }

  void read_body_load(const Node& n, Model& m) {
    expect_object(n, {"name", "body", "force", "torque", "point", "frame", "function"});
    BodyLoad l;
    l.name = read_element_name(n, "body load");
    const Node bn = n.required("body");
    l.body = read_rigid_reference(bn, m);
    if (l.body == kGround) bn.fail("a load on the ground has no effect; name a rigid body");
    const std::string frame = get_choice(n.required("frame"), {"ground", "body"}, "load frame");
    l.body_frame = frame == "body";
    if (!n.has("force") && !n.has("torque")) n.fail("gives neither \"force\" nor \"torque\"");
    if (n.has("force")) l.force = get_vector(n.child("force"), 3);
    if (n.has("torque")) l.torque = get_vector(n.child("torque"), 3);
    l.point = n.has("point") ? body_point(m, l.body, get_vector(n.child("point"), 3)) : Vec<3>::zero();
    l.scale = n.has("function") ? read_time_function(n.child("function")) : TimeFunction::constant(1.0);
    m.mechanism.forces.loads.push_back(l);
  }

  void read_attachment(const Node& n, Model& m) {
    expect_object(n, {"name", "node", "rigid_body", "point", "align_slope"});
    Attachment a;
    a.name = read_element_name(n, "attachment");
    const Node nn = n.required("node");
    a.node = read_node_ref(nn, m).node;
    for (const Attachment& other : m.mechanism.attachments)
      if (other.node == a.node)
        nn.fail("this node is already attached by attachment '" + other.name + "' (a node can be attached once)");
    const Node bn = n.required("rigid_body");
    a.body = read_rigid_reference(bn, m);
    if (a.body == kGround)
      bn.fail("attach a node to the ground with a \"spherical\" or \"fix\" constraint in /model/constraints; "
              "attachments connect cable nodes to rigid bodies");
    const int stride = m.coordinates_per_node();
    const double* node = &m.initial_positions[a.node * stride];
    Vec<3> point = vec3(node[0], node[1], node[2]);
    if (n.has("point")) point = get_vector(n.child("point"), 3);
    a.point = body_point(m, a.body, point);
    a.align_slope = n.has("align_slope") && get_bool(n.child("align_slope"));
    if (a.align_slope) {
      const Vec<3> slope = vec3(node[3], node[4], node[5]);
      const rigid::BodyState s = initial_state(m, a.body);
      a.axis = rigid::rotate_back(s.p, vec_scale(1.0 / vec_norm(slope), slope));
    } else {
      a.axis = vec3(1, 0, 0);
    }
    m.mechanism.attachments.push_back(a);
  }
};

void MechanismReader::read_mechanism(const Node& n, Model& m) {
  bool any = false;
  for (const char* k : kMechanismKeys) any = any || n.has(k);
  if (!any) return;
  if (m.dimension != 3) {
    for (const char* k : kMechanismKeys)
      if (n.has(k))
        n.child(k).fail(std::string("rigid bodies, joints and their force elements need a 3D model, but /model/dimension is ") +
                        std::to_string(m.dimension) + " (set \"dimension\": 3 and use cable3d elements)");
  }
  read_list(n, "rigid_bodies", "rigid bodies", [&](const Node& x) { read_rigid_body(x, m); });
  read_list(n, "joints", "joints", [&](const Node& x) { read_joint(x, m); });
  read_list(n, "drivers", "drivers", [&](const Node& x) { read_driver(x, m); });
  read_list(n, "springs", "springs", [&](const Node& x) { read_spring(x, m); });
  read_list(n, "rotational_springs", "rotational springs", [&](const Node& x) { read_rotational_spring(x, m); });
  read_list(n, "body_loads", "body loads", [&](const Node& x) { read_body_load(x, m); });
  read_list(n, "attachments", "attachments", [&](const Node& x) { read_attachment(x, m); });
  if (!m.mechanism.bodies.empty()) return;
  for (const char* k : kMechanismKeys)
    if (n.has(k) && !n.child(k).v.empty())
      n.child(k).fail("needs rigid bodies, but /model/rigid_bodies is " +
                      std::string(n.has("rigid_bodies") ? "empty" : "missing"));
}

}  // namespace

void read_mechanism(const Node& model, Model& m, MechanismPaths& paths) { MechanismReader(paths).read_mechanism(model, m); }

void check_mechanism(const Model& m, const MechanismPaths& paths, const std::string& file) {
  if (m.mechanism.empty()) return;
  MultibodyLayout layout;
  try {
    layout = multibody_layout(m);
  } catch (const ModelError& e) {
    throw InputError(file, "/model/attachments", e.what());
  }
  const Eigen::VectorXd q = initial_coordinates(m);
  Eigen::VectorXd x(layout.dofs.size());
  for (size_t k = 0; k < layout.dofs.size(); ++k) x[k] = q[layout.dofs[k]];
  try {
    check_redundant_constraints(m.mechanism, x, 0.0, attached_node_rows(m, layout));
  } catch (const ModelError& e) {
    const std::string what = e.what();
    std::string path = "/model/joints";
    for (const auto& kv : paths)
      for (const char* kind : {"joint '", "driver '", "attachment '"})
        if (what.rfind(kind + kv.first + "'", 0) == 0) path = kv.second;
    for (const ConstraintGroup& g : m.constraint_groups)
      if (what.rfind("constraint '" + g.name + "'", 0) == 0) path = g.json_path;
    throw InputError(file, path, what);
  }
}

}  // namespace catenary
