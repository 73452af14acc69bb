// Good case files: the loader builds the model the file describes.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "catenary/core/errors.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/model/constraint_check.hpp"
#include "catenary/run/backend_factory.hpp"

using namespace catenary;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Writes `text` to a temporary file that is removed when the object goes out of scope; the name
// carries the process id, as ctest -j runs test cases of this file side by side.
struct TempCase {
  std::string path;
  explicit TempCase(const std::string& text, const std::string& name = "catenary_loader_test.json")
      : path(std::to_string(::getpid()) + "_" + name) {
    std::ofstream(path) << text;
  }
  ~TempCase() { std::remove(path.c_str()); }
};

const char* kStraightCable = R"({
  "name": "cantilever",
  "model": {
    "dimension": 3,
    "gravity": [0, 0, -9.81],
    "materials": {"steel": {"youngs_modulus": 2.0e11, "density": 8000, "damping": 0.001}},
    "sections": {"rod": {"shape": "circle", "diameter": 0.02}},
    "bodies": [
      {"name": "cable", "element": "cable3d", "generator": "straight", "start": [0, 0, 0], "end": [2, 0, 0],
       "elements": 8, "material": "steel", "section": "rod"}
    ],
    "constraints": [
      {"type": "fix", "name": "clamp", "node": {"body": "cable", "index": "start"}, "coordinates": "all"},
      {"type": "prescribed", "node": {"body": "cable", "index": "end"},
       "displacement": {"x": 0.5, "z": {"type": "ramp", "t0": 0, "t1": 2, "from": 0, "to": -0.1}}}
    ],
    "loads": [
      {"type": "point_force", "node": {"body": "cable", "index": -2}, "force": [0, 0, -10],
       "function": {"type": "harmonic", "amplitude": 2, "frequency": 0.5, "phase": 0.1, "offset": 1}},
      {"type": "distributed", "body": "cable", "force_per_length": [0, 1, 0],
       "function": {"type": "smooth_step", "t0": 0.1, "t1": 0.3, "from": 0, "to": 1}}
    ]
  },
  "analysis": {"type": "dynamic", "end_time": 2.0, "step": 1e-3, "alpha": -0.2,
               "adaptive": {"min_step": 1e-6, "max_step": 1e-2, "error_tolerance": 1e-5}},
  "output": {"directory": "results/cantilever", "interval": 0.01,
             "nodes": [{"body": "cable", "index": "end"}, {"body": "cable", "index": 3}, {"body": "cable", "index": -2}],
             "vtu": false, "vtu_samples_per_element": 6, "vtu_encoding": "compressed"}
})";

}  // namespace

TEST_CASE("a straight cable: nodes, element lengths, mass, properties", "[loader]") {
  TempCase file(kStraightCable);
  const Case c = load_case(file.path);
  CHECK(c.name == "cantilever");
  CHECK(c.source_file == file.path);
  const Model& m = c.model;
  REQUIRE(m.dimension == 3);
  CHECK(m.node_count == 9);
  CHECK(m.elements.size() == 8);
  CHECK(m.dof_count() == 54);
  REQUIRE(m.bodies.size() == 1);
  CHECK(m.bodies[0].name == "cable");
  CHECK(m.bodies[0].element_type == "cable3d");
  CHECK(m.gravity[2] == Approx(-9.81));

  const double area = kPi * 0.02 * 0.02 / 4.0, inertia = kPi * std::pow(0.02, 4) / 64.0;
  double length = 0.0, mass = 0.0;
  for (const ElementProperties& p : m.elements.properties) {
    CHECK(p.length == Approx(0.25));
    CHECK(p.EA == Approx(2.0e11 * area));
    CHECK(p.EI == Approx(2.0e11 * inertia));
    CHECK(p.rhoA == Approx(8000 * area));
    CHECK(p.eta == Approx(0.001));
    length += p.length;
    mass += p.rhoA * p.length;
  }
  CHECK(length == Approx(2.0));
  CHECK(mass == Approx(8000 * area * 2.0));
  // The last node sits at the end point with a unit slope along x.
  const int last = 8 * 6;
  CHECK(m.initial_positions[last + 0] == Approx(2.0));
  CHECK(m.initial_positions[last + 3] == Approx(1.0));
}

