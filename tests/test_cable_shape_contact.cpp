// Cables touching rigid bodies' shapes: the shapes' signed distances against their geometry, the
// Atwood machine with a massive sheave against its closed form (the rope turns the sheave without
// slipping), a ball dropped on a pinned cable against the conservation of energy, and the case
// reader's shape contacts.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "cable_shape_models.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_merge.hpp"
#include "catenary/multibody/shape_distance.hpp"
#include "test_helpers.hpp"

using namespace catenary;

namespace {

RigidShape shape_of(ShapeKind kind, double radius, double length, const Vec<3>& size = Vec<3>::zero()) {
  RigidShape s;
  s.kind = kind;
  s.radius = radius;
  s.length = length;
  s.size = size;
  s.frame.s = vec3(1.0, 2.0, 3.0);
  s.frame.f = vec3(0, 1, 0);
  s.frame.g = vec3(0, 0, 1);
  s.frame.h = vec3(1, 0, 0);  // the axis along x
  return s;
}

void check_distance(const RigidShape& s, const Vec<3>& offset, double distance, const Vec<3>& normal) {
  const ShapeDistance d = shape_distance(s, vec_add(s.frame.s, offset));
  INFO("offset " << offset[0] << ", " << offset[1] << ", " << offset[2]);
  CHECK(d.distance == Approx(distance).margin(1e-14));
  for (int i = 0; i < 3; ++i) CHECK(d.normal[i] == Approx(normal[i]).margin(1e-14));
}

}  // namespace

TEST_CASE("shapes' signed distances: sphere, capsule, cylinder and box, outside and inside",
          "[contact][rigid-contact]") {
  const RigidShape sphere = shape_of(ShapeKind::sphere, 0.5, 0.0);
  check_distance(sphere, vec3(0, 3, 4), 4.5, vec3(0, 0.6, 0.8));
  check_distance(sphere, vec3(0, 0, -0.2), -0.3, vec3(0, 0, -1));
  // The capsule's axis runs along x from -1 to 1: beyond an end, the distance from that end's centre.
  const RigidShape capsule = shape_of(ShapeKind::capsule, 0.5, 2.0);
  check_distance(capsule, vec3(0.7, 0, 2), 1.5, vec3(0, 0, 1));
  check_distance(capsule, vec3(4, 4, 0), 4.5, vec3(0.6, 0.8, 0));
  // The cylinder (radius 0.5, from x = -1 to 1): side, end face, rim, and inside nearest the side
  // or the face.
  const RigidShape cylinder = shape_of(ShapeKind::cylinder, 0.5, 2.0);
  check_distance(cylinder, vec3(0.3, 0, 1.5), 1.0, vec3(0, 0, 1));
  check_distance(cylinder, vec3(-1.5, 0.2, 0), 0.5, vec3(-1, 0, 0));
  check_distance(cylinder, vec3(1.3, 0, -0.9), 0.5, vec3(0.6, 0, -0.8));
  check_distance(cylinder, vec3(0.0, 0.4, 0), -0.1, vec3(0, 1, 0));
  check_distance(cylinder, vec3(0.95, 0.1, 0), -0.05, vec3(1, 0, 0));
  // The box (edges 2, 1, 0.5 along its f = y, g = z, h = x): face, edge, corner, inside.
  const RigidShape box = shape_of(ShapeKind::box, 0.0, 0.0, vec3(2.0, 1.0, 0.5));
  check_distance(box, vec3(0, 0, 1.5), 1.0, vec3(0, 0, 1));
  check_distance(box, vec3(0, 1.3, 0.9), 0.5, vec3(0, 0.6, 0.8));
  check_distance(box, vec3(0.25 + 0.2, 1.0 + 0.2, 0.5 + 0.1), 0.3, vec3(2.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0));
  check_distance(box, vec3(0.2, 0.1, 0.0), -0.05, vec3(1, 0, 0));
}

TEST_CASE("the Atwood machine with a massive sheave: the rope turns it without slipping, as the closed form",
          "[contact][rigid-contact][dynamics]") {
  // Masses m1 < m2 on the rope's ends, the rope of mass lambda L, the sheave of inertia J about its
  // axle: with the rope inextensible and not slipping, the right leg's lengthening x obeys
  //   (m1 + m2 + lambda L + J / Rw^2) x'' = (m2 - m1) g + 2 lambda g x,
  // (the legs' own weight shifts as they change length), so from rest
  //   x(t) = (A / B) (cosh(sqrt(B) t) - 1),  A = (m2 - m1) g / M,  B = 2 lambda g / M,
  // and the sheave turns by x / Rw (Rw: the rope centreline's radius, the pitch radius).
  const double m1 = 1.0, m2 = 1.5, g = 9.81, T = 0.3;
  const Model m = testing::atwood_sheave(m1, m2, 1.0);
  const testing::RunResult r = testing::run_model(m, testing::dynamic_settings(1e-3, T, -0.3), 0.1);
  const double Rw = testing::AtwoodSheave::pitch_radius(), lambda = testing::AtwoodSheave::kRopeMass;
  const double M = m1 + m2 + lambda * testing::AtwoodSheave::rope_length() + testing::AtwoodSheave::inertia() / (Rw * Rw);
  const double A = (m2 - m1) * g / M, B = 2.0 * lambda * g / M;
  const double travel = A / B * (std::cosh(std::sqrt(B) * T) - 1.0);
  for (const testing::StoredFrame& f : r.frames) {
    if (f.time == 0.0) continue;
    const double x = A / B * (std::cosh(std::sqrt(B) * f.time) - 1.0);
    // Half the difference of the ends' rises: the rope's travel, without the sag both legs share
    // as the rope sinks into the tread and stretches.
    const int last = m.node_count - 1;
    const double rise = 0.5 * ((f.q[2] - m.initial_positions[2]) - (f.q[6 * last + 2] - m.initial_positions[6 * last + 2]));
    const double* p = f.q.data() + m.rigid_offset() + 3;
    const double turn = 2.0 * std::atan2(p[2], p[0]);
    std::printf("Atwood sheave t = %.1f s: rope travel %.6f m (closed form %.6f), sheave turn x Rw %.6f m\n", f.time,
                rise, x, turn * Rw);
    INFO("t = " << f.time);
    CHECK(rise == Approx(x).epsilon(3e-3));
    // The regularized friction creeps (the rope slips below the slip velocity): less than 0.2 % of
    // the whole travel.
    CHECK(std::fabs(turn * Rw - rise) < 2e-3 * travel);
  }
}

