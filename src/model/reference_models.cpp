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
  return m;
}

}  // namespace

Model falling_cable_pendulum(int elements) {
  Model m = pendulum_cable(elements);
  add_spherical_to_ground(m, 0, {0, 0, 0}, "pin", "/constraints/0");
  return m;
}

Model crane_falling_cable(int elements) {
  Model m = pendulum_cable(elements);
  const double bar_inertia = 500.0 * 5.0 * 5.0 / 12.0;  // a slender 5 m bar
  m.mechanism.bodies.push_back(rigid_body_at_rest("boom", 500.0, rigid::vec3(1.0, bar_inertia, bar_inertia),
                                                  rigid::vec3(-2.5, 0, 0), rigid::vec4(1, 0, 0, 0)));
  add_joint(m.mechanism, "boom pivot", rigid::JointType::Revolute, kGround, 0, rigid::vec3(-5, 0, 0),
            triad_from_axis(rigid::vec3(0, 1, 0)));
  Attachment hook;
  hook.name = "hook";
  hook.body = 0;
  hook.node = body_node(m, 0, 0);
  hook.point = rigid::vec3(2.5, 0, 0);
  m.mechanism.attachments.push_back(hook);
  finalize_model(m);
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
  add_spherical_to_ground(m, 0, {0, 0, 0}, "pin", "/constraints/0");
  for (int b = 0; b + 1 < 5; ++b)
    add_node_joint(m, body_node(m, b, -1), body_node(m, b + 1, 0), false, "revolute",
                   "joint" + std::to_string(b + 1), "/constraints/" + std::to_string(b + 1));
  return m;
}

}  // namespace catenary
