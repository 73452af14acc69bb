// The rigid contact shapes' surfaces in the VTU frames (src/io/shape_mesh.hpp): checked against
// properties the tessellation must have whatever its layout (points on the exact surface, the
// faces' normals outward, the enclosed volume by the divergence theorem against the exact solid's
// and the inscribed polyhedron's), the poses and velocities from Eigen's quaternion, and a written
// VTU file read back.
#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "../src/io/shape_mesh.hpp"
#include "catenary/io/vtu_writer.hpp"
#include "catenary/model/model_operators.hpp"
#include "catenary/multibody/rigid_contact_builders.hpp"
#include "multibody_models.hpp"
#include "vtu_reading.hpp"

using catenary::testing::vtu_array;
using catenary::testing::vtu_attribute;

using namespace catenary;
namespace fs = std::filesystem;

namespace {

const double kPi = 3.14159265358979323846;

Eigen::Vector3d eig(const Vec<3>& a) { return Eigen::Vector3d(a[0], a[1], a[2]); }

// A body at r, turned by 0.9 rad about (1, 2, -1), moving at r' and turning at omega = (0.7, -1.3, 2.1).
struct Pose {
  rigid::BodyState state;
  Eigen::Matrix3d A;  // body frame to ground frame, from Eigen's quaternion
  Eigen::Vector3d omega;
};

Pose test_pose() {
  Pose pose;
  pose.state.r = vec3(0.4, -1.2, 2.5);
  pose.state.rd = vec3(-0.3, 0.8, 0.1);
  pose.state.p = rigid::from_axis_angle(vec3(1, 2, -1), 0.9);
  const Vec<3> omega = vec3(0.7, -1.3, 2.1);
  pose.state.pd = rigid::p_rate_from_angular_velocity(pose.state.p, omega);
  const Vec<4>& p = pose.state.p;
  pose.A = Eigen::Quaterniond(p[0], p[1], p[2], p[3]).normalized().toRotationMatrix();
  pose.omega = eig(omega);
  return pose;
}

// The shape's frame turned off the body's axes and its centre off the centre of mass.
RigidShape shape_of(ShapeKind kind) {
  RigidShape s;
  s.name = "s";
  s.kind = kind;
  s.frame = rigid::marker_from_axis(vec3(0.05, -0.02, 0.03), vec3(0.3, -0.5, 0.8));
  s.radius = 0.2;
  s.length = 0.5;
  s.size = vec3(0.3, 0.5, 0.7);
  return s;
}

std::vector<int> face_of(const SurfaceMesh& mesh, int k) {
  const int begin = k == 0 ? 0 : mesh.face_ends[k - 1];
  return std::vector<int>(mesh.connectivity.begin() + begin, mesh.connectivity.begin() + mesh.face_ends[k]);
}

// The enclosed volume by the divergence theorem: the signed volumes of the tetrahedra from the
// origin to each face's triangles (a quad fanned from its first point).
double enclosed_volume(const SurfaceMesh& mesh) {
  double volume = 0.0;
  for (int k = 0; k < mesh.face_count(); ++k) {
    const std::vector<int> f = face_of(mesh, k);
    for (size_t i = 1; i + 1 < f.size(); ++i)
      volume += eig(mesh.points[f[0]]).dot(eig(mesh.points[f[i]]).cross(eig(mesh.points[f[i + 1]]))) / 6.0;
  }
  return volume;
}

// Every face's points in one plane, its normal (Newell's) pointing outward: every point of the
// mesh on or behind the face's plane (the shapes are convex).
void check_convex_outward(const SurfaceMesh& mesh, double size) {
  for (int k = 0; k < mesh.face_count(); ++k) {
    const std::vector<int> f = face_of(mesh, k);
    REQUIRE((f.size() == 3 || f.size() == 4));
    Eigen::Vector3d n = Eigen::Vector3d::Zero();
    for (size_t i = 0; i < f.size(); ++i)
      n += eig(mesh.points[f[i]]).cross(eig(mesh.points[f[(i + 1) % f.size()]]));
    REQUIRE(n.norm() > 0.0);
    n.normalize();
    const Eigen::Vector3d a = eig(mesh.points[f[0]]);
    for (int i : f) CHECK(std::abs(n.dot(eig(mesh.points[i]) - a)) < 1e-12 * size);
    double farthest = -1.0;
    for (const Vec<3>& x : mesh.points) farthest = std::max(farthest, n.dot(eig(x) - a));
    CHECK(farthest < 1e-12 * size);
  }
}

// The velocities r' + omega x (x - r) of the rigid motion.
void check_velocities(const SurfaceMesh& mesh, const Pose& pose) {
  for (int k = 0; k < mesh.point_count(); ++k) {
    const Eigen::Vector3d expected =
        eig(pose.state.rd) + pose.omega.cross(eig(mesh.points[k]) - eig(pose.state.r));
    CHECK((eig(mesh.velocities[k]) - expected).norm() < 1e-13);
  }
}

// The shape's centre and axis h in the ground frame.
Eigen::Vector3d centre_of(const RigidShape& s, const Pose& pose) { return eig(pose.state.r) + pose.A * eig(s.frame.s); }
Eigen::Vector3d axis_of(const RigidShape& s, const Pose& pose) { return pose.A * eig(s.frame.h); }

// The volume of the polyhedron inscribed in the solid of revolution of the profile (rho, z) with
// `segments` points a ring: polygonal frustums, each (n/2) sin(2 pi/n) / pi times the circular one.
double inscribed_volume(const std::vector<std::pair<double, double>>& profile, int segments) {
  const double k = 0.5 * segments * std::sin(2.0 * kPi / segments);
  double v = 0.0;
  for (size_t i = 0; i + 1 < profile.size(); ++i) {
    const double a = profile[i].first, b = profile[i + 1].first;
    v += k * (profile[i].second - profile[i + 1].second) / 3.0 * (a * a + a * b + b * b);
  }
  return v;
}

std::vector<std::pair<double, double>> arc(double R, double c, int from, int to, int rings) {
  std::vector<std::pair<double, double>> out;
  for (int i = from; i <= to; ++i) out.emplace_back(R * std::sin(kPi * i / rings), c + R * std::cos(kPi * i / rings));
  return out;
}

SurfaceMesh mesh_of(const RigidShape& s, const Pose& pose, int segments = kShapeSegments, int rings = kShapeRings) {
  SurfaceMesh mesh;
  add_shape_surface(s, pose.state, mesh, segments, rings);
  return mesh;
}

}  // namespace

