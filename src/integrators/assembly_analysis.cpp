// The assembly analysis: the consistent initial state alone, as one frame, with what it moved.
#include <algorithm>
#include <cmath>

#include <Eigen/Geometry>

#include "catenary/integrators/analyses.hpp"

namespace catenary {

namespace {

// Angle of the rotation from Euler parameters a to b (of conj(a) b), robust near zero.
double rotation_between(const Eigen::VectorXd& q, const Eigen::VectorXd& q0, int at) {
  const Eigen::Vector4d a = q0.segment<4>(at).normalized(), b = q.segment<4>(at).normalized();
  const Eigen::Vector3d av = a.tail<3>(), bv = b.tail<3>();
  const double scalar = a[0] * b[0] + av.dot(bv);
  const Eigen::Vector3d vector = a[0] * bv - b[0] * av - av.cross(bv);
  return 2.0 * std::atan2(vector.norm(), std::fabs(scalar));
}

// What the assembly moved: per rigid body its centre of mass and orientation, per cable its
// largest node displacement.
std::vector<MovedPart> moved_parts(const Model& m, const Eigen::VectorXd& q0, const Eigen::VectorXd& q) {
  std::vector<MovedPart> out;
  for (size_t b = 0; b < m.mechanism.bodies.size(); ++b) {
    const int at = m.rigid_offset() + 7 * static_cast<int>(b);
    MovedPart p;
    p.kind = "rigid_body";
    p.name = m.mechanism.bodies[b].name;
    p.translation = (q.segment<3>(at) - q0.segment<3>(at)).norm();
    p.rotation = rotation_between(q, q0, at + 3);
    out.push_back(p);
  }
  const int D = m.dimension, n = m.coordinates_per_node();
  for (const Body& body : m.bodies) {
    MovedPart p;
    p.kind = "cable";
    p.name = body.name;
    for (int k = body.first_node; k < body.first_node + body.node_count; ++k)
      p.translation = std::max(p.translation, (q.segment(k * n, D) - q0.segment(k * n, D)).norm());
    out.push_back(p);
  }
  return out;
}

}  // namespace

void run_assembly(System& sys, const FrameSink& sink, RunSummary& summary) {
  summary.analysis = "assembly";
  const Model& m = sys.model();
  const ConsistentState st = consistent_initial_state(sys, 0.0);
  emit_frame(sys, 0.0, 0.0, 0, st.q, st.v, st.lambda, sink);
  summary.moved = moved_parts(m, initial_coordinates(m), st.q);
  summary.constraint_violation = st.constraint_violation;
}

}  // namespace catenary
