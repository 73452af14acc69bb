// One case's document read into a Case (docs/case-format.md): the model's materials, sections,
// bodies, constraints and loads here, the analysis, output, mechanism, contacts, water and
// sensitivities by their readers (*_reader.cpp); a sweep's copies in sweep_copy_loader.cpp.
#include "catenary/model/case_loader.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/core/host_memory.hpp"
#include "catenary/core/small_matrix.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/constraint_check.hpp"
#include "catenary/model/model_size.hpp"
#include "analysis_reader.hpp"
#include "case_document.hpp"
#include "case_fingerprint.hpp"
#include "case_reading.hpp"
#include "contact_reader.hpp"
#include "mechanism_reader.hpp"
#include "output_reader.hpp"
#include "sensitivity_reader.hpp"
#include "water_reader.hpp"

namespace catenary {

namespace {

using namespace case_reading;

struct Material {
  double E = 0.0, density = 0.0, damping = 0.0;
  StrainLaw strain_law = StrainLaw::reissner;
};
struct Section {
  double area = 0.0, inertia = 0.0;
  // The outer diameter the VTU frames draw: a circle's own, else that of the circle of the
  // section's area.
  double diameter = 0.0;
};

class Loader {
 public:
  Loader(std::string file, const CaseLimits& limits) : file_(std::move(file)), limits_(limits) {}

  Case load(const json& doc) {
    const Node root{doc, "", file_};
    expect_object(root, {"name", "description", "model", "analysis", "output", "sweep", "sensitivity"});
    Case c;
    c.source_file = file_;
    c.fingerprint = case_fingerprint(doc);
    c.name = read_case_name(root.required("name"));
    if (root.has("description")) get_string(root.child("description"));
    read_model(root.required("model"), c.model);
    read_analysis(root.required("analysis"), c.analysis);
    if (root.has("output")) {
      const Node output = root.child("output");
      read_output(output, c.model, c.output);
      if (output.has("interval")) check_output_interval(output.child("interval"), c.analysis, c.output.interval);
      for (const char* key : {"checkpoint_interval", "checkpoint_wall_interval"})
        if (output.has(key) && c.analysis.type != AnalysisSettings::Type::Dynamic)
          output.child(key).fail("checkpoints are written by dynamic analyses only (this analysis is of another type)");
    }
    check_constraints(c.model, file_);
    check_mechanism(c.model, mechanism_paths_, file_);
    check_analysis_fits(root.child("analysis"), c);
    read_sensitivity(root, c);
    return c;
  }

 private:
  std::string file_;
  CaseLimits limits_;
  std::map<std::string, Material> materials_;
  std::map<std::string, Section> sections_;
  std::vector<std::string> body_paths_;
  std::map<std::string, std::string> constraint_names_;  // name -> json path
  MechanismPaths mechanism_paths_;

  // Refuses, before anything is built, a model whose elements (as the bodies ask for them) would
  // not fit in the machine's memory: building one takes 600 bytes an element (a 1,000,000-element
  // cable's check peaked at 606 MB; docs/performance.md, Host memory).
  void check_model_fits(const Node& bodies) const {
    constexpr double kBuildBytesPerElement = 600.0;
    double elements = 0.0;
    for (const json& body : bodies.v) {
      if (!body.is_object()) continue;  // read_body says what is wrong with it
      if (body.contains("elements") && body["elements"].is_number()) elements += body["elements"].get<double>();
      if (body.contains("positions") && body["positions"].is_array()) elements += double(body["positions"].size());
    }
    const double need = kBuildBytesPerElement * elements, have = limits_.memory_bytes;
    if (have > 0.0 && need > have)
      bodies.fail("the bodies ask for " + format_number(elements) + " elements, which need about " +
                  gibibytes(need) + " of memory to build; this machine has " + gibibytes(have));
  }

  // The case's name names its default output directory, results/NAME: a name, not a path.
  static std::string read_case_name(const Node& n) {
    const std::string name = get_name(n);
    if (name == "." || name == ".." || name.find_first_of("/\\") != std::string::npos)
      n.fail("must be a name, not a path: no '/' or '\\', and not '.' or '..' (got '" + shown(name) +
             "'; it names the default output directory results/NAME)");
    return name;
  }