TEST_CASE("Shape mesh: a sphere's points on the sphere, its faces outward, its volume the inscribed one's",
          "[shape-mesh]") {
  const Pose pose = test_pose();
  const RigidShape s = shape_of(ShapeKind::sphere);
  const SurfaceMesh mesh = mesh_of(s, pose);
  CHECK(mesh.point_count() == 2 + (kShapeRings - 1) * kShapeSegments);
  CHECK(mesh.face_count() == kShapeRings * kShapeSegments);
  const Eigen::Vector3d c = centre_of(s, pose);
  for (const Vec<3>& x : mesh.points) CHECK((eig(x) - c).norm() == Approx(s.radius).epsilon(1e-14));
  check_convex_outward(mesh, s.radius);
  check_velocities(mesh, pose);

  // The inscribed polyhedron falls short of 4/3 pi R^3 by 6.3 % at 16 segments and 8 rings, and by
  // a quarter of that at twice the resolution (the chord error goes as the square of the step).
  const double R = s.radius, exact = 4.0 / 3.0 * kPi * R * R * R;
  const double volume = enclosed_volume(mesh);
  CHECK(volume > 0.0);
  CHECK(volume == Approx(inscribed_volume(arc(R, 0.0, 0, kShapeRings, kShapeRings), kShapeSegments)).epsilon(1e-12));
  const double error = 1.0 - volume / exact, finer = 1.0 - enclosed_volume(mesh_of(s, pose, 32, 16)) / exact;
  CHECK(error > 0.0);
  CHECK(error < 0.065);
  CHECK(error / finer == Approx(4.0).epsilon(0.05));
}

TEST_CASE("Shape mesh: a capsule's points at its radius from its axis segment, its volume", "[shape-mesh]") {
  const Pose pose = test_pose();
  const RigidShape s = shape_of(ShapeKind::capsule);
  const SurfaceMesh mesh = mesh_of(s, pose);
  CHECK(mesh.point_count() == 2 + kShapeRings * kShapeSegments);  // the equator twice
  CHECK(mesh.face_count() == (kShapeRings + 1) * kShapeSegments);
  const Eigen::Vector3d c = centre_of(s, pose), h = axis_of(s, pose);
  const double R = s.radius, L = s.length;
  for (const Vec<3>& x : mesh.points) {
    const double along = std::clamp(h.dot(eig(x) - c), -0.5 * L, 0.5 * L);
    CHECK((eig(x) - c - along * h).norm() == Approx(R).epsilon(1e-14));
  }
  check_convex_outward(mesh, R + L);
  check_velocities(mesh, pose);

  // 3.8 % short of pi R^2 L + 4/3 pi R^3 (L = 2.5 R: between the cylinder's 2.6 % and the sphere's
  // 6.3 %), a quarter of that at twice the resolution.
  const double exact = kPi * R * R * L + 4.0 / 3.0 * kPi * R * R * R;
  auto profile = arc(R, 0.5 * L, 0, kShapeRings / 2, kShapeRings);
  const auto lower = arc(R, -0.5 * L, kShapeRings / 2, kShapeRings, kShapeRings);
  profile.insert(profile.end(), lower.begin(), lower.end());
  const double volume = enclosed_volume(mesh);
  CHECK(volume == Approx(inscribed_volume(profile, kShapeSegments)).epsilon(1e-12));
  const double error = 1.0 - volume / exact, finer = 1.0 - enclosed_volume(mesh_of(s, pose, 32, 16)) / exact;
  CHECK(error > 0.0);
  CHECK(error < 0.04);
  CHECK(error / finer == Approx(4.0).epsilon(0.05));
}