TEST_CASE("constraints, loads and time functions from a case file", "[loader]") {
  TempCase file(kStraightCable);
  const Case c = load_case(file.path);
  const Model& m = c.model;
  REQUIRE(m.constraint_groups.size() == 2);
  CHECK(m.constraint_groups[0].name == "clamp");
  CHECK(m.constraint_groups[0].type == "fix");
  CHECK(m.constraint_groups[0].json_path == "/model/constraints/0");
  CHECK(m.constraint_groups[0].row_count == 6);
  CHECK(m.constraint_groups[1].name == "constraints[1]");
  CHECK(m.constraint_groups[1].type == "prescribed");
  CHECK(m.constraint_groups[1].row_count == 2);
  REQUIRE(m.constraint_count() == 8);
  for (int k = 0; k < 6; ++k) {
    CHECK(m.constraint_rows[k].dofs == std::vector<int>{k});
    CHECK(m.constraint_rows[k].coefficients == std::vector<double>{1.0});
  }
  // Prescribed: end node (8), components x and z, ordered by axis.
  const ConstraintRow& px = m.constraint_rows[6];
  const ConstraintRow& pz = m.constraint_rows[7];
  CHECK(px.dofs == std::vector<int>{8 * 6 + 0});
  CHECK(pz.dofs == std::vector<int>{8 * 6 + 2});
  CHECK(px.offset == Approx(2.0));
  REQUIRE(px.has_motion);
  CHECK(px.motion.kind == TimeFunction::Kind::Constant);
  CHECK(px.motion.value(1.0) == Approx(0.5));
  CHECK(pz.motion.kind == TimeFunction::Kind::LinearRamp);
  CHECK(pz.motion.value(1.0) == Approx(-0.05));
  CHECK(pz.motion.value(3.0) == Approx(-0.1));

  // Point force on node -2 = node 7, only the nonzero z component.
  REQUIRE(m.point_loads.size() == 1);
  CHECK(m.point_loads[0].dof == 7 * 6 + 2);
  CHECK(m.point_loads[0].value == Approx(-10.0));
  const TimeFunction& h = m.point_loads[0].scale;
  CHECK(h.kind == TimeFunction::Kind::Harmonic);
  CHECK(h.value(0.0) == Approx(1.0 + 2.0 * std::sin(0.1)));
  CHECK(h.value(0.5) == Approx(1.0 + 2.0 * std::sin(2 * kPi * 0.5 * 0.5 + 0.1)));
  REQUIRE(m.distributed_loads.size() == 1);
  CHECK(m.distributed_loads[0].element_count == 8);
  CHECK(m.distributed_loads[0].force[1] == Approx(1.0));
  CHECK(m.distributed_loads[0].scale.kind == TimeFunction::Kind::SmoothStep);
  CHECK(m.distributed_loads[0].scale.value(0.2) == Approx(0.5));
}

TEST_CASE("analysis and output settings", "[loader]") {
  TempCase file(kStraightCable);
  const Case c = load_case(file.path);
  REQUIRE(c.analysis.type == AnalysisSettings::Type::Dynamic);
  const DynamicSettings& d = c.analysis.dynamics;
  CHECK(d.end_time == Approx(2.0));
  CHECK(d.step == Approx(1e-3));
  CHECK(d.alpha == Approx(-0.2));
  CHECK(d.max_iterations == DynamicSettings{}.max_iterations);
  CHECK(d.newton_tolerance == DynamicSettings{}.newton_tolerance);
  CHECK(d.adaptive);
  CHECK(d.min_step == Approx(1e-6));
  CHECK(d.max_step == Approx(1e-2));
  CHECK(d.error_tolerance == Approx(1e-5));

  CHECK(c.output.directory == "results/cantilever");
  CHECK(c.output.interval == Approx(0.01));
  CHECK_FALSE(c.output.vtu);
  CHECK(c.output.vtu_samples_per_element == 6);
  CHECK(c.output.vtu_encoding == VtuEncoding::compressed);
  REQUIRE(c.output.nodes.size() == 3);
  CHECK(c.output.nodes[0].label == "cable.end");
  CHECK(c.output.nodes[0].node == 8);
  CHECK(c.output.nodes[1].label == "cable.3");
  CHECK(c.output.nodes[1].node == 3);
  CHECK(c.output.nodes[2].label == "cable.-2");
  CHECK(c.output.nodes[2].node == 7);
}

TEST_CASE("analysis.float_factors reaches the backend options, and is on by default", "[loader]") {
  std::string text = kStraightCable;
  CHECK(load_case(TempCase(text).path).analysis.float_factors);
  CHECK(backend_options(load_case(TempCase(text).path).analysis).block_solver.float_factors);
  const std::string adaptive = "\"adaptive\":";
  text.replace(text.find(adaptive), adaptive.size(), "\"float_factors\": false, " + adaptive);
  const Case c = load_case(TempCase(text).path);
  CHECK_FALSE(c.analysis.float_factors);
  CHECK_FALSE(backend_options(c.analysis).block_solver.float_factors);
  CHECK(backend_options(c.analysis).block_solver.take_out_held_rows);
}

