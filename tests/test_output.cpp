// Output writer: CSV time series, VTU frames + PVD collection, summary JSON. The files are read
// back as text and checked against the values written and against independent references
// (node positions, the circle an arc body was built on).
#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "catenary/io/output_writer.hpp"
#include "catenary/io/vtu_writer.hpp"
#include "catenary/model/model_operators.hpp"
#include "multibody_models.hpp"
#include "catenary/model/builders.hpp"
#include "vtu_reading.hpp"

using catenary::testing::vtu_array;
using catenary::testing::vtu_attribute;

using namespace catenary;
namespace fs = std::filesystem;

namespace {

const LineProperties kProps{1e6, 10.0, 0.5, 0.0};
const double kPi = 3.14159265358979323846;

// A fresh directory under the system temp directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("catenary_test_output_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str(const std::string& name = "") const {
    return name.empty() ? path.string() : (path / name).string();
  }
};

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream s(line);
  while (std::getline(s, cell, sep)) out.push_back(cell);
  if (!line.empty() && line.back() == sep) out.push_back("");
  return out;
}

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  double at(size_t row, const std::string& column) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == column) return rows.at(row).at(i);
    FAIL("no column " << column);
    return 0.0;
  }
};

Csv read_csv(const std::string& path) {
  const std::string text = read_text(path);
  REQUIRE(!text.empty());
  REQUIRE(text.back() == '\n');  // every row complete
  std::istringstream s(text);
  std::string line;
  Csv csv;
  REQUIRE(std::getline(s, line));
  csv.header = split(line, ',');
  while (std::getline(s, line)) {
    const auto cells = split(line, ',');
    REQUIRE(cells.size() == csv.header.size());
    std::vector<double> row;
    for (const auto& c : cells) {
      char* end = nullptr;
      row.push_back(std::strtod(c.c_str(), &end));
      REQUIRE(*end == '\0');
    }
    csv.rows.push_back(row);
  }
  return csv;
}


struct PvdEntry {
  double time;
  std::string file;
};

std::vector<PvdEntry> read_pvd(const std::string& path) {
  const std::string text = read_text(path);
  REQUIRE(text.find("<VTKFile type=\"Collection\"") != std::string::npos);
  REQUIRE(text.find("</Collection>") != std::string::npos);
  REQUIRE(text.find("</VTKFile>") != std::string::npos);
  // One closing, at the end: each frame's entry is written over the last one's closing lines.
  REQUIRE(text.find("</Collection>") == text.rfind("</Collection>"));
  REQUIRE(text.size() >= 27);
  REQUIRE(text.substr(text.size() - 27) == "  </Collection>\n</VTKFile>\n");
  std::vector<PvdEntry> out;
  size_t at = 0;
  while ((at = text.find("<DataSet", at)) != std::string::npos) {
    const size_t t = text.find("timestep=\"", at) + 10;
    const size_t f = text.find("file=\"", at) + 6;
    out.push_back({std::strtod(text.c_str() + t, nullptr),
                   text.substr(f, text.find('"', f) - f)});
    at = f;
  }
  return out;
}

Eigen::VectorXd to_vector(const std::vector<double>& x) {
  return Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<long>(x.size()));
}

// 3D case: a straight cable along x fixed at its first node, output of its last node.
Case cable_case_3d() {
  Case c;
  c.name = "cable";
  c.source_file = "cases/cable.json";
  c.model.dimension = 3;
  const int body = add_straight_line(c.model, "cable", {0, 0, 0}, {2, 0, 0}, 4, kProps);
  finalize_model(c.model);
  add_fix(c.model, body_node(c.model, body, 0), {0, 1, 2}, "anchor", "constraints[0]");
  add_node_joint(c.model, body_node(c.model, body, 1), body_node(c.model, body, 2), true, "rigid",
                 "weld", "constraints[1]");
  c.output.nodes = {{"cable.end", body_node(c.model, body, -1)}};
  c.output.vtu_samples_per_element = 3;
  return c;
}

}  // namespace

