#include "catenary/model/reference_models.hpp"

#include <cmath>
#include <string>

#include "catenary/model/builders.hpp"
#include "catenary/multibody/mechanism_builders.hpp"

namespace catenary {

namespace {

// The falling cable pendulum's cable, free: along x from the origin, gravity -9.81 z.
Model pendulum_cable(int elements) {
  Model m;
  m.dimension = 3;
  m.gravity[2] = -9.81;
  const double d = 0.02, A = M_PI * d * d / 4, I = M_PI * std::pow(d, 4) / 64, E = 2e9;
  add_straight_line(m, "cable", {0, 0, 0}, {0.1 * elements, 0, 0}, elements, {E * A, E * I, 7800 * A, 0.0});
  finalize_model(m);
  return m;
}

}  // namespace

Model falling_cable_pendulum(int elements) {
  Model m = pendulum_cable(elements);
  add_spherical_to_ground(m, 0, {0, 0, 0}, "pin", "/constraints/0");
  return m;
}

void hang_first_line_from_boom(Model& m, double mass, double length, double axial_inertia, const Vec<3>& pivot) {
  const double bar_inertia = mass * length * length / 12.0;  // a slender bar about its centre
  const Vec<3> half = vec3(0.5 * length, 0, 0);
  m.mechanism.bodies.push_back(rigid_body_at_rest("boom", mass, vec3(axial_inertia, bar_inertia, bar_inertia),
                                                  vec3(pivot[0] + half[0], pivot[1], pivot[2]),
                                                  vec4(1, 0, 0, 0)));
  const int boom = static_cast<int>(m.mechanism.bodies.size()) - 1;
  add_joint(m.mechanism, "boom pivot", rigid::JointType::Revolute, kGround, boom, pivot,
            triad_from_axis(vec3(0, 1, 0)));
  Attachment hook;
  hook.name = "hook";
  hook.body = boom;
  hook.node = body_node(m, 0, 0);
  hook.point = half;
  m.mechanism.attachments.push_back(hook);
  finalize_model(m);
}

Model crane_falling_cable(int elements) {
  Model m = pendulum_cable(elements);
  hang_first_line_from_boom(m, 500.0, 5.0, 1.0, vec3(-5, 0, 0));
  return m;
}

Model rancf_pendulum(double E) {
  Model m;
  m.dimension = 2;
  m.gravity[1] = -9.81;
  const double a = 0.02, A = a * a, I = a * a * a * a / 12;
  for (int b = 0; b < 5; ++b)
    add_straight_line(m, "beam" + std::to_string(b + 1), {5.0 * b, 0, 0}, {5.0 * (b + 1), 0, 0}, 5,
                      {E * A, E * I, 7800 * A, 0.0});
  finalize_model(m);
  add_spherical_to_ground(m, 0, {0, 0, 0}, "pin", "/constraints/0");
  for (int b = 0; b + 1 < 5; ++b)
    add_node_joint(m, body_node(m, b, -1), body_node(m, b + 1, 0), false, "revolute",
                   "joint" + std::to_string(b + 1), "/constraints/" + std::to_string(b + 1));
  return m;
}

}  // namespace catenary
