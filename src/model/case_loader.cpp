#include "catenary/model/case_loader.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/core/small_matrix.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/constraint_check.hpp"
#include "catenary/model/sweep.hpp"
#include "case_reading.hpp"
#include "mechanism_reader.hpp"

namespace catenary {

namespace {

using namespace case_reading;

struct Material {
  double E = 0.0, density = 0.0, damping = 0.0;
};
struct Section {
  double area = 0.0, inertia = 0.0;
};

class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  Case load(const json& doc) {
    const Node root{doc, "", file_};
    expect_object(root, {"name", "description", "model", "analysis", "output", "sweep"});
    Case c;
    c.source_file = file_;
    c.name = get_name(root.required("name"));
    if (root.has("description")) get_string(root.child("description"));
    read_model(root.required("model"), c.model);
    read_analysis(root.required("analysis"), c.analysis);
    if (root.has("output")) read_output(root.child("output"), c.model, c.output);
    check_constraints(c.model, file_);
    check_mechanism(c.model, mechanism_paths_, file_);
    check_analysis_fits(root.child("analysis"), c);
    return c;
  }

 private:
  std::string file_;
  std::map<std::string, Material> materials_;
  std::map<std::string, Section> sections_;
  std::vector<std::string> body_paths_;
  std::map<std::string, std::string> constraint_names_;  // name -> json path
  MechanismPaths mechanism_paths_;

  void read_model(const Node& n, Model& m) {
    expect_object(n, {"dimension", "gravity", "materials", "sections", "bodies", "constraints", "loads", "rigid_bodies",
                      "joints", "drivers", "springs", "rotational_springs", "body_loads", "attachments"});
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
    finalize_model(m);
  }