  void read_model(const Node& n, Model& m) {
    expect_object(n, {"dimension", "gravity", "materials", "sections", "bodies", "constraints", "loads", "rigid_bodies",
                      "joints", "drivers", "springs", "rotational_springs", "body_loads", "attachments", "contacts", "water"});
    const Node dim = n.required("dimension");
    const int D = get_int(dim, "must be 2 or 3");
    if (D != 2 && D != 3) dim.fail("must be 2 or 3 (got " + std::to_string(D) + ")");
    m.dimension = D;
    if (n.has("gravity")) {
      const Vec3 g = get_vector(n.child("gravity"), D);
      for (int i = 0; i < 3; ++i) m.gravity[i] = g[i];
    }
    // A model of rigid bodies alone needs no cables (nor materials and sections for them).
    const bool rigid = n.has("rigid_bodies");
    if (!rigid || n.has("materials")) read_materials(n.required("materials"));
    if (!rigid || n.has("sections")) read_sections(n.required("sections"));

    if (!rigid || n.has("bodies")) {
      const Node bodies = n.required("bodies");
      if (!bodies.v.is_array()) bodies.fail("must be an array of bodies" + bodies.got());
      if (bodies.v.empty() && !rigid) bodies.fail("must list at least one body");
      check_model_fits(bodies);
      for (size_t i = 0; i < bodies.v.size(); ++i) read_body(bodies.at(i), m);
    }

    if (n.has("constraints")) {
      const Node cs = n.child("constraints");
      if (!cs.v.is_array()) cs.fail("must be an array of constraints" + cs.got());
      for (size_t i = 0; i < cs.v.size(); ++i) read_constraint(cs.at(i), i, m);
    }
    if (n.has("loads")) {
      const Node ls = n.child("loads");
      if (!ls.v.is_array()) ls.fail("must be an array of loads" + ls.got());
      for (size_t i = 0; i < ls.v.size(); ++i) read_load(ls.at(i), m);
    }
    read_mechanism(n, m, mechanism_paths_);
    read_contacts(n, m);
    read_water(n, m);
    finalize_model(m);
  }

  void read_materials(const Node& n) {
    if (!n.v.is_object()) n.fail("must be an object mapping material names to materials" + n.got());
    if (n.v.empty()) n.fail("must define at least one material");
    for (auto it = n.v.begin(); it != n.v.end(); ++it) {
      const Node mat = n.child(it.key());
      expect_object(mat, {"youngs_modulus", "density", "damping", "strain_law"});
      Material out;
      out.E = get_positive(mat.required("youngs_modulus"));
      out.density = get_positive(mat.required("density"));
      out.damping = mat.has("damping") ? get_non_negative(mat.child("damping")) : 0.0;
      if (mat.has("strain_law") &&
          get_choice(mat.child("strain_law"), {"reissner", "green_lagrange"}, "strain law") == "green_lagrange")
        out.strain_law = StrainLaw::green_lagrange;
      materials_[it.key()] = out;
    }
  }

  void read_sections(const Node& n) {
    if (!n.v.is_object()) n.fail("must be an object mapping section names to sections" + n.got());
    if (n.v.empty()) n.fail("must define at least one section");
    for (auto it = n.v.begin(); it != n.v.end(); ++it) {
      const Node sec = n.child(it.key());
      if (!sec.v.is_object()) sec.fail("must be an object" + sec.got());
      const std::string shape = get_choice(sec.required("shape"), {"circle", "rectangle", "general"}, "section shape");
      Section out;
      if (shape == "circle") {
        expect_object(sec, {"shape", "diameter", "hydrodynamics"});
        const double d = get_positive(sec.required("diameter"));
        out.area = kPi * d * d / 4.0;
        out.inertia = kPi * d * d * d * d / 64.0;
        out.diameter = d;
      } else if (shape == "rectangle") {
        expect_object(sec, {"shape", "width", "height", "hydrodynamics"});
        const double w = get_positive(sec.required("width"));
        const double h = get_positive(sec.required("height"));
        out.area = w * h;
        out.inertia = w * h * h * h / 12.0;
      } else {
        expect_object(sec, {"shape", "area", "inertia", "hydrodynamics"});
        out.area = get_positive(sec.required("area"));
        out.inertia = get_positive(sec.required("inertia"));
      }
      if (shape != "circle") out.diameter = std::sqrt(4.0 * out.area / kPi);
      sections_[it.key()] = out;
    }
  }