TEST_CASE("CSV header names, one row per frame, exact round trip, reaction = -lambda",
          "[output]") {
  TempDir dir;
  Case c = cable_case_3d();
  const Model& m = c.model;
  const int end = c.output.nodes[0].node;
  std::vector<std::string> expected = {
      "time", "step", "newton_iterations", "kinetic_energy", "gravitational_energy",
      "elastic_energy", "total_energy", "cable.end.x", "cable.end.y", "cable.end.z",
      "cable.end.vx", "cable.end.vy", "cable.end.vz", "reaction.anchor.x", "reaction.anchor.y",
      "reaction.anchor.z"};
  for (const char* k : {"x", "y", "z", "slope_x", "slope_y", "slope_z"})
    expected.push_back(std::string("reaction.weld.") + k);
  REQUIRE(m.constraint_count() == 9);

  std::vector<Eigen::VectorXd> qs, vs, lambdas;
  const int frames = 3;
  {
    OutputWriter w(c, dir.str("run"));
    for (int i = 0; i < frames; ++i) {
      Eigen::VectorXd q = to_vector(m.initial_positions), v(m.dof_count()), l(9);
      for (int k = 0; k < m.dof_count(); ++k) {
        q[k] += (i + 1) * 0.1 / (k + 3.0);  // values that need all 17 digits
        v[k] = std::sqrt(2.0) * (k - 7) / (i + 1.0);
      }
      for (int k = 0; k < 9; ++k) l[k] = (k % 2 ? -1.0 : 1.0) * (k + 1.0) / 7.0;
      qs.push_back(q), vs.push_back(v), lambdas.push_back(l);
      Frame f;
      f.time = i * kPi / 100.0;
      f.step = i == 0 ? 0.0 : kPi / 100.0;
      f.newton_iterations = i + 2;
      f.q = &qs.back();
      f.v = &vs.back();
      f.lambda = &lambdas.back();
      f.kinetic_energy = 1.0 / 3.0 * i;
      f.gravitational_energy = -2.0 / 7.0;
      f.elastic_energy = 1e-9 / 3.0;
      w.write_frame(f);
      // flushed: the file already holds this row while the writer lives
      CHECK(read_csv(dir.str("run/results.csv")).rows.size() == static_cast<size_t>(i + 1));
    }
    w.write_summary(RunSummary{"dynamic", "ok", "", 2, 0, 5, 0.02, 0.1, 1e-12});
  }
  const Csv csv = read_csv(dir.str("run/results.csv"));
  CHECK(csv.header == expected);
  REQUIRE(csv.rows.size() == static_cast<size_t>(frames));
  for (int i = 0; i < frames; ++i) {
    CHECK(csv.at(i, "time") == i * kPi / 100.0);
    CHECK(csv.at(i, "step") == (i == 0 ? 0.0 : kPi / 100.0));
    CHECK(csv.at(i, "newton_iterations") == i + 2);
    CHECK(csv.at(i, "kinetic_energy") == 1.0 / 3.0 * i);
    CHECK(csv.at(i, "elastic_energy") == 1e-9 / 3.0);
    CHECK(csv.at(i, "total_energy") == 1.0 / 3.0 * i + -2.0 / 7.0 + 1e-9 / 3.0);
    const char* axes[] = {"x", "y", "z"};
    for (int k = 0; k < 3; ++k) {
      CHECK(csv.at(i, std::string("cable.end.") + axes[k]) == qs[i][end * 6 + k]);
      CHECK(csv.at(i, std::string("cable.end.v") + axes[k]) == vs[i][end * 6 + k]);
      // the anchor's reaction is the force on the system: minus the multiplier
      CHECK(csv.at(i, std::string("reaction.anchor.") + axes[k]) == -lambdas[i][k]);
    }
    CHECK(csv.at(i, "reaction.weld.slope_z") == -lambdas[i][8]);
  }
  // Sign spelled out: multiplier +1/7 on the anchor's x row is a reaction of -1/7.
  CHECK(csv.at(0, "reaction.anchor.x") == -1.0 / 7.0);
  CHECK(csv.at(0, "reaction.anchor.y") == 2.0 / 7.0);
}