TEST_CASE("a ball dropped on a pinned cable: contact without damping or friction conserves energy",
          "[contact][rigid-contact][dynamics]") {
  // Trapezoidal rule (HHT alpha = 0): the ball falls 0.1 m, lands on the cable, sinks it and is
  // thrown back up; the total energy (kinetic, strain, contact, gravity) stays at its start.
  const Model m = testing::ball_on_cable(0.1);
  const testing::RunResult r = testing::run_model(m, testing::dynamic_settings(2e-4, 0.4, 0.0));
  const double drift = testing::energy_drift(r);
  double deepest = 0.0;
  for (const testing::StoredFrame& f : r.frames) deepest = std::min(deepest, testing::node_coordinate(m, f.q, 20, 2));
  std::printf("ball on a pinned cable: the cable's middle sinks to %.4f m, energy drift %.2e of the energy released\n",
              deepest, drift);
  CHECK(deepest < -0.05);  // the ball did land on the cable
  CHECK(drift < 2e-3);
}

TEST_CASE("sheave_hoist.json: the load rises as far as the winch hauls and the sheave turns with the rope",
          "[contact][rigid-contact][cases]") {
  // The winch hauls its leg down 0.5 m; the rope, held on the tread by friction (mu = 0.3, far
  // above the slip the legs' tensions ask for), turns the sheave by 0.5 m / Rw and lifts the load
  // 0.5 m, less the rope's stretch and sinking into the tread (< 1e-4 m). The rope runs over the
  // top from the load's side (+x) to the winch's (-x): a turn about -y.
  const Case loaded = load_case(std::string(CATENARY_SOURCE_DIR) + "/cases/sheave_hoist.json");
  const Model& m = loaded.model;
  REQUIRE(m.mechanism.cable_contacts.size() == 1);
  const CableShapeContact& contact = m.mechanism.cable_contacts[0];
  CHECK(contact.shapes.size() == 3);
  CHECK(static_cast<int>(contact.spans.size()) == m.elements.size());
  const testing::RunResult r = testing::run_model(m, loaded.analysis);
  const Eigen::VectorXd& q = r.frames.back().q;
  const double* sheave = q.data() + m.rigid_offset();
  const double* load = sheave + 7;
  const double turn = 2.0 * std::atan2(sheave[5], sheave[3]);
  std::printf("sheave_hoist: the load rose %.5f m, the sheave turned %.5f rad about y (-0.5 m / Rw = %.5f rad)\n",
              load[2] + 1.5, turn, -0.5 / 0.51);
  CHECK(load[2] + 1.5 == Approx(0.5).margin(1e-3));
  CHECK(turn == Approx(-0.5 / 0.51).epsilon(5e-3));
}

TEST_CASE("a batch of two Atwood sheaves equals each run alone", "[contact][rigid-contact][sweep]") {
  // The batch renumbers the copies' bodies, shapes, elements and nodes, and gives the second
  // copy's touched nodes their slots after the first's: each copy must move as it does alone.
  const std::vector<Model> copies = {testing::atwood_sheave(1.0, 1.5, 1.0), testing::atwood_sheave(1.0, 2.0, 1.0)};
  std::vector<const Model*> pointers = {&copies[0], &copies[1]};
  std::vector<CopyRange> ranges;
  const Model batch = merge_models(pointers, ranges);
  REQUIRE(batch.mechanism.cable_contacts.size() == 2);
  CHECK(batch.mechanism.cable_contacts[1].shapes[0] == 1);
  const AnalysisSettings a = testing::dynamic_settings(1e-3, 0.1, -0.3);
  const Eigen::VectorXd together = testing::run_model(batch, a).frames.back().q;
  for (size_t k = 0; k < copies.size(); ++k) {
    const Eigen::VectorXd alone = testing::run_model(copies[k], a).frames.back().q;
    const Eigen::VectorXd mine = together(ranges[k].dofs);
    INFO("copy " << k);
    REQUIRE(mine.size() == alone.size());
    CHECK((mine - alone).cwiseAbs().maxCoeff() < 1e-8);
  }
}