TEST_CASE("Shape mesh: a cylinder's points on its end circles and axis, its volume", "[shape-mesh]") {
  const Pose pose = test_pose();
  const RigidShape s = shape_of(ShapeKind::cylinder);
  const SurfaceMesh mesh = mesh_of(s, pose);
  CHECK(mesh.point_count() == 2 + 2 * kShapeSegments);
  CHECK(mesh.face_count() == 3 * kShapeSegments);
  const Eigen::Vector3d c = centre_of(s, pose), h = axis_of(s, pose);
  const double R = s.radius, L = s.length;
  int on_axis = 0;
  for (const Vec<3>& x : mesh.points) {
    const double along = h.dot(eig(x) - c), off = (eig(x) - c - along * h).norm();
    CHECK(std::abs(along) == Approx(0.5 * L).epsilon(1e-14));
    if (off < 1e-14) ++on_axis;
    else CHECK(off == Approx(R).epsilon(1e-14));
  }
  CHECK(on_axis == 2);
  check_convex_outward(mesh, R + L);
  check_velocities(mesh, pose);

  // The inscribed 16-gon prism: (n/2) sin(2 pi/n) R^2 L, 2.55 % short of pi R^2 L.
  const double exact = kPi * R * R * L, volume = enclosed_volume(mesh);
  CHECK(volume == Approx(0.5 * kShapeSegments * std::sin(2.0 * kPi / kShapeSegments) * R * R * L).epsilon(1e-12));
  CHECK(1.0 - volume / exact == Approx(0.0255).margin(1e-4));
}

TEST_CASE("Shape mesh: a box's corners after the body's rotation, its volume exact", "[shape-mesh]") {
  const Pose pose = test_pose();
  RigidShape s = shape_of(ShapeKind::box);
  const Eigen::Vector3d a = eig(pose.state.r);
  std::vector<Eigen::Vector3d> corners;
  for (int i : {-1, 1})
    for (int j : {-1, 1})
      for (int k : {-1, 1})
        corners.push_back(a + pose.A * (eig(s.frame.s) + 0.5 * i * s.size[0] * eig(s.frame.f) +
                                        0.5 * j * s.size[1] * eig(s.frame.g) + 0.5 * k * s.size[2] * eig(s.frame.h)));
  const double volume = s.size[0] * s.size[1] * s.size[2];

  // The frame as given and mirrored (g reversed, f x g = -h): the same corners, the faces still outward.
  for (bool mirrored : {false, true}) {
    if (mirrored) s.frame.g = vec_scale(-1.0, s.frame.g);
    const SurfaceMesh mesh = mesh_of(s, pose);
    REQUIRE(mesh.point_count() == 8);
    CHECK(mesh.face_count() == 6);
    for (const Eigen::Vector3d& corner : corners) {
      int found = 0;
      for (const Vec<3>& x : mesh.points) found += (eig(x) - corner).norm() < 1e-14;
      CHECK(found == 1);
    }
    for (int k = 0; k < 6; ++k) CHECK(face_of(mesh, k).size() == 4);
    check_convex_outward(mesh, 1.0);
    check_velocities(mesh, pose);
    CHECK(enclosed_volume(mesh) == Approx(volume).epsilon(1e-13));
  }
}

TEST_CASE("Shape mesh: resolutions it cannot draw are refused", "[shape-mesh]") {
  const Pose pose = test_pose();
  SurfaceMesh mesh;
  CHECK_THROWS_AS(add_shape_surface(shape_of(ShapeKind::sphere), pose.state, mesh, 2, 8), std::invalid_argument);
  CHECK_THROWS_AS(add_shape_surface(shape_of(ShapeKind::capsule), pose.state, mesh, 16, 7), std::invalid_argument);
  CHECK(mesh.point_count() == 0);
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}


}  // namespace