TEST_CASE("CSV of a 2D model has no z columns, and missing lambda and v are written as 0",
          "[output]") {
  TempDir dir;
  Case c;
  c.name = "beam";
  c.model.dimension = 2;
  const int body = add_straight_line(c.model, "beam", {0, 0, 0}, {1, 0, 0}, 2, kProps);
  finalize_model(c.model);
  add_fix(c.model, body_node(c.model, body, 0), {0, 1, 3}, "clamp", "constraints[0]");
  c.output.nodes = {{"tip", body_node(c.model, body, -1)}, {"mid", body_node(c.model, body, 1)}};
  c.output.vtu = false;
  const Eigen::VectorXd q = to_vector(c.model.initial_positions);
  {
    OutputWriter w(c, dir.str());
    Frame f;
    f.time = 0.5;
    f.q = &q;
    w.write_frame(f);
  }
  const Csv csv = read_csv(dir.str("results.csv"));
  const std::vector<std::string> expected = {
      "time", "step", "newton_iterations", "kinetic_energy", "gravitational_energy",
      "elastic_energy", "total_energy", "tip.x", "tip.y", "tip.vx", "tip.vy", "mid.x", "mid.y",
      "mid.vx", "mid.vy", "reaction.clamp.x", "reaction.clamp.y", "reaction.clamp.slope_y"};
  CHECK(csv.header == expected);
  REQUIRE(csv.rows.size() == 1);
  CHECK(csv.at(0, "tip.x") == 1.0);
  CHECK(csv.at(0, "mid.x") == 0.5);
  CHECK(csv.at(0, "tip.vy") == 0.0);
  CHECK(csv.at(0, "reaction.clamp.slope_y") == 0.0);
  // VTU output off: no frames, no collection
  CHECK(!fs::exists(dir.path / "frames"));
  CHECK(!fs::exists(dir.path / "results.pvd"));
}