TEST_CASE("defaults: static analysis, no output object, no gravity", "[loader]") {
  TempCase file(R"({
    "name": "minimal",
    "model": {
      "dimension": 2,
      "materials": {"m": {"youngs_modulus": 1e9, "density": 1000}},
      "sections": {"s": {"shape": "rectangle", "width": 0.03, "height": 0.01}},
      "bodies": [{"name": "beam", "element": "beam2d", "generator": "straight", "start": [0, 0], "end": [0, 1],
                  "elements": 2, "material": "m", "section": "s"}]
    },
    "analysis": {"type": "static"}
  })");
  const Case c = load_case(file.path);
  CHECK(c.model.dimension == 2);
  CHECK(c.model.node_count == 3);
  CHECK(c.model.dof_count() == 12);
  CHECK(c.model.gravity[0] == 0.0);
  CHECK(c.model.gravity[1] == 0.0);
  CHECK(c.model.constraint_count() == 0);
  CHECK(c.model.elements.properties[0].eta == 0.0);
  CHECK(c.model.elements.properties[0].EI == Approx(1e9 * 0.03 * 1e-6 / 12.0));
  CHECK(c.model.elements.properties[0].EA == Approx(1e9 * 0.03 * 0.01));
  REQUIRE(c.analysis.type == AnalysisSettings::Type::Static);
  CHECK(c.analysis.statics.load_steps == StaticSettings{}.load_steps);
  CHECK(c.analysis.statics.max_iterations == StaticSettings{}.max_iterations);
  CHECK(c.analysis.statics.tolerance == StaticSettings{}.tolerance);
  CHECK(c.output.directory.empty());
  CHECK(c.output.nodes.empty());
  CHECK(c.output.vtu);
  CHECK(c.output.vtu_samples_per_element == 4);
  CHECK(c.output.vtu_encoding == VtuEncoding::binary);
  CHECK(c.output.interval == 0.0);
}

TEST_CASE("2D frame: arcs, node lines, joints and node references", "[loader]") {
  TempCase file(R"({
    "name": "frame",
    "model": {
      "dimension": 2,
      "gravity": [0, -9.81],
      "materials": {"alu": {"youngs_modulus": 7e10, "density": 2700}},
      "sections": {"g": {"shape": "general", "area": 3e-4, "inertia": 7e-9}},
      "bodies": [
        {"name": "post", "element": "beam2d", "generator": "nodes", "positions": [[0, 0], [0, 0.5], [0, 1]],
         "slopes": [[0, 1], [0, 1], [0, 1]], "material": "alu", "section": "g"},
        {"name": "bow", "element": "beam2d", "generator": "arc", "centre": [0.5, 1], "radius": 0.5,
         "start_angle": 3.141592653589793, "end_angle": 0, "elements": 6, "material": "alu", "section": "g"},
        {"name": "bar", "element": "beam2d", "generator": "straight", "start": [1, 1], "end": [1, 0],
         "elements": 3, "material": "alu", "section": "g"}
      ],
      "constraints": [
        {"type": "fix", "node": {"body": "post", "index": "start"}, "coordinates": "all"},
        {"type": "rigid", "name": "corner", "nodes": [{"body": "post", "index": "end"}, {"body": "bow", "index": 0}]},
        {"type": "revolute", "name": "pin", "nodes": [{"body": "bow", "index": "end"}, {"body": "bar", "index": "start"}]},
        {"type": "spherical", "node": {"body": "bar", "index": -1}}
      ]
    },
    "analysis": {"type": "static", "load_steps": 5, "max_iterations": 20, "tolerance": 1e-9}
  })");
  const Case c = load_case(file.path);
  const Model& m = c.model;
  REQUIRE(m.bodies.size() == 3);
  CHECK(m.bodies[0].node_count == 3);
  CHECK(m.bodies[1].node_count == 7);
  CHECK(m.bodies[2].first_node == 10);
  CHECK(m.node_count == 14);
  // The arc's elements have the arc length.
  for (int e = m.bodies[1].first_element; e < m.bodies[1].first_element + 6; ++e)
    CHECK(m.elements.properties[e].length == Approx(0.5 * kPi / 6));
  // Node-line elements: straight segments of length 0.5.
  CHECK(m.elements.properties[0].length == Approx(0.5));
  REQUIRE(m.constraint_groups.size() == 4);
  CHECK(m.constraint_groups[1].row_count == 4);  // rigid, 2D: x, y, slope_x, slope_y
  CHECK(m.constraint_groups[2].row_count == 2);  // revolute: x, y
  CHECK(m.constraint_groups[2].type == "revolute");
  const ConstraintRow& pin_x = m.constraint_rows[m.constraint_groups[2].first_row];
  CHECK(pin_x.dofs == std::vector<int>{9 * 4, 10 * 4});
  CHECK(pin_x.coefficients == std::vector<double>{1.0, -1.0});
  // Spherical without a point: the node's initial position.
  const ConstraintRow& sy = m.constraint_rows[m.constraint_groups[3].first_row + 1];
  CHECK(sy.dofs == std::vector<int>{13 * 4 + 1});
  CHECK(sy.offset == Approx(0.0).margin(1e-12));
  CHECK(c.analysis.statics.load_steps == 5);
  CHECK(c.analysis.statics.max_iterations == 20);
  CHECK(c.analysis.statics.tolerance == Approx(1e-9));
}

