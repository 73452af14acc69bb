// What a VTU frame holds, read back from the file: the three encodings decode to the same arrays,
// cables' radius and curvature against closed forms, and the box a rigid body without shapes is
// drawn as against the body's mass and inertia.
#include <catch2/catch.hpp>
#include <Eigen/Geometry>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "catenary/io/vtu_writer.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/model_operators.hpp"
#include "multibody_models.hpp"
#include "vtu_reading.hpp"

using namespace catenary;
using catenary::testing::vtu_array;
using catenary::testing::vtu_attribute;
namespace fs = std::filesystem;

namespace {

const double kPi = std::acos(-1.0);

struct TempDir {
  fs::path path;
  TempDir() : path(fs::temp_directory_path() / ("catenary_vtu_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

Case shipped_case(const std::string& name) {
  return load_case(std::string(CATENARY_SOURCE_DIR) + "/cases/" + name + ".json");
}

// The frame of model m at q, v written in `encoding` and read back whole.
std::string frame_text(const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v, VtuEncoding encoding,
                       int samples = 4) {
  TempDir dir;
  const fs::path path = dir.path / "frame.vtu";
  write_vtu(path.string(), m, q, v, samples, encoding);
  return read_text(path);
}

}  // namespace

TEST_CASE("a VTU frame written as text, raw binary and zlib-compressed decodes to the same arrays",
          "[output][vtu]") {
  // A cable with a rigid body drawn as its inertia box, a line in water on a seabed (contact_force)
  // and rigid bodies with contact shapes.
  for (const char* name : {"crane_boom_cable", "mooring_line_waves", "sheave_hoist"}) {
    DYNAMIC_SECTION(name) {
      const Case c = shipped_case(name);
      const Model& m = c.model;
      const Eigen::VectorXd q = initial_coordinates(m);
      Eigen::VectorXd v(m.dof_count());
      for (int k = 0; k < v.size(); ++k) v[k] = std::sin(0.37 * k) / 3.0;
      const std::string ascii = frame_text(m, q, v, VtuEncoding::ascii),
                        binary = frame_text(m, q, v, VtuEncoding::binary),
                        compressed = frame_text(m, q, v, VtuEncoding::compressed);
      CHECK(ascii.find("format=\"ascii\"") != std::string::npos);
      CHECK(ascii.find("AppendedData") == std::string::npos);
      CHECK(binary.find("format=\"ascii\"") == std::string::npos);
      CHECK(binary.find("compressor=") == std::string::npos);
      CHECK(compressed.find("compressor=\"vtkZLibDataCompressor\"") != std::string::npos);
      const int points = vtu_attribute(binary, "NumberOfPoints");
      CHECK(vtu_attribute(ascii, "NumberOfPoints") == points);
      CHECK(vtu_attribute(compressed, "NumberOfPoints") == points);
      std::vector<std::string> names = {"velocity", "axial_strain", "curvature", "tension",     "radius",
                                        "body_id",  "points",       "connectivity", "offsets", "types"};
      if (!m.elements.contact_surfaces.empty()) names.push_back("contact_force");
      for (const std::string& array : names) {
        INFO(array);
        const std::vector<double> exact = vtu_array(binary, array);
        CHECK(!exact.empty());
        // Bit for bit: the compressed bytes inflate to the raw ones, and the text holds each
        // double's shortest round-trip decimal (io/text_output.hpp), which reads back as itself.
        CHECK(vtu_array(compressed, array) == exact);
        CHECK(vtu_array(ascii, array) == exact);
      }
      CHECK(vtu_array(binary, "points").size() == 3u * points);
    }
  }
}

TEST_CASE("a compressed VTU array spans several zlib blocks when it is longer than one", "[output][vtu]") {
  // 2,000 elements x 4 samples: 8,001 points, 192,024 bytes of coordinates, six 32 KiB blocks.
  Model m;
  m.dimension = 3;
  add_straight_line(m, "line", {0, 0, 0}, {100, 0, 0}, 2000, LineProperties{1e6, 10.0, 0.5, 0.0});
  finalize_model(m);
  const Eigen::VectorXd q = initial_coordinates(m), v = Eigen::VectorXd::Zero(m.dof_count());
  const std::string compressed = frame_text(m, q, v, VtuEncoding::compressed);
  const std::vector<double> points = vtu_array(compressed, "points");
  REQUIRE(points.size() == 3u * 8001);
  CHECK(points == vtu_array(frame_text(m, q, v, VtuEncoding::binary), "points"));
  for (int p = 0; p <= 8000; p += 400) CHECK(points[3 * p] == Approx(p / 80.0).margin(1e-12));
}

TEST_CASE("a VTU frame's radius is half the section's outer diameter on cables and 0 on rigid bodies",
          "[output][vtu]") {
  struct Expected {
    const char* name;
    double radius;  // from the case file's section
  };
  // A circle of diameter 0.01; a general section of area 1e-4 (the circle of that area); a line
  // whose hydrodynamic diameter is 0.1.
  for (const Expected& e : {Expected{"hanging_cable", 0.005}, Expected{"crane_boom_cable", std::sqrt(1e-4 / kPi)},
                            Expected{"mooring_line_waves", 0.05}}) {
    DYNAMIC_SECTION(e.name) {
      const Case c = shipped_case(e.name);
      const Model& m = c.model;
      const Eigen::VectorXd q = initial_coordinates(m), v = Eigen::VectorXd::Zero(m.dof_count());
      const std::string text = frame_text(m, q, v, VtuEncoding::binary, 3);
      const std::vector<double> radius = vtu_array(text, "radius");
      size_t cable_points = 0;
      for (const Body& b : m.bodies) cable_points += 3 * b.element_count + 1;
      REQUIRE(radius.size() == static_cast<size_t>(vtu_attribute(text, "NumberOfPoints")));
      for (size_t p = 0; p < radius.size(); ++p) CHECK(radius[p] == Approx(p < cable_points ? e.radius : 0.0));
    }
  }
}

TEST_CASE("a VTU frame's curvature on a cable bent into a circular arc is its strain law's 1 / R", "[output][vtu]") {
  // A straight cable of length L bent into an arc of radius R and stretched by lambda: at arc length
  // s of its reference, r = R (sin phi, 1 - cos phi, 0) with phi = lambda s / R and slope
  // r' = lambda (cos phi, sin phi, 0). The spatial curvature is 1 / R (Green-Lagrange); the material
  // curvature per reference length is lambda / R (Reissner).
  const double R = 2.0, L = 0.5 * kPi * R, lambda = 1.1;
  const int elements = 40;
  for (const StrainLaw law : {StrainLaw::reissner, StrainLaw::green_lagrange}) {
    DYNAMIC_SECTION("strain law " << static_cast<int>(law)) {
      Model m;
      m.dimension = 3;
      LineProperties props{1e6, 10.0, 0.5, 0.0};
      props.strain_law = law;
      add_straight_line(m, "arc", {0, 0, 0}, {L, 0, 0}, elements, props);
      finalize_model(m);
      Eigen::VectorXd q = initial_coordinates(m);
      for (int n = 0; n <= elements; ++n) {
        const double phi = lambda * (L * n / elements) / R;
        const double node[6] = {R * std::sin(phi), R * (1.0 - std::cos(phi)), 0.0,
                                lambda * std::cos(phi), lambda * std::sin(phi), 0.0};
        for (int k = 0; k < 6; ++k) q[6 * n + k] = node[k];
      }
      const std::vector<double> curvature =
          vtu_array(frame_text(m, q, Eigen::VectorXd::Zero(m.dof_count()), VtuEncoding::binary, 5), "curvature");
      REQUIRE(curvature.size() == static_cast<size_t>(5 * elements + 1));
      const double expected = law == StrainLaw::reissner ? lambda / R : 1.0 / R;
      // The cubic Hermite interpolation of the arc: its curvature errs by O(theta^2) for an
      // element's angle theta = lambda L / (elements R) = 0.043 rad.
      for (double k : curvature) CHECK(k == Approx(expected).epsilon(2e-3));
    }
  }
}

namespace {

// The box drawn for the first rigid body of m (after its three axes), read back from the frame:
// its centre, its edge vectors along f, g, h (shape_mesh.hpp's corner order) and the inertia of a
// uniform box of that mass, sum of m / 12 (|u|^2 I - u u^T) over its edge vectors u, in the body frame.
struct DrawnBox {
  Eigen::Vector3d centre;
  Eigen::Matrix3d edges;  // columns
  Eigen::Matrix3d body_inertia;
};

DrawnBox drawn_box(const Model& m) {
  const Eigen::VectorXd q = initial_coordinates(m), v = Eigen::VectorXd::Zero(m.dof_count());
  const std::string text = frame_text(m, q, v, VtuEncoding::compressed);
  REQUIRE(vtu_attribute(text, "NumberOfPoints") == 4 + 8);
  const std::vector<double> points = vtu_array(text, "points");
  const auto corner = [&](int c) { return Eigen::Vector3d(points[3 * (4 + c)], points[3 * (4 + c) + 1], points[3 * (4 + c) + 2]); };
  DrawnBox box;
  box.centre = Eigen::Vector3d::Zero();
  for (int c = 0; c < 8; ++c) box.centre += corner(c) / 8.0;
  Eigen::Matrix3d J = Eigen::Matrix3d::Zero();
  const double mass = m.mechanism.bodies[0].mass;
  for (int k = 0; k < 3; ++k) {
    const Eigen::Vector3d u = corner(1 << k) - corner(0);
    box.edges.col(k) = u;
    J += mass / 12.0 * (u.squaredNorm() * Eigen::Matrix3d::Identity() - u * u.transpose());
  }
  const Eigen::Matrix3d A = Eigen::Quaterniond(q[3], q[4], q[5], q[6]).normalized().toRotationMatrix();
  box.body_inertia = A.transpose() * J * A;
  return box;
}

Model top_with_inertia(const Eigen::Matrix3d& J) {
  Model m = testing::spinning_top(0.5, 15.0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m.mechanism.bodies[0].inertia(i, j) = J(i, j);
  return m;
}

}  // namespace

TEST_CASE("a rigid body without shapes is drawn as the uniform box of its mass and inertia", "[output][vtu]") {
  // A full inertia tensor: principal moments 1, 2 and 2.5 (x 1e-3 kg m^2) about tilted axes.
  const Eigen::Matrix3d axes =
      (Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, 2, 3).normalized()) * Eigen::AngleAxisd(1.1, Eigen::Vector3d::UnitX()))
          .toRotationMatrix();
  const Eigen::Matrix3d J = axes * Eigen::Vector3d(1e-3, 2e-3, 2.5e-3).asDiagonal() * axes.transpose();
  const Model m = top_with_inertia(J);
  const DrawnBox box = drawn_box(m);
  const Eigen::VectorXd q = initial_coordinates(m);
  for (int i = 0; i < 3; ++i) CHECK(box.centre[i] == Approx(q[i]).margin(1e-14));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(box.body_inertia(i, j) == Approx(J(i, j)).margin(1e-15));
  // Its edges are orthogonal and right-handed (its faces' normals point outward).
  CHECK(std::abs(box.edges.col(0).dot(box.edges.col(1))) < 1e-14);
  CHECK(box.edges.determinant() > 0.0);
}

TEST_CASE("a rigid body whose inertia is a rod's or zero is still drawn as a solid box", "[output][vtu]") {
  SECTION("a rod: the edges across it are 1/100 of its length") {
    // A rod of length 0.3 along body x: I = m l^2 / 12 about y and z, 0 about x.
    const double mass = 0.5, rod = 0.3, I = mass * rod * rod / 12.0;
    const DrawnBox box = drawn_box(top_with_inertia(Eigen::Vector3d(0.0, I, I).asDiagonal()));
    std::vector<double> lengths = {box.edges.col(0).norm(), box.edges.col(1).norm(), box.edges.col(2).norm()};
    std::sort(lengths.begin(), lengths.end());
    CHECK(lengths[2] == Approx(rod));
    CHECK(lengths[0] == Approx(0.01 * rod));
    CHECK(lengths[1] == Approx(0.01 * rod));
  }
  SECTION("no inertia: a cube of the axes' length") {
    const Model m = top_with_inertia(Eigen::Matrix3d::Zero());
    const DrawnBox box = drawn_box(m);
    for (int k = 0; k < 3; ++k) CHECK(box.edges.col(k).norm() == Approx(0.1 * m.characteristic_length));
  }
}