TEST_CASE("VTU draws rigid bodies' shapes after their axes, with their velocities and body_id",
          "[shape-mesh][output][multibody]") {
  // A 4-element rope with a payload (body 0: a box and a cylinder), and a moving, turning ball
  // (body 1: a sphere and a capsule).
  Model m = testing::cable_with_payload(4);
  RigidBody ball = rigid_body_at_rest("ball", 1.0, vec3(0.01, 0.01, 0.01), vec3(0.3, 0.4, -0.5),
                                      rigid::from_axis_angle(vec3(0, 1, 1), 0.6));
  ball.velocity = vec3(0.2, -0.1, 0.3);
  ball.angular_velocity = vec3(1.5, 0.5, -2.0);
  m.mechanism.bodies.push_back(ball);
  RigidShape box = shape_of(ShapeKind::box), cylinder = shape_of(ShapeKind::cylinder);
  RigidShape sphere = shape_of(ShapeKind::sphere), capsule = shape_of(ShapeKind::capsule);
  box.body = cylinder.body = 0;
  sphere.body = capsule.body = 1;
  sphere.frame.s = Vec<3>::zero();
  for (const RigidShape* shape : {&box, &sphere, &cylinder, &capsule}) add_rigid_shape(m.mechanism, *shape);
  finalize_model(m);
  const Eigen::VectorXd q = initial_coordinates(m), v = initial_rates(m);

  fs::path dir = fs::temp_directory_path() / ("catenary_test_shape_mesh_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "shapes.vtu").string();
  write_vtu(path, m, q, v, 2);
  const std::string text = read_text(path);
  fs::remove_all(dir);

  const int n = kShapeSegments, rings = kShapeRings;
  const int sphere_points = 2 + (rings - 1) * n, capsule_points = 2 + rings * n, cylinder_points = 2 + 2 * n;
  const int cable_points = 4 * 2 + 1;
  const int payload_first = cable_points, ball_first = payload_first + 4 + 8 + cylinder_points;
  const int points = ball_first + 4 + sphere_points + capsule_points;
  // Cells in order: the rope, body 0's axes, box, cylinder, body 1's axes, sphere, capsule.
  std::vector<double> types = {4}, bodies = {0};
  const auto add = [&](int count, int type, int body) {
    types.insert(types.end(), count, type);
    bodies.insert(bodies.end(), count, body);
  };
  add(3, 3, 1);
  add(6, 9, 1);
  add(n, 5, 1), add(n, 9, 1), add(n, 5, 1);
  add(3, 3, 2);
  add(n, 5, 2), add((rings - 2) * n, 9, 2), add(n, 5, 2);
  add(n, 5, 2), add(rings * n - n, 9, 2), add(n, 5, 2);
  CHECK(vtu_attribute(text, "NumberOfPoints") == points);
  CHECK(vtu_attribute(text, "NumberOfCells") == static_cast<int>(types.size()));
  CHECK(vtu_array(text, "types") == types);
  CHECK(vtu_array(text, "body_id") == bodies);

  // Each cell's size from its type, every index a point.
  const auto offsets = vtu_array(text, "offsets"), connectivity = vtu_array(text, "connectivity");
  REQUIRE(offsets.size() == types.size());
  CHECK(offsets.back() == connectivity.size());
  for (size_t c = 1; c < types.size(); ++c) {
    const double size = offsets[c] - offsets[c - 1];
    CHECK(size == (types[c] == 3 ? 2 : types[c] == 5 ? 3 : 4));
  }
  CHECK(*std::max_element(connectivity.begin(), connectivity.end()) == points - 1);

  const auto xyz = vtu_array(text, "points"), velocity = vtu_array(text, "velocity");
  const auto strain = vtu_array(text, "axial_strain");
  REQUIRE(xyz.size() == 3 * static_cast<size_t>(points));
  REQUIRE(velocity.size() == xyz.size());
  REQUIRE(strain.size() == static_cast<size_t>(points));
  for (int k = cable_points; k < points; ++k) CHECK(strain[k] == 0.0);

  // The ball's sphere: its points at the radius from the ball's centre, moving with the ball.
  const int o = m.rigid_offset() + 7;
  const Eigen::Vector3d r = q.segment<3>(o), rd = v.segment<3>(o);
  const Eigen::Vector3d omega(ball.angular_velocity[0], ball.angular_velocity[1], ball.angular_velocity[2]);
  for (int k = ball_first + 4; k < ball_first + 4 + sphere_points; ++k) {
    const Eigen::Vector3d x(xyz[3 * k], xyz[3 * k + 1], xyz[3 * k + 2]);
    const Eigen::Vector3d u(velocity[3 * k], velocity[3 * k + 1], velocity[3 * k + 2]);
    CHECK((x - r).norm() == Approx(sphere.radius).epsilon(1e-12));
    CHECK((u - rd - omega.cross(x - r)).norm() < 1e-12);
  }
}