TEST_CASE("VTU: point count, nodes exact, arc body on its circle, strain and velocity",
          "[output]") {
  for (int D : {3, 2}) {
    DYNAMIC_SECTION("dimension " << D) {
      TempDir dir;
      fs::create_directories(dir.path);
      Model m;
      m.dimension = D;
      const double R = 1.5;
      const Vec3 centre = {0.3, -0.2, D == 3 ? 0.7 : 0.0};
      // 3D: the arc lies in a tilted plane; 2D: in the x-y plane
      const double s2 = std::sqrt(0.5);
      const Vec3 u = D == 3 ? Vec3{s2, 0.0, s2} : Vec3{1, 0, 0};
      const Vec3 vv = D == 3 ? Vec3{0.0, 1.0, 0.0} : Vec3{0, 1, 0};
      add_straight_line(m, "line", {0, 0, 0}, {2, 1, D == 3 ? 0.5 : 0.0}, 4, kProps);
      add_arc(m, "arc", centre, R, 0.1, 0.1 + kPi, 12, kProps, u, vv);
      finalize_model(m);
      const int s = 5;
      // Stretch the straight line uniformly by 10 percent: positions and slopes scale by 1.1
      // about its first node, so the (default) Reissner law's strain |r'| / |r0'| - 1 is 0.1
      // everywhere (the Green-Lagrange law's would be (1.21 - 1) / 2).
      Eigen::VectorXd q = to_vector(m.initial_positions);
      const Body& line = m.bodies[0];
      for (int n = line.first_node; n < line.first_node + line.node_count; ++n)
        for (int k = 0; k < 2 * D; ++k) q[n * 2 * D + k] *= 1.1;
      Eigen::VectorXd v(m.dof_count());
      for (int k = 0; k < m.dof_count(); ++k) v[k] = 0.25 * k - 1.0 / 3.0;
      const std::string path = dir.str("f.vtu");
      write_vtu(path, m, q, v, s);
      const std::string text = read_text(path);

      const int expected_points = (4 * s + 1) + (12 * s + 1);
      CHECK(vtu_attribute(text, "NumberOfPoints") == expected_points);
      CHECK(vtu_attribute(text, "NumberOfCells") == 2);
      const auto points = vtu_array(text, "points");
      const auto vel = vtu_array(text, "velocity");
      const auto strain = vtu_array(text, "axial_strain");
      REQUIRE(points.size() == static_cast<size_t>(3 * expected_points));
      REQUIRE(vel.size() == points.size());
      REQUIRE(strain.size() == static_cast<size_t>(expected_points));
      CHECK(vtu_array(text, "types") == std::vector<double>{4, 4});
      CHECK(vtu_array(text, "offsets") == std::vector<double>{4.0 * s + 1, expected_points});
      CHECK(vtu_array(text, "body_id") == std::vector<double>{0, 1});
      const auto conn = vtu_array(text, "connectivity");
      REQUIRE(conn.size() == static_cast<size_t>(expected_points));
      for (int p = 0; p < expected_points; ++p) CHECK(conn[p] == p);

      // Sampled points at element nodes are the node positions, bit for bit.
      int first_point = 0;
      for (const Body& b : m.bodies) {
        for (int j = 0; j < b.node_count; ++j) {
          const int p = first_point + j * s, node = b.first_node + j;
          for (int k = 0; k < 3; ++k) {
            const double qk = k < D ? q[node * 2 * D + k] : 0.0;
            const double vk = k < D ? v[node * 2 * D + k] : 0.0;
            CHECK(points[3 * p + k] == qk);
            CHECK(vel[3 * p + k] == vk);
          }
        }
        first_point += b.element_count * s + 1;
      }
      // Straight stretched line: uniform strain 0.1.
      for (int p = 0; p < 4 * s + 1; ++p) CHECK(strain[p] == Approx(0.1).epsilon(1e-12));
      // Arc body (unstretched): on the circle within 1e-4 relative, in its plane, zero strain.
      const Vec3 normal = D == 3 ? Vec3{-s2, 0.0, s2} : Vec3{0, 0, 1};
      for (int p = 4 * s + 1; p < expected_points; ++p) {
        double d[3], r2 = 0.0, off_plane = 0.0;
        for (int k = 0; k < 3; ++k) {
          d[k] = points[3 * p + k] - centre[k];
          off_plane += d[k] * normal[k];
        }
        for (int k = 0; k < 3; ++k) r2 += d[k] * d[k];
        CHECK(std::fabs(std::sqrt(r2) - R) < 1e-4 * R);
        CHECK(std::fabs(off_plane) < 1e-12);
        CHECK(std::fabs(strain[p]) < 1e-12);
      }
    }
  }
}