TEST_CASE("slack cable: length and sag direction", "[loader]") {
  TempCase file(R"({
    "name": "slack",
    "model": {
      "dimension": 3,
      "gravity": [0, 0, -9.81],
      "materials": {"steel": {"youngs_modulus": 2e11, "density": 7800}},
      "sections": {"rod": {"shape": "circle", "diameter": 0.01}},
      "bodies": [{"name": "c", "element": "cable3d", "generator": "straight", "start": [0, 0, 0], "end": [1, 0, 0],
                  "elements": 10, "length": 1.2, "material": "steel", "section": "rod"}],
      "constraints": [
        {"type": "spherical", "node": {"body": "c", "index": "start"}, "point": [0, 0, 0]},
        {"type": "spherical", "node": {"body": "c", "index": "end"}}
      ]
    },
    "analysis": {"type": "static"}
  })");
  const Case c = load_case(file.path);
  const Model& m = c.model;
  double length = 0.0;
  for (const auto& p : m.elements.properties) length += p.length;
  CHECK(length == Approx(1.2));
  // Sags along gravity (-z) by default.
  const int mid = 5 * 6;
  CHECK(m.initial_positions[mid + 2] < -0.1);
  CHECK(m.initial_positions[mid + 1] == Approx(0.0).margin(1e-12));
}

TEST_CASE("constraint check: independent rows pass, dependent rows are reported", "[loader][constraints]") {
  Model m;
  m.dimension = 3;
  const LineProperties props{1e6, 1.0, 1.0, 0.0};
  const int a = add_straight_line(m, "a", {0, 0, 0}, {1, 0, 0}, 4, props);
  const int b = add_straight_line(m, "b", {1, 0, 0}, {2, 0, 0}, 4, props);
  finalize_model(m);
  add_fix(m, body_node(m, a, 0), {0, 1, 2}, "pin", "/pin");
  add_node_joint(m, body_node(m, a, -1), body_node(m, b, 0), false, "hinge", "hinge", "/hinge");
  add_fix(m, body_node(m, b, -1), {0, 1, 2, 3, 4, 5}, "clamp", "/clamp");
  CHECK_NOTHROW(check_constraints(m, "model"));

  // Fixing x of b's first node again: implied by nothing (a's end is free) -> still fine.
  add_fix(m, body_node(m, b, 0), {0}, "bx", "/bx");
  CHECK_NOTHROW(check_constraints(m, "model"));
  // Now fixing x of a's end duplicates hinge + bx.
  add_fix(m, body_node(m, a, -1), {0, 1}, "ax", "/ax");
  try {
    check_constraints(m, "model");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(e.json_path() == "/ax");
    CHECK(e.rule().find("constraint 'ax' (fix at /ax)") != std::string::npos);
    CHECK(e.rule().find("redundant with 'hinge' (hinge at /hinge), 'bx' (fix at /bx)") != std::string::npos);
    CHECK(e.rule().find("'x'") != std::string::npos);
    CHECK(e.rule().find("'y'") == std::string::npos);  // y of the same group is independent
  }
}