  template <class Map>
  std::vector<std::string> names(const Map& map) {
    std::vector<std::string> out;
    for (const auto& kv : map) out.push_back(kv.first);
    return out;
  }

  LineProperties read_properties(const Node& body) {
    const Node mn = body.required("material");
    const std::string mat = get_name(mn);
    auto mi = materials_.find(mat);
    if (mi == materials_.end())
      mn.fail("unknown material '" + mat + "' (" + suggestion(mat, names(materials_)) +
              "defined materials: " + join(names(materials_)) + ")");
    const Node sn = body.required("section");
    const std::string sec = get_name(sn);
    auto si = sections_.find(sec);
    if (si == sections_.end())
      sn.fail("unknown section '" + sec + "' (" + suggestion(sec, names(sections_)) +
              "defined sections: " + join(names(sections_)) + ")");
    LineProperties p;
    p.EA = mi->second.E * si->second.area;
    p.EI = mi->second.E * si->second.inertia;
    p.rhoA = mi->second.density * si->second.area;
    p.eta = mi->second.damping;
    p.strain_law = mi->second.strain_law;
    return p;
  }

  void read_body(const Node& n, Model& m) {
    const int D = m.dimension;
    if (!n.v.is_object()) n.fail("must be an object" + n.got());
    const std::string generator = get_choice(n.required("generator"), {"straight", "arc", "nodes"}, "generator");
    std::vector<std::string> keys = {"name", "element", "generator", "material", "section", "velocity",
                                     "angular_velocity"};
    if (generator == "straight")
      keys.insert(keys.end(), {"start", "end", "elements", "length", "sag_direction"});
    else if (generator == "arc")
      keys.insert(keys.end(), {"centre", "radius", "start_angle", "end_angle", "elements", "u", "v"});
    else
      keys.insert(keys.end(), {"positions", "slopes"});
    expect_object(n, keys);

    const Node name_node = n.required("name");
    const std::string name = get_name(name_node);
    const int existing = find_body(m, name);
    if (existing >= 0) name_node.fail("body name '" + name + "' is already used by " + body_paths_[existing]);
    const Node element = n.required("element");
    const std::string type = get_choice(element, {"cable3d", "beam2d"}, "element type");
    const int needed = type == "cable3d" ? 3 : 2;
    if (needed != D)
      element.fail("element type '" + type + "' needs a model of dimension " + std::to_string(needed) +
                   ", but the model has dimension " + std::to_string(D) + " (use '" +
                   (D == 3 ? "cable3d" : "beam2d") + "')");
    const LineProperties props = read_properties(n);

    try {
      if (generator == "straight") {
        const Vec3 start = get_vector(n.required("start"), D);
        const Node end_node = n.required("end");
        const Vec3 end = get_vector(end_node, D);
        const Vec3 chord = {end[0] - start[0], end[1] - start[1], end[2] - start[2]};
        const double c = vec_norm(chord);
        if (!(c > 1e-12)) end_node.fail("coincides with 'start' (the line would have zero length)");
        const int elements = get_positive_int(n.required("elements"));
        double length = 0.0;
        if (n.has("length")) {
          const Node ln = n.child("length");
          length = get_positive(ln);
          if (length < c * (1.0 - 1e-12))
            ln.fail("must not be shorter than the distance between start and end (" + format_number(c) + ")");
        }
        Vec3 sag = {0.0, 0.0, 0.0};
        sag[D - 1] = -1.0;
        const Vec3 g = {m.gravity[0], m.gravity[1], m.gravity[2]};
        if (vec_norm(g) > 0.0) sag = g;
        if (n.has("sag_direction")) {
          const Node sn = n.child("sag_direction");
          sag = get_vector(sn, D);
          if (!(vec_norm(sag) > 0.0)) sn.fail("must not be the zero vector");
          if (length > c * (1.0 + 1e-12)) {
            const double along = dot(sag, chord) / c;
            if (!(vec_norm(sag) * vec_norm(sag) - along * along > 1e-20 * vec_norm(sag) * vec_norm(sag)))
              sn.fail("must not be parallel to the line from start to end");
          }
        }
        add_straight_line(m, name, start, end, elements, props, length, sag);
      } else if (generator == "arc") {
        const Vec3 centre = get_vector(n.required("centre"), D);
        const double radius = get_positive(n.required("radius"));
        const double a0 = get_number(n.required("start_angle"));
        const Node a1n = n.required("end_angle");
        const double a1 = get_number(a1n);
        if (!(std::fabs(a1 - a0) > 1e-12)) a1n.fail("must differ from start_angle");
        const int elements = get_positive_int(n.required("elements"));
        Vec3 u = {1.0, 0.0, 0.0}, v = {0.0, 1.0, 0.0};
        if (n.has("u")) {
          u = get_vector(n.child("u"), D);
          if (std::fabs(vec_norm(u) - 1.0) > 1e-9) n.child("u").fail("must be a unit vector");
        }
        if (n.has("v")) {
          v = get_vector(n.child("v"), D);
          if (std::fabs(vec_norm(v) - 1.0) > 1e-9) n.child("v").fail("must be a unit vector");
        }
        if (std::fabs(dot(u, v)) > 1e-9)
          (n.has("v") ? n.child("v") : n.child("u")).fail("u and v must be perpendicular");
        add_arc(m, name, centre, radius, a0, a1, elements, props, u, v);
      } else {
        const Node pn = n.required("positions");
        if (!pn.v.is_array()) pn.fail("must be an array of node positions" + pn.got());
        if (pn.v.size() < 2) pn.fail("must list at least two nodes");
        std::vector<Vec3> positions, slopes;
        for (size_t i = 0; i < pn.v.size(); ++i) {
          positions.push_back(get_vector(pn.at(i), D));
          if (i > 0) {
            const Vec3& a = positions[i - 1];
            const Vec3& b = positions[i];
            if (!(vec_norm(Vec3{b[0] - a[0], b[1] - a[1], b[2] - a[2]}) > 1e-12))
              pn.at(i).fail("coincides with the previous node (zero-length element)");
          }
        }
        const Node sn = n.required("slopes");
        if (!sn.v.is_array()) sn.fail("must be an array of node slopes" + sn.got());
        if (sn.v.size() != pn.v.size())
          sn.fail("must have one slope per position (" + std::to_string(pn.v.size()) + " positions, " +
                  std::to_string(sn.v.size()) + " slopes)");
        for (size_t i = 0; i < sn.v.size(); ++i) {
          slopes.push_back(get_vector(sn.at(i), D));
          if (!(vec_norm(slopes.back()) > 1e-12)) sn.at(i).fail("must not be the zero vector");
        }
        add_node_line(m, name, positions, slopes, props);
      }
    } catch (const ModelError& e) {
      n.fail(e.what());
    }
    read_body_velocity(n, m);
    m.bodies.back().element_type = type;
    m.bodies.back().diameter = sections_.at(get_name(n.child("section"))).diameter;
    body_paths_.push_back(n.path);
  }