TEST_CASE("PVD lists every frame and summary.json has the run's fields", "[output]") {
  TempDir dir;
  Case c = cable_case_3d();
  const Eigen::VectorXd q = to_vector(c.model.initial_positions);
  const Eigen::VectorXd v = Eigen::VectorXd::Zero(c.model.dof_count());
  const int frames = 4;
  const std::string out = dir.str("nested/out");
  {
    OutputWriter w(c, out);
    CHECK(w.directory() == out);
    for (int i = 0; i < frames; ++i) {
      Frame f;
      f.time = 0.1 * i + 1.0 / 3.0;
      f.q = &q;
      f.v = &v;
      w.write_frame(f);
      CHECK(read_pvd(out + "/results.pvd").size() == static_cast<size_t>(i + 1));
    }
    w.write_summary(
        RunSummary{"dynamic", "ok", "", 3, 1, 9, 0.3 + 1.0 / 3.0, 0.25, 3e-11, 2.5, 0.2, 4.0, 0.125, 0.0625, 0.05, 0.03});
  }
  const auto entries = read_pvd(out + "/results.pvd");
  REQUIRE(entries.size() == static_cast<size_t>(frames));
  for (int i = 0; i < frames; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "frames/frame_%05d.vtu", i);
    CHECK(entries[i].file == name);
    CHECK(entries[i].time == 0.1 * i + 1.0 / 3.0);
    CHECK(fs::exists(fs::path(out) / entries[i].file));
  }
  for (const auto& e : fs::recursive_directory_iterator(out))
    CHECK(e.path().extension() != ".tmp");

  const auto j = nlohmann::json::parse(read_text(out + "/summary.json"));
  CHECK(j.at("analysis") == "dynamic");
  CHECK(j.at("status") == "ok");
  CHECK(j.at("message") == "");
  CHECK(j.at("steps") == 3);
  CHECK(j.at("rejected_steps") == 1);
  CHECK(j.at("newton_iterations") == 9);
  CHECK(j.at("end_time").get<double>() == 0.3 + 1.0 / 3.0);
  CHECK(j.at("wall_seconds").get<double>() == 0.25);
  CHECK(j.at("last_residual").get<double>() == 3e-11);
  CHECK(j.at("largest_error_estimate").get<double>() == 2.5);
  CHECK(j.at("largest_error_time").get<double>() == 0.2);
  CHECK(j.at("largest_rejected_error_estimate").get<double>() == 4.0);
  CHECK(j.at("stepping_wall_seconds").get<double>() == 0.125);
  CHECK(j.at("initial_state_wall_seconds").get<double>() == 0.0625);
  CHECK(j.at("output_wall_seconds").get<double>() == 0.05);
  CHECK(j.at("output_writing_wall_seconds").get<double>() == 0.03);
  CHECK(j.at("case") == "cable");
  CHECK(j.at("source_file") == "cases/cable.json");
  CHECK(j.at("dof_count") == c.model.dof_count());
  CHECK(j.at("element_count") == 4);
  CHECK(j.at("constraint_rows") == 9);
  CHECK(j.at("output_files").at("csv") == "results.csv");
  CHECK(j.at("output_files").at("pvd") == "results.pvd");
  CHECK(j.at("output_files").at("vtu_frames") == frames);
}

TEST_CASE("A run that dies before its summary leaves complete CSV and PVD, and summary.json says running",
          "[output]") {
  TempDir dir;
  Case c = cable_case_3d();
  const Eigen::VectorXd q = to_vector(c.model.initial_positions);
  {
    OutputWriter w(c, dir.str());
    for (int i = 0; i < 5; ++i) {
      Frame f;
      f.time = 0.01 * i;
      f.q = &q;
      w.write_frame(f);
    }
    // destroyed here without write_summary, as when the solver throws
  }
  CHECK(read_csv(dir.str("results.csv")).rows.size() == 5);
  const auto entries = read_pvd(dir.str("results.pvd"));
  REQUIRE(entries.size() == 5);
  for (const auto& e : entries) {
    const std::string text = read_text(dir.str(e.file));
    CHECK(text.find("</VTKFile>") != std::string::npos);
  }
  CHECK(nlohmann::json::parse(read_text(dir.str("summary.json"))).at("status") == "running");

  // A failed run's summary records the diagnosis.
  {
    OutputWriter w(c, dir.str("failed"));
    w.write_summary(RunSummary{"static", "failed", "Newton did not converge", 0, 0, 50, 0.0,
                               0.1, std::nan("")});
  }
  const auto j = nlohmann::json::parse(read_text(dir.str("failed/summary.json")));
  CHECK(j.at("status") == "failed");
  CHECK(j.at("message") == "Newton did not converge");
  CHECK(j.at("last_residual").is_null());  // NaN is not JSON
}