  void read_materials(const Node& n) {
    if (!n.v.is_object()) n.fail("must be an object mapping material names to materials" + n.got());
    if (n.v.empty()) n.fail("must define at least one material");
    for (auto it = n.v.begin(); it != n.v.end(); ++it) {
      const Node mat = n.child(it.key());
      expect_object(mat, {"youngs_modulus", "density", "damping"});
      Material out;
      out.E = get_positive(mat.required("youngs_modulus"));
      out.density = get_positive(mat.required("density"));
      out.damping = mat.has("damping") ? get_non_negative(mat.child("damping")) : 0.0;
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
        expect_object(sec, {"shape", "diameter"});
        const double d = get_positive(sec.required("diameter"));
        out.area = kPi * d * d / 4.0;
        out.inertia = kPi * d * d * d * d / 64.0;
      } else if (shape == "rectangle") {
        expect_object(sec, {"shape", "width", "height"});
        const double w = get_positive(sec.required("width"));
        const double h = get_positive(sec.required("height"));
        out.area = w * h;
        out.inertia = w * h * h * h / 12.0;
      } else {
        expect_object(sec, {"shape", "area", "inertia"});
        out.area = get_positive(sec.required("area"));
        out.inertia = get_positive(sec.required("inertia"));
      }
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

  void read_analysis(const Node& n, AnalysisSettings& a) {
    if (!n.v.is_object()) n.fail("must be an object" + n.got());
    const std::string type =
        get_choice(n.required("type"), {"static", "dynamic", "assembly", "kinematic"}, "analysis type");
    if (type == "assembly") {
      expect_object(n, {"type"});
      a.type = AnalysisSettings::Type::Assembly;
      return;
    }
    if (type == "kinematic") {
      expect_object(n, {"type", "end_time", "step"});
      a.type = AnalysisSettings::Type::Kinematic;
      a.kinematics.end_time = get_positive(n.required("end_time"));
      a.kinematics.step = get_positive(n.required("step"));
      return;
    }
    if (n.has("linear_solver")) {
      const std::string solver = get_choice(n.child("linear_solver"), kLinearSolverNames, "linear solver");
      a.linear_solver = *linear_solver_from_name(solver);  // get_choice admitted only these names
    }
    if (type == "static") {
      expect_object(n, {"type", "load_steps", "max_iterations", "tolerance", "linear_solver"});
      a.type = AnalysisSettings::Type::Static;
      StaticSettings& s = a.statics;
      if (n.has("load_steps")) s.load_steps = get_positive_int(n.child("load_steps"));
      if (n.has("max_iterations")) s.max_iterations = get_positive_int(n.child("max_iterations"));
      if (n.has("tolerance")) s.tolerance = get_positive(n.child("tolerance"));
      return;
    }
    expect_object(n, {"type", "end_time", "step", "integrator", "alpha", "rho_infinity", "max_order",
                      "max_iterations", "tolerance", "adaptive", "formulation", "newton", "linear_solver",
                      "float_factors"});
    a.type = AnalysisSettings::Type::Dynamic;
    DynamicSettings& d = a.dynamics;
    d.end_time = get_positive(n.required("end_time"));
    const Node step = n.required("step");
    d.step = get_positive(step);
    // Each integrator takes only its own parameter (numerical damping, or the BDF order).
    struct Method {
      const char* name;
      DynamicSettings::Integrator integrator;
      const char* parameter;
    };
    static const Method methods[] = {{"hht", DynamicSettings::Integrator::HHT, "alpha"},
                                     {"generalized_alpha", DynamicSettings::Integrator::GeneralizedAlpha, "rho_infinity"},
                                     {"bdf", DynamicSettings::Integrator::BDF, "max_order"}};
    const std::string chosen =
        n.has("integrator") ? get_choice(n.child("integrator"), {"hht", "generalized_alpha", "bdf"}, "integrator") : "hht";
    const Method* method = &methods[0];
    for (const Method& m : methods)
      if (chosen == m.name) method = &m;
    d.integrator = method->integrator;
    for (const Method& other : methods)
      if (&other != method && n.has(other.parameter))
        n.child(other.parameter)
            .fail(std::string("is a parameter of the ") + other.name + " integrator; this analysis uses " +
                  method->name + (n.has("integrator") ? "" : " (the default)") + ", whose parameter is '" +
                  method->parameter + "'");
    if (n.has("alpha")) {
      const Node an = n.child("alpha");
      d.alpha = get_number(an);
      if (!(d.alpha >= -1.0 / 3.0 - 1e-15 && d.alpha <= 0.0))
        an.fail("must be between -1/3 and 0 (got " + format_number(d.alpha) + ")");
    }
    if (n.has("rho_infinity")) {
      const Node rn = n.child("rho_infinity");
      d.rho_infinity = get_number(rn);
      if (!(d.rho_infinity >= 0.0 && d.rho_infinity <= 1.0))
        rn.fail("must be between 0 and 1 (got " + format_number(d.rho_infinity) + ")");
    }
    if (n.has("max_order")) {
      const Node on = n.child("max_order");
      d.max_order = get_int(on);
      if (d.max_order < 1 || d.max_order > 5) on.fail("must be an integer from 1 to 5 (got " + std::to_string(d.max_order) + ")");
    }
    if (n.has("float_factors")) a.float_factors = get_bool(n.child("float_factors"));
    if (n.has("max_iterations")) d.max_iterations = get_positive_int(n.child("max_iterations"));
    if (n.has("tolerance")) d.newton_tolerance = get_positive(n.child("tolerance"));
    if (n.has("formulation"))
      d.formulation = get_choice(n.child("formulation"), {"index3", "stabilized_index2"}, "constraint formulation") ==
                              "index3"
                          ? DynamicSettings::Formulation::Index3
                          : DynamicSettings::Formulation::StabilizedIndex2;
    if (n.has("newton"))
      d.newton = get_choice(n.child("newton"), {"full", "modified"}, "Newton method") == "full"
                     ? DynamicSettings::Newton::Full
                     : DynamicSettings::Newton::Modified;
    if (n.has("adaptive")) {
      const Node ad = n.child("adaptive");
      expect_object(ad, {"min_step", "max_step", "error_tolerance"});
      d.adaptive = true;
      if (ad.has("min_step")) d.min_step = get_positive(ad.child("min_step"));
      if (ad.has("max_step")) d.max_step = get_positive(ad.child("max_step"));
      if (ad.has("error_tolerance")) d.error_tolerance = get_positive(ad.child("error_tolerance"));
      if (d.max_step < d.min_step)
        (ad.has("max_step") ? ad.child("max_step") : ad.child("min_step"))
            .fail("max_step (" + format_number(d.max_step) + ") must not be smaller than min_step (" +
                  format_number(d.min_step) + ")");
      if (d.step < d.min_step || d.step > d.max_step)
        step.fail("the initial step of an adaptive analysis must lie between min_step (" +
                  format_number(d.min_step) + ") and max_step (" + format_number(d.max_step) + ")");
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

  void read_output(const Node& n, const Model& m, OutputSettings& o) {
    expect_object(n, {"directory", "interval", "nodes", "vtu", "vtu_samples_per_element"});
    if (n.has("directory")) o.directory = get_name(n.child("directory"));
    if (n.has("interval")) o.interval = get_non_negative(n.child("interval"));
    if (n.has("nodes")) {
      const Node nodes = n.child("nodes");
      if (!nodes.v.is_array()) nodes.fail("must be an array of node references" + nodes.got());
      for (size_t i = 0; i < nodes.v.size(); ++i) {
        const NodeRef r = read_node_ref(nodes.at(i), m);
        o.nodes.push_back(OutputNode{r.label, r.node});
      }
    }
    if (n.has("vtu")) o.vtu = get_bool(n.child("vtu"));
    if (n.has("vtu_samples_per_element"))
      o.vtu_samples_per_element = get_positive_int(n.child("vtu_samples_per_element"));
  }
};

}  // namespace

namespace {

json read_case_document(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "", "is a directory, not a case file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot open the case file: ") + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path, "", "cannot read the case file");
  return parse_strict(buffer.str(), path);
}

}  // namespace

Case load_case(const std::string& path) {
  const json doc = read_case_document(path);
  if (doc.is_object() && doc.contains("sweep"))
    throw InputError(path, "/sweep", "a sweep runs with `catenary run` (and `catenary check`); this command takes a single case");
  return Loader(path).load(doc);
}

std::vector<SweepCase> load_cases(const std::string& path, const CopySelection& selection) {
  const json doc = read_case_document(path);
  std::vector<SweepCase> cases;
  const std::vector<SweepCopyDocument> copies = expand_sweep(doc, path);
  const bool has_sweep = doc.is_object() && doc.contains("sweep");
  if (selection.kind != CopySelection::Kind::All && !has_sweep)
    throw InputError(path, "/sweep", selection.option + " selects copies of a sweep, and this case has no sweep");
  std::pair<size_t, size_t> span;
  try {
    span = selected_copies(selection, copies.size());
  } catch (const std::invalid_argument& e) {
    throw InputError(path, "/sweep", e.what());
  }
  if (copies.size() > 1 && doc.is_object() && doc.contains("analysis") && doc["analysis"].is_object() &&
      doc["analysis"].contains("type") && doc["analysis"]["type"].is_string()) {
    const std::string type = doc["analysis"]["type"].get<std::string>();
    if (type == "assembly" || type == "kinematic")
      throw InputError(path, "/analysis/type", "a sweep runs static or dynamic analyses only (got '" + type + "')");
  }
  for (size_t k = span.first; k <= span.second; ++k) {
    try {
      cases.push_back({copies[k].label, copies[k].values, Loader(path).load(copies[k].document), k, copies.size()});
    } catch (const InputError& e) {
      if (copies.size() == 1) throw;
      throw InputError(e.file(), e.json_path(), e.rule() + " (in sweep copy " + std::to_string(k) + ": " + copies[k].label + ")");
    }
  }
  return cases;
}

}  // namespace catenary