  // The optional rigid motion a line body starts with: its centre of mass's velocity and its
  // angular velocity about that centre (a vector in 3D, a number, about z, in 2D).
  void read_body_velocity(const Node& n, Model& m) {
    if (!n.has("velocity") && !n.has("angular_velocity")) return;
    const int D = m.dimension;
    const Vec3 velocity = n.has("velocity") ? get_vector(n.child("velocity"), D) : Vec3{0.0, 0.0, 0.0};
    Vec3 angular_velocity = {0.0, 0.0, 0.0};
    if (n.has("angular_velocity")) {
      const Node w = n.child("angular_velocity");
      if (D == 3) {
        angular_velocity = get_vector(w, 3);
      } else {
        if (!w.v.is_number()) w.fail("must be a number (the rotation rate about z of a planar model, rad/s)" + w.got());
        angular_velocity[2] = w.v.get<double>();
      }
    }
    set_rigid_velocity(m, static_cast<int>(m.bodies.size()) - 1, velocity, angular_velocity);
  }

  std::vector<int> read_coordinates(const Node& n, int D) {
    static const char* axes[] = {"x", "y", "z"};
    std::vector<std::string> all;
    for (int k = 0; k < D; ++k) all.push_back(axes[k]);
    for (int k = 0; k < D; ++k) all.push_back(std::string("slope_") + axes[k]);
    std::vector<int> out;
    if (n.v.is_string()) {
      const std::string s = n.v.get<std::string>();
      const int from = s == "slope" ? D : 0, to = s == "position" ? D : 2 * D;
      if (s != "all" && s != "position" && s != "slope")
        n.fail("must be \"all\", \"position\", \"slope\" or an array of coordinate names (got \"" + s + "\")");
      for (int k = from; k < to; ++k) out.push_back(k);
      return out;
    }
    if (!n.v.is_array())
      n.fail("must be \"all\", \"position\", \"slope\" or an array of coordinate names" + n.got());
    if (n.v.empty()) n.fail("must list at least one coordinate");
    for (size_t i = 0; i < n.v.size(); ++i) {
      const Node c = n.at(i);
      if (!c.v.is_string()) c.fail("must be a coordinate name (one of: " + join(all) + ")" + c.got());
      const std::string s = c.v.get<std::string>();
      const auto it = std::find(all.begin(), all.end(), s);
      if (it == all.end()) {
        if (D == 2 && (s == "z" || s == "slope_z"))
          c.fail("coordinate '" + s + "' does not exist in a 2D model (expected one of: " + join(all) + ")");
        c.fail("unknown coordinate '" + s + "' (" + suggestion(s, all) + "expected one of: " + join(all) + ")");
      }
      const int k = static_cast<int>(it - all.begin());
      if (std::find(out.begin(), out.end(), k) != out.end()) c.fail("coordinate '" + s + "' is listed twice");
      out.push_back(k);
    }
    return out;
  }