TEST_CASE("Output errors name the path or the bad input", "[output]") {
  TempDir dir;
  Case c = cable_case_3d();
  fs::create_directories(dir.path);
  { std::ofstream(dir.str("blocker")) << "a file, not a directory\n"; }
  const std::string bad = dir.str("blocker/out");
  try {
    OutputWriter w(c, bad);
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find(bad) != std::string::npos);
  }

  Case wrong_node = cable_case_3d();
  wrong_node.output.nodes.push_back({"ghost", 99});
  CHECK_THROWS_AS(OutputWriter(wrong_node, dir.str("x")), std::invalid_argument);

  OutputWriter w(c, dir.str("ok"));
  const Eigen::VectorXd short_q = Eigen::VectorXd::Zero(3);
  Frame f;
  f.q = &short_q;
  CHECK_THROWS_AS(w.write_frame(f), std::invalid_argument);
  CHECK_THROWS_AS(write_vtu(dir.str("ok/x.vtu"), c.model, to_vector(c.model.initial_positions),
                            Eigen::VectorXd::Zero(c.model.dof_count()), 0),
                  std::invalid_argument);
}

TEST_CASE("CSV header quotes names that contain commas or quotes", "[output]") {
  TempDir dir;
  Case c;
  c.name = "quoted";
  c.model.dimension = 2;
  const int body = add_straight_line(c.model, "beam", {0, 0, 0}, {1, 0, 0}, 1, kProps);
  finalize_model(c.model);
  add_fix(c.model, body_node(c.model, body, 0), {0}, "pin, \"left\"", "constraints[0]");
  c.output.nodes = {{"a,b", body_node(c.model, body, -1)}};
  c.output.vtu = false;
  const Eigen::VectorXd q = to_vector(c.model.initial_positions);
  {
    OutputWriter w(c, dir.str());
    Frame f;
    f.q = &q;
    w.write_frame(f);
  }
  const std::string header = split(read_text(dir.str("results.csv")), '\n').front();
  CHECK(header == "time,step,newton_iterations,kinetic_energy,gravitational_energy,elastic_energy,total_energy,"
                  "\"a,b.x\",\"a,b.y\",\"a,b.vx\",\"a,b.vy\",\"reaction.pin, \"\"left\"\".x\"");
}

TEST_CASE("VTU draws each rigid body as its three body axes, with the velocities of their ends",
          "[output][multibody]") {
  TempDir dir;
  fs::create_directories(dir.path);
  const Model m = testing::spinning_top(0.5, 15.0);  // one body, no cables, no shapes
  const Eigen::VectorXd q = initial_coordinates(m), v = initial_rates(m);
  const std::string path = dir.str("top.vtu");
  write_vtu(path, m, q, v, 4);
  const std::string text = read_text(path);
  // The axes' centre and ends, then the eight corners of its inertia box and its six faces.
  CHECK(vtu_attribute(text, "NumberOfPoints") == 4 + 8);
  CHECK(vtu_attribute(text, "NumberOfCells") == 3 + 6);
  CHECK(vtu_array(text, "types") == std::vector<double>{3, 3, 3, 9, 9, 9, 9, 9, 9});
  const auto connectivity = vtu_array(text, "connectivity");
  CHECK(std::vector<double>(connectivity.begin(), connectivity.begin() + 6) == std::vector<double>{0, 1, 0, 2, 0, 3});
  const auto points = vtu_array(text, "points"), velocity = vtu_array(text, "velocity");
  REQUIRE(points.size() == 3 * (4 + 8));
  // Independently: A from Eigen's quaternion, omega from the body's initial angular velocity.
  const Eigen::Quaterniond p(q[3], q[4], q[5], q[6]);
  const Eigen::Matrix3d A = p.normalized().toRotationMatrix();
  const RigidBody& body = m.mechanism.bodies[0];
  const Eigen::Vector3d omega(body.angular_velocity[0], body.angular_velocity[1], body.angular_velocity[2]);
  const double a = 0.1 * m.characteristic_length;
  for (int k = 0; k < 3; ++k) {
    const Eigen::Vector3d arm = a * A.col(k);
    const Eigen::Vector3d end = q.head<3>() + arm, end_velocity = v.head<3>() + omega.cross(arm);
    for (int i = 0; i < 3; ++i) {
      CHECK(points[3 * (k + 1) + i] == Approx(end[i]).margin(1e-14));
      CHECK(velocity[3 * (k + 1) + i] == Approx(end_velocity[i]).margin(1e-12));
    }
  }
}