TEST_CASE("constraint check: prescribed motion that disagrees is a contradiction", "[loader][constraints]") {
  Model m;
  m.dimension = 2;
  const LineProperties props{1e6, 1.0, 1.0, 0.0};
  const int a = add_straight_line(m, "a", {0, 0, 0}, {1, 0, 0}, 2, props);
  finalize_model(m);
  TimeFunction ramp;
  ramp.kind = TimeFunction::Kind::LinearRamp;
  ramp.t0 = 0.0;
  ramp.t1 = 1.0;
  ramp.v1 = 0.1;
  add_prescribed_motion(m, body_node(m, a, -1), {1}, {ramp}, "lift", "/lift");
  add_fix(m, body_node(m, a, -1), {1}, "hold", "/hold");
  try {
    check_constraints(m, "model");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(e.json_path() == "/hold");
    CHECK(e.rule().find("it contradicts 'lift' (prescribed at /lift)") != std::string::npos);
  }
}

TEST_CASE("constraint check is cheap on a long cable", "[loader][constraints]") {
  Model m;
  m.dimension = 3;
  const LineProperties props{1e6, 1.0, 1.0, 0.0};
  const int a = add_straight_line(m, "long", {0, 0, 0}, {100, 0, 0}, 10000, props);
  finalize_model(m);
  add_fix(m, body_node(m, a, 0), {0, 1, 2, 3, 4, 5}, "clamp", "/c0");
  add_spherical_to_ground(m, body_node(m, a, -1), {100, 0, 0}, "end", "/c1");
  CHECK_NOTHROW(check_constraints(m, "model"));
  // A chain of joints between consecutive nodes makes row sets too large for the dense path.
  for (int i = 0; i < 1500; ++i)
    add_node_joint(m, body_node(m, a, i), body_node(m, a, i + 1), true, "rigid", "r" + std::to_string(i), "/r");
  CHECK_NOTHROW(check_constraints(m, "model"));
  // x of node 1500 is now tied to the clamped node 0 through the chain.
  add_fix(m, body_node(m, a, 1500), {0}, "again", "/again");
  try {
    check_constraints(m, "model");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(e.json_path() == "/again");
    CHECK(e.rule().find("constraint 'again' (fix at /again) is redundant with or contradicts") != std::string::npos);
    CHECK(e.rule().find("'clamp' (fix at /c0)") != std::string::npos);
    CHECK(e.rule().find("more") != std::string::npos);
  }
}

TEST_CASE("the complete examples in docs/case-format.md load", "[loader]") {
  std::ifstream in(std::string(CATENARY_SOURCE_DIR) + "/docs/case-format.md");
  REQUIRE(in);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string doc = buffer.str();
  int examples = 0;
  for (size_t pos = doc.find("```json\n"); pos != std::string::npos; pos = doc.find("```json\n", pos)) {
    pos += 8;
    const size_t end = doc.find("```", pos);
    REQUIRE(end != std::string::npos);
    const std::string block = doc.substr(pos, end - pos);
    pos = end + 3;
    if (block.find("\"analysis\"") == std::string::npos) continue;  // a fragment, not a case
    TempCase file(block);
    INFO(block);
    CHECK_NOTHROW(load_case(file.path));
    ++examples;
  }
  CHECK(examples >= 2);
}

TEST_CASE("constraint check on a large joint set names exactly the constraints involved", "[loader][constraints]") {
  // 200 spokes hinged together at the origin: the x rows of the hinges form one set of 199 rows,
  // too large for the dense path.
  Model m;
  m.dimension = 3;
  const LineProperties props{1e6, 1.0, 1.0, 0.0};
  for (int i = 0; i < 200; ++i) {
    const double a = 2.0 * kPi * i / 200;
    add_straight_line(m, "s" + std::to_string(i), {0, 0, 0}, {std::cos(a), std::sin(a), 0}, 2, props);
  }
  finalize_model(m);
  add_spherical_to_ground(m, body_node(m, 0, 0), {0, 0, 0}, "pin", "/pin");
  for (int i = 1; i < 200; ++i)
    add_node_joint(m, body_node(m, 0, 0), body_node(m, i, 0), false, "hinge", "h" + std::to_string(i),
                   "/h" + std::to_string(i));
  CHECK_NOTHROW(check_constraints(m, "model"));
  add_fix(m, body_node(m, 150, 0), {2}, "again", "/again");
  try {
    check_constraints(m, "model");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(e.json_path() == "/again");
    CHECK(e.rule().find("it is redundant with 'pin' (spherical at /pin), 'h150' (hinge at /h150): coordinate(s) 'z'") !=
          std::string::npos);
  }
  m.constraint_rows.back().offset = 0.5;  // the same row asking for z = 0.5 contradicts
  try {
    check_constraints(m, "model");
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(e.rule().find("it contradicts 'pin' (spherical at /pin), 'h150' (hinge at /h150)") != std::string::npos);
  }
}