  std::pair<NodeRef, NodeRef> read_node_pair(const Node& n, const Model& m) {
    const Node nodes = n.required("nodes");
    if (!nodes.v.is_array() || nodes.v.size() != 2)
      nodes.fail("must be an array of exactly two node references" +
                 (nodes.v.is_array() ? " (got " + std::to_string(nodes.v.size()) + ")" : nodes.got()));
    const NodeRef a = read_node_ref(nodes.at(0), m);
    const NodeRef b = read_node_ref(nodes.at(1), m);
    if (a.node == b.node)
      nodes.at(1).fail("refers to the same node as the first node reference ('" + a.label +
                       "'); a joint needs two different nodes");
    return {a, b};
  }

  void read_constraint(const Node& n, size_t i, Model& m) {
    const int D = m.dimension;
    if (!n.v.is_object()) n.fail("must be an object" + n.got());
    const Node tn = n.required("type");
    const std::string type =
        get_choice(tn, {"fix", "spherical", "hinge", "rigid", "revolute", "prescribed"}, "constraint type");
    std::vector<std::string> keys = {"type", "name"};
    if (type == "fix")
      keys.insert(keys.end(), {"node", "coordinates"});
    else if (type == "spherical")
      keys.insert(keys.end(), {"node", "point"});
    else if (type == "prescribed")
      keys.insert(keys.end(), {"node", "displacement"});
    else
      keys.push_back("nodes");
    expect_object(n, keys);
    if (type == "hinge" && D == 2)
      tn.fail("constraint type 'hinge' is for 3D models; in a 2D model use 'revolute'");
    if (type == "revolute" && D == 3)
      tn.fail("constraint type 'revolute' is a planar joint for 2D models only; in a 3D model use 'hinge' "
              "(positions coincide)");

    std::string name = "constraints[" + std::to_string(i) + "]";
    if (n.has("name")) {
      const Node nn = n.child("name");
      name = get_name(nn);
    }
    auto dup = constraint_names_.find(name);
    if (dup != constraint_names_.end())
      (n.has("name") ? n.child("name") : n).fail("constraint name '" + name + "' is already used by " + dup->second);
    constraint_names_[name] = n.path;

    try {
      if (type == "fix") {
        const NodeRef node = read_node_ref(n.required("node"), m);
        const std::vector<int> coords = read_coordinates(n.required("coordinates"), D);
        add_fix(m, node.node, coords, name, n.path);
      } else if (type == "spherical") {
        const NodeRef node = read_node_ref(n.required("node"), m);
        Vec3 point = {0.0, 0.0, 0.0};
        const int stride = m.coordinates_per_node();
        for (int k = 0; k < D; ++k) point[k] = m.initial_positions[node.node * stride + k];
        if (n.has("point")) point = get_vector(n.child("point"), D);
        add_spherical_to_ground(m, node.node, point, name, n.path);
      } else if (type == "prescribed") {
        const NodeRef node = read_node_ref(n.required("node"), m);
        const Node dn = n.required("displacement");
        static const char* axes[] = {"x", "y", "z"};
        std::vector<std::string> allowed(axes, axes + D);
        expect_object(dn, allowed);
        if (dn.v.empty()) dn.fail("must give a time function for at least one of: " + join(allowed));
        std::vector<int> components;
        std::vector<TimeFunction> functions;
        for (int k = 0; k < D; ++k) {
          if (!dn.has(axes[k])) continue;
          components.push_back(k);
          functions.push_back(read_time_function(dn.child(axes[k])));
        }
        add_prescribed_motion(m, node.node, components, functions, name, n.path);
      } else {
        const auto pair = read_node_pair(n, m);
        add_node_joint(m, pair.first.node, pair.second.node, type == "rigid", type, name, n.path);
      }
    } catch (const ModelError& e) {
      n.fail(e.what());
    }
  }

  void read_load(const Node& n, Model& m) {
    const int D = m.dimension;
    if (!n.v.is_object()) n.fail("must be an object" + n.got());
    const std::string type = get_choice(n.required("type"), {"point_force", "distributed"}, "load type");
    try {
      if (type == "point_force") {
        expect_object(n, {"type", "node", "force", "function"});
        const NodeRef node = read_node_ref(n.required("node"), m);
        const Vec3 force = get_vector(n.required("force"), D);
        const TimeFunction f = n.has("function") ? read_time_function(n.child("function")) : TimeFunction::constant(1.0);
        add_point_force(m, node.node, force, f);
      } else {
        expect_object(n, {"type", "body", "force_per_length", "function"});
        const int body = read_body_reference(n.required("body"), m);
        const Vec3 force = get_vector(n.required("force_per_length"), D);
        const TimeFunction f = n.has("function") ? read_time_function(n.child("function")) : TimeFunction::constant(1.0);
        add_distributed_load(m, body, force, f);
      }
    } catch (const ModelError& e) {
      n.fail(e.what());
    }
  }

  // A kinematic analysis runs a pure, fully driven rigid mechanism.
  void check_analysis_fits(const Node& analysis, const Case& c) {
    if (c.analysis.type != AnalysisSettings::Type::Kinematic) return;
    const Node tn = analysis.child("type");
    const Model& m = c.model;
    const Mechanism& mech = m.mechanism;
    if (mech.empty()) tn.fail("the kinematic analysis needs a rigid mechanism, but /model/rigid_bodies is missing or empty");
    if (m.node_count > 0)
      tn.fail("the kinematic analysis is for rigid mechanisms alone; this model has " + std::to_string(m.bodies.size()) +
              " cable bod" + (m.bodies.size() == 1 ? "y" : "ies") + " (use a dynamic or static analysis)");
    if (mech.row_count() != mech.coordinate_count()) {
      const int dof = mech.coordinate_count() - mech.row_count();
      tn.fail("the kinematic analysis needs a zero-DOF mechanism (every motion prescribed by drivers): " +
              std::to_string(mech.row_count()) + " independent constraint rows (joints, drivers and one Euler-parameter "
              "normalization per body) for " + std::to_string(mech.coordinate_count()) + " coordinates leave " +
              std::to_string(dof) + " degree(s) of freedom undriven (add drivers, or use a dynamic analysis)");
    }
  }
};

}  // namespace

Case load_case(const std::string& path, const CaseLimits& limits) {
  const json doc = read_case_document(path);
  if (doc.is_object() && doc.contains("sweep"))
    throw InputError(path, "/sweep", "a sweep runs with `catenary run` (and `catenary check`); this command takes a single case");
  return Loader(path, limits).load(doc);
}

Case load_case_document(const json& doc, const std::string& path, const CaseLimits& limits) {
  return Loader(path, limits).load(doc);
}

}  // namespace catenary
