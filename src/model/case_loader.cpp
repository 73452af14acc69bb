#include "catenary/model/case_loader.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <Eigen/Eigenvalues>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/constraint_check.hpp"
#include "catenary/model/sweep.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/assembly/model_operators.hpp"
#include "catenary/multibody/kinematic_analysis.hpp"
#include "catenary/multibody/mechanism_builders.hpp"
#include "catenary/multibody/multibody_block.hpp"
#include "catenary/rigid/euler_parameters.hpp"

namespace catenary {

namespace {

using json = nlohmann::json;

constexpr double kPi = 3.14159265358979323846;

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

std::string format_number(double x) {
  std::ostringstream os;
  os.precision(10);
  os << x;
  return os.str();
}

// Levenshtein distance, for "did you mean" hints.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggestion(const std::string& word, const std::vector<std::string>& options) {
  std::string best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const auto& o : options) {
    const size_t d = edit_distance(word, o);
    if (d < best_d) {
      best_d = d;
      best = o;
    }
  }
  if (best_d <= std::max<size_t>(1, std::min<size_t>(3, best.size() / 3))) return "did you mean '" + best + "'? ";
  return "";
}

// A JSON value with its location, for error messages.
struct Node {
  const json& v;
  std::string path;
  const std::string& file;

  [[noreturn]] void fail(const std::string& rule) const { throw InputError(file, path, rule); }
  bool has(const std::string& key) const { return v.is_object() && v.contains(key); }
  Node child(const std::string& key) const { return Node{v.at(key), path + "/" + escape_pointer(key), file}; }
  Node at(size_t i) const { return Node{v.at(i), path + "/" + std::to_string(i), file}; }
  Node required(const std::string& key) const {
    if (!has(key)) throw InputError(file, path + "/" + escape_pointer(key), "required field is missing");
    return child(key);
  }
  std::string got() const { return " (got " + std::string(v.type_name()) + ")"; }
};

// The value must be an object whose keys are all in `allowed`.
void expect_object(const Node& n, const std::vector<std::string>& allowed) {
  if (!n.v.is_object()) n.fail("must be an object" + n.got());
  for (auto it = n.v.begin(); it != n.v.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    throw InputError(n.file, n.path + "/" + escape_pointer(it.key()),
                     "unknown key '" + it.key() + "' (" + suggestion(it.key(), allowed) +
                         "allowed keys here: " + join(allowed) + ")");
  }
}

double get_number(const Node& n) {
  if (!n.v.is_number()) n.fail("must be a number" + n.got());
  return n.v.get<double>();
}

double get_positive(const Node& n) {
  const double x = get_number(n);
  if (!(x > 0.0)) n.fail("must be positive (got " + format_number(x) + ")");
  return x;
}

double get_non_negative(const Node& n) {
  const double x = get_number(n);
  if (!(x >= 0.0)) n.fail("must be zero or positive (got " + format_number(x) + ")");
  return x;
}

int get_int(const Node& n, const std::string& rule = "must be an integer") {
  if (n.v.is_number_float())
    n.fail(rule + " (got " + format_number(n.v.get<double>()) +
           " written as a floating-point number; write integers without a decimal point or exponent)");
  if (!n.v.is_number_integer()) n.fail(rule + n.got());
  const auto x = n.v.get<long long>();
  if (n.v.is_number_unsigned() && n.v.get<unsigned long long>() > 1000000000ULL) n.fail(rule + " (value too large)");
  if (x > 1000000000LL || x < -1000000000LL) n.fail(rule + " (value too large)");
  return static_cast<int>(x);
}

int get_positive_int(const Node& n) {
  const int x = get_int(n, "must be a positive integer");
  if (x < 1) n.fail("must be a positive integer (got " + std::to_string(x) + ")");
  return x;
}

bool get_bool(const Node& n) {
  if (!n.v.is_boolean()) n.fail("must be true or false" + n.got());
  return n.v.get<bool>();
}

std::string get_string(const Node& n) {
  if (!n.v.is_string()) n.fail("must be a string" + n.got());
  return n.v.get<std::string>();
}

std::string get_name(const Node& n) {
  const std::string s = get_string(n);
  if (s.empty()) n.fail("must not be empty");
  return s;
}

std::string get_choice(const Node& n, const std::vector<std::string>& options, const std::string& what) {
  if (!n.v.is_string()) n.fail("must be a string naming the " + what + " (one of: " + join(options) + ")" + n.got());
  const std::string s = n.v.get<std::string>();
  if (std::find(options.begin(), options.end(), s) == options.end())
    n.fail("unknown " + what + " '" + s + "' (" + suggestion(s, options) + "expected one of: " + join(options) + ")");
  return s;
}

// The 3 x 3 matrix given by n, an array of 3 rows (checked by the caller) of 3 numbers each; a
// row of another shape fails with `rule`.
Mat<3, 3> get_matrix_rows(const Node& n, const std::string& rule) {
  Mat<3, 3> a;
  for (int i = 0; i < 3; ++i) {
    const Node row = n.at(i);
    if (!row.v.is_array() || row.v.size() != 3) row.fail(rule + " (this row is not an array of 3 numbers)");
    for (int j = 0; j < 3; ++j) a(i, j) = get_number(row.at(j));
  }
  return a;
}

// An array of D numbers; 2D vectors get z = 0.
Vec3 get_vector(const Node& n, int D) {
  const std::string rule = "must be an array of " + std::to_string(D) + " numbers";
  if (!n.v.is_array()) n.fail(rule + n.got());
  if (static_cast<int>(n.v.size()) != D)
    n.fail(rule + " (got " + std::to_string(n.v.size()) + " numbers; the model has dimension " +
           std::to_string(D) + ")");
  Vec3 out = {0.0, 0.0, 0.0};
  for (int i = 0; i < D; ++i) {
    const Node c = n.at(i);
    if (!c.v.is_number()) c.fail("must be a number" + c.got());
    out[i] = c.v.get<double>();
  }
  return out;
}

double norm(const Vec3& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

TimeFunction read_time_function(const Node& n) {
  if (n.v.is_number()) return TimeFunction::constant(n.v.get<double>());
  if (!n.v.is_object()) n.fail("must be a number or a time function object" + n.got());
  const std::string type =
      get_choice(n.required("type"), {"constant", "ramp", "smooth_step", "harmonic"}, "time function type");
  TimeFunction f;
  if (type == "constant") {
    expect_object(n, {"type", "value"});
    return TimeFunction::constant(get_number(n.required("value")));
  }
  if (type == "ramp" || type == "smooth_step") {
    expect_object(n, {"type", "t0", "t1", "from", "to"});
    f.kind = type == "ramp" ? TimeFunction::Kind::LinearRamp : TimeFunction::Kind::SmoothStep;
    f.t0 = get_number(n.required("t0"));
    f.t1 = get_number(n.required("t1"));
    if (!(f.t1 > f.t0)) n.child("t1").fail("must be greater than t0 (" + format_number(f.t0) + ")");
    f.v0 = get_number(n.required("from"));
    f.v1 = get_number(n.required("to"));
    return f;
  }
  expect_object(n, {"type", "amplitude", "frequency", "phase", "offset"});
  f.kind = TimeFunction::Kind::Harmonic;
  f.amplitude = get_number(n.required("amplitude"));
  f.frequency = get_positive(n.required("frequency"));
  f.phase = n.has("phase") ? get_number(n.child("phase")) : 0.0;
  f.v0 = n.has("offset") ? get_number(n.child("offset")) : 0.0;
  return f;
}

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
    check_mechanism(c.model);
    check_analysis_fits(root.child("analysis"), c);
    return c;
  }

 private:
  std::string file_;
  std::map<std::string, Material> materials_;
  std::map<std::string, Section> sections_;
  std::vector<std::string> body_paths_;
  std::map<std::string, std::string> constraint_names_;  // name -> json path

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
    read_mechanism(n, m);
    m.mechanism.gravity = rigid::vec3(m.gravity[0], m.gravity[1], m.gravity[2]);
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
    std::vector<std::string> keys = {"name", "element", "generator", "material", "section"};
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
        const double c = norm(chord);
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
        if (norm(g) > 0.0) sag = g;
        if (n.has("sag_direction")) {
          const Node sn = n.child("sag_direction");
          sag = get_vector(sn, D);
          if (!(norm(sag) > 0.0)) sn.fail("must not be the zero vector");
          if (length > c * (1.0 + 1e-12)) {
            const double along = dot(sag, chord) / c;
            if (!(norm(sag) * norm(sag) - along * along > 1e-20 * norm(sag) * norm(sag)))
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
          if (std::fabs(norm(u) - 1.0) > 1e-9) n.child("u").fail("must be a unit vector");
        }
        if (n.has("v")) {
          v = get_vector(n.child("v"), D);
          if (std::fabs(norm(v) - 1.0) > 1e-9) n.child("v").fail("must be a unit vector");
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
            if (!(norm(Vec3{b[0] - a[0], b[1] - a[1], b[2] - a[2]}) > 1e-12))
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
          if (!(norm(slopes.back()) > 1e-12)) sn.at(i).fail("must not be the zero vector");
        }
        add_node_line(m, name, positions, slopes, props);
      }
    } catch (const ModelError& e) {
      n.fail(e.what());
    }
    m.bodies.back().element_type = type;
    body_paths_.push_back(n.path);
  }

  struct NodeRef {
    int node = 0;
    std::string label;
  };

  // A body name that must refer to a body defined in /model/bodies; returns its index.
  int read_body_reference(const Node& n, const Model& m) {
    const std::string name = get_name(n);
    const int body = find_body(m, name);
    if (body < 0) {
      std::vector<std::string> known;
      for (const Body& b : m.bodies) known.push_back(b.name);
      n.fail("unknown body '" + name + "' (" + suggestion(name, known) + "bodies: " + join(known) + ")");
    }
    return body;
  }

  NodeRef read_node_ref(const Node& n, const Model& m) {
    expect_object(n, {"body", "index"});
    const int body = read_body_reference(n.required("body"), m);
    const std::string& name = m.bodies[body].name;
    const Node in = n.required("index");
    const std::string rule = "must be an integer (negative counts from the end, -1 = last) or \"start\" or \"end\"";
    int index = 0;
    std::string label;
    if (in.v.is_string()) {
      label = in.v.get<std::string>();
      if (label == "start")
        index = 0;
      else if (label == "end")
        index = -1;
      else
        in.fail(rule + " (got \"" + label + "\")");
    } else {
      index = get_int(in, rule);
      label = std::to_string(index);
    }
    const int count = m.bodies[body].node_count;
    if (index >= count || index < -count)
      in.fail("node index " + std::to_string(index) + " is out of range for body '" + name + "' with " +
              std::to_string(count) + " nodes (valid: 0.." + std::to_string(count - 1) + ", or -" +
              std::to_string(count) + "..-1 from the end)");
    return NodeRef{body_node(m, body, index), name + "." + label};
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

  // ---- rigid bodies, joints and the rest of the mechanism (3D models only) ----------------------

  std::map<std::string, std::string> rigid_paths_;    // rigid body name -> json path
  std::map<std::string, std::string> element_paths_;  // joint/driver/spring/attachment/load name -> path
  std::vector<std::string> joint_paths_;

  static constexpr const char* kMechanismKeys[] = {"rigid_bodies", "joints", "drivers", "springs",
                                                   "rotational_springs", "body_loads", "attachments"};

  std::vector<std::string> rigid_names(const Model& m) const {
    std::vector<std::string> out;
    for (const RigidBody& b : m.mechanism.bodies) out.push_back(b.name);
    return out;
  }

  // A unique name for a joint, driver, spring, attachment or body load (they share the output
  // columns of joint_reactions.csv, so they share one namespace).
  std::string read_element_name(const Node& n, const std::string& what) {
    const Node nn = n.required("name");
    const std::string name = get_name(nn);
    const auto dup = element_paths_.find(name);
    if (dup != element_paths_.end())
      nn.fail(what + " name '" + name + "' is already used by " + dup->second +
              " (joints, drivers, springs, attachments and body loads share one set of names)");
    element_paths_[name] = n.path;
    return name;
  }

  static Vec<3> to_vec(const Vec3& a) { return rigid::vec3(a[0], a[1], a[2]); }

  // A 3-vector that must not be zero, e.g. an axis; returned as given (not normalized).
  Vec<3> get_direction(const Node& n) {
    const Vec<3> a = to_vec(get_vector(n, 3));
    if (!(rigid::vec_norm(a) > 1e-12)) n.fail("must not be the zero vector (it gives a direction)");
    return a;
  }

  // A rigid body name or "ground"; returns its index or kGround.
  int read_rigid_reference(const Node& n, const Model& m) {
    const std::string name = get_name(n);
    if (name == "ground") return kGround;
    for (size_t b = 0; b < m.mechanism.bodies.size(); ++b)
      if (m.mechanism.bodies[b].name == name) return static_cast<int>(b);
    std::vector<std::string> known = rigid_names(m);
    std::string hint = suggestion(name, known);
    if (find_body(m, name) >= 0) hint = "'" + name + "' is a cable body; joints connect rigid bodies and the ground; ";
    known.push_back("ground");
    n.fail("unknown rigid body '" + name + "' (" + hint + "rigid bodies: " + join(known) + ")");
  }

  static rigid::BodyState initial_state(const Model& m, int body) {
    if (body == kGround) return rigid::ground_state();
    const RigidBody& b = m.mechanism.bodies[body];
    rigid::BodyState s = rigid::ground_state();
    s.r = b.position;
    s.p = b.orientation;
    return s;
  }

  Vec<4> read_orientation(const Node& n) {
    if (!n.v.is_object()) n.fail("must be an object with \"axis\" and \"angle\", \"rotation_matrix\" or \"euler_parameters\"" + n.got());
    const bool axis_angle = n.has("axis") || n.has("angle");
    const int forms = (axis_angle ? 1 : 0) + (n.has("rotation_matrix") ? 1 : 0) + (n.has("euler_parameters") ? 1 : 0);
    if (forms != 1)
      n.fail(std::string(forms == 0 ? "gives no orientation" : "gives the orientation in more than one form") +
             ": use exactly one of {\"axis\": [x, y, z], \"angle\": radians}, {\"rotation_matrix\": [[...], [...], [...]]} "
             "or {\"euler_parameters\": [e0, e1, e2, e3]}");
    if (axis_angle) {
      expect_object(n, {"axis", "angle"});
      const Vec<3> axis = get_direction(n.required("axis"));
      return rigid::from_axis_angle(axis, get_number(n.required("angle")));
    }
    if (n.has("euler_parameters")) {
      expect_object(n, {"euler_parameters"});
      const Node en = n.child("euler_parameters");
      if (!en.v.is_array() || en.v.size() != 4)
        en.fail("must be an array of 4 numbers (e0, e1, e2, e3)" +
                (en.v.is_array() ? " (got " + std::to_string(en.v.size()) + " numbers)" : en.got()));
      Vec<4> p;
      for (int k = 0; k < 4; ++k) p[k] = get_number(en.at(k));
      const double norm_p = rigid::vec_norm(p);
      if (!(norm_p > 1e-12))
        en.fail("the Euler parameters have zero norm and describe no rotation (the identity is [1, 0, 0, 0])");
      return rigid::normalized(p);
    }
    expect_object(n, {"rotation_matrix"});
    const Node rn = n.child("rotation_matrix");
    const std::string rule = "must be a 3x3 rotation matrix given as an array of 3 rows of 3 numbers";
    if (!rn.v.is_array() || rn.v.size() != 3) rn.fail(rule + rn.got());
    const Mat<3, 3> a = get_matrix_rows(rn, rule);
    double off = 0.0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double s = 0.0;
        for (int k = 0; k < 3; ++k) s += a(k, i) * a(k, j);
        off = std::max(off, std::fabs(s - (i == j ? 1.0 : 0.0)));
      }
    if (off > 1e-6)
      rn.fail("is not orthonormal (largest entry of A^T A - I is " + format_number(off) +
              "; the columns are the body axes in the ground frame and must be unit and perpendicular)");
    const double det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1)) - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0)) +
                       a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
    if (det < 0.0) rn.fail("is a reflection (determinant -1), not a rotation: the body axes must form a right-handed triad");
    return rigid::from_rotation_matrix(a);
  }

  Mat<3, 3> read_inertia(const Node& n) {
    const std::string rule = "must be 3 principal moments [Ixx, Iyy, Izz] or a symmetric 3x3 matrix (3 rows of 3 numbers), "
                             "about the centre of mass in the body frame";
    if (!n.v.is_array() || (n.v.size() != 3)) n.fail(rule + n.got());
    Mat<3, 3> J = Mat<3, 3>::zero();
    if (n.v[0].is_array()) {
      J = get_matrix_rows(n, rule);
      for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
          if (std::fabs(J(i, j) - J(j, i)) > 1e-12 * std::max({1.0, std::fabs(J(i, j)), std::fabs(J(j, i))}))
            n.at(j).at(i).fail("the inertia matrix is not symmetric (entry [" + std::to_string(j) + "][" +
                               std::to_string(i) + "] = " + format_number(J(j, i)) + ", entry [" + std::to_string(i) +
                               "][" + std::to_string(j) + "] = " + format_number(J(i, j)) + ")");
    } else {
      for (int i = 0; i < 3; ++i) J(i, i) = get_number(n.at(i));
    }
    Eigen::Matrix3d E;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) E(i, j) = J(i, j);
    const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(E).eigenvalues();
    if (!(ev[0] > 1e-12 * std::max(1.0, ev[2])) || !std::isfinite(ev[2]))
      n.fail("the inertia tensor must be positive definite (principal moments " + format_number(ev[0]) + ", " +
             format_number(ev[1]) + ", " + format_number(ev[2]) + ")");
    if (ev[0] + ev[1] < ev[2] * (1.0 - 1e-9))
      n.fail("the principal moments " + format_number(ev[0]) + ", " + format_number(ev[1]) + ", " + format_number(ev[2]) +
             " violate the triangle inequality (I1 + I2 >= I3) that every real body satisfies");
    return J;
  }

  void read_rigid_body(const Node& n, Model& m) {
    expect_object(n, {"name", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity",
                      "assembly_weight"});
    const Node nn = n.required("name");
    RigidBody b;
    b.name = get_name(nn);
    if (b.name == "ground") nn.fail("'ground' is reserved for the fixed ground frame; choose another name");
    const auto dup = rigid_paths_.find(b.name);
    if (dup != rigid_paths_.end()) nn.fail("rigid body name '" + b.name + "' is already used by " + dup->second);
    if (find_body(m, b.name) >= 0)
      nn.fail("name '" + b.name + "' is already used by a cable body; rigid bodies and cables need different names");
    rigid_paths_[b.name] = n.path;
    b.mass = get_positive(n.required("mass"));
    b.inertia = read_inertia(n.required("inertia"));
    b.position = to_vec(get_vector(n.required("position"), 3));
    b.orientation = n.has("orientation") ? read_orientation(n.child("orientation")) : rigid::vec4(1, 0, 0, 0);
    b.velocity = n.has("velocity") ? to_vec(get_vector(n.child("velocity"), 3)) : Vec<3>::zero();
    b.angular_velocity = n.has("angular_velocity") ? to_vec(get_vector(n.child("angular_velocity"), 3)) : Vec<3>::zero();
    if (n.has("assembly_weight")) b.assembly_weight = get_positive(n.child("assembly_weight"));
    m.mechanism.bodies.push_back(b);
  }

  struct JointKind {
    const char* name;
    rigid::JointType type;
  };
  static const std::vector<JointKind>& joint_kinds() {
    static const std::vector<JointKind> kinds = {
        {"spherical", rigid::JointType::Spherical},       {"revolute", rigid::JointType::Revolute},
        {"cylindrical", rigid::JointType::Cylindrical},   {"translational", rigid::JointType::Translational},
        {"universal", rigid::JointType::Universal},       {"fixed", rigid::JointType::Fixed},
        {"planar", rigid::JointType::Planar},             {"point_on_line", rigid::JointType::PointOnLine},
        {"parallel_axes", rigid::JointType::ParallelAxes}, {"perpendicular_axes", rigid::JointType::PerpendicularAxes}};
    return kinds;
  }
  static std::string joint_type_name(rigid::JointType t) {
    for (const JointKind& k : joint_kinds())
      if (k.type == t) return k.name;
    return "?";
  }

  // The two bodies of a joint or spring-damper: body_i, body_j (names or "ground"), different.
  std::pair<int, int> read_body_pair(const Node& n, const Model& m, const std::string& what) {
    const int bi = read_rigid_reference(n.required("body_i"), m);
    const int bj = read_rigid_reference(n.required("body_j"), m);
    if (bi == bj)
      n.child("body_j").fail(bi == kGround ? what + " between the ground and the ground connects nothing"
                                           : what + " connects body '" + m.mechanism.bodies[bi].name + "' to itself");
    return {bi, bj};
  }

  // Triad (columns f, g, h) of a joint or rotational spring from "axis", or for universal and
  // perpendicular-axes joints from the cross axes "axis_i" (f) and "axis_j" (g), h = f x g.
  Mat<3, 3> read_joint_triad(const Node& n, bool cross_axes, bool axis_optional = false) {
    if (axis_optional && !n.has("axis")) return triad(rigid::vec3(1, 0, 0), rigid::vec3(0, 1, 0), rigid::vec3(0, 0, 1));
    if (!cross_axes) return triad_from_axis(get_direction(n.required("axis")));
    const Vec<3> f = get_direction(n.required("axis_i"));
    const Node gn = n.required("axis_j");
    const Vec<3> g = get_direction(gn);
    const Vec<3> fu = rigid::vec_scale(1.0 / rigid::vec_norm(f), f), gu = rigid::vec_scale(1.0 / rigid::vec_norm(g), g);
    const double c = fu[0] * gu[0] + fu[1] * gu[1] + fu[2] * gu[2];
    if (std::fabs(c) > 1e-9)
      gn.fail("must be perpendicular to axis_i (the angle between them is " +
              format_number(std::acos(std::max(-1.0, std::min(1.0, c))) * 180.0 / kPi) +
              " degrees; the two cross axes of the joint are perpendicular in its initial configuration)");
    return triad(fu, gu, rigid::cross3(fu, gu));
  }

  void read_joint(const Node& n, Model& m) {
    if (!n.v.is_object()) n.fail("must be an object" + n.got());
    std::vector<std::string> type_names;
    for (const JointKind& k : joint_kinds()) type_names.push_back(k.name);
    const std::string tname = get_choice(n.required("type"), type_names, "joint type");
    rigid::JointType type = rigid::JointType::Revolute;
    for (const JointKind& k : joint_kinds())
      if (tname == k.name) type = k.type;
    const bool cross = type == rigid::JointType::Universal || type == rigid::JointType::PerpendicularAxes;
    std::vector<std::string> keys = {"name", "type", "body_i", "body_j", "point", "point_i", "point_j"};
    if (cross)
      keys.insert(keys.end(), {"axis_i", "axis_j"});
    else
      keys.push_back("axis");
    expect_object(n, keys);
    const std::string name = read_element_name(n, "joint");
    const auto bodies = read_body_pair(n, m, "a joint");
    // A spherical joint has no axis; "axis" only orients the frame of its reaction output.
    const Mat<3, 3> frame = read_joint_triad(n, cross, type == rigid::JointType::Spherical);
    // One point for both markers, or (point_i, point_j): where the joint sits on each body.
    Vec<3> pi, pj;
    if (n.has("point")) {
      for (const char* k : {"point_i", "point_j"})
        if (n.has(k)) n.child(k).fail("give either \"point\" (one point for both bodies) or \"point_i\" and \"point_j\", not both");
      pi = pj = to_vec(get_vector(n.child("point"), 3));
    } else if (n.has("point_i") || n.has("point_j")) {
      pi = to_vec(get_vector(n.required("point_i"), 3));
      pj = to_vec(get_vector(n.required("point_j"), 3));
    } else {
      n.required("point");
    }
    Joint joint;
    joint.name = name;
    joint.type = type;
    joint.body_i = bodies.first;
    joint.body_j = bodies.second;
    joint.marker_i = rigid::marker_from_ground(initial_state(m, bodies.first), pi, frame);
    joint.marker_j = rigid::marker_from_ground(initial_state(m, bodies.second), pj, frame);
    m.mechanism.joints.push_back(joint);
    joint_paths_.push_back(n.path);
  }

  struct FreeAxes {
    std::string rotations, translations;  // marker-frame axes among "fgh"
  };
  static FreeAxes free_axes(rigid::JointType t) {
    switch (t) {
      case rigid::JointType::Spherical: return {"fgh", ""};
      case rigid::JointType::Revolute: return {"h", ""};
      case rigid::JointType::Cylindrical: return {"h", "h"};
      case rigid::JointType::Translational: return {"", "h"};
      case rigid::JointType::Universal: return {"fg", ""};
      case rigid::JointType::Fixed: return {"", ""};
      case rigid::JointType::Planar: return {"h", "fg"};
      case rigid::JointType::PointOnLine: return {"fgh", "h"};
      case rigid::JointType::ParallelAxes: return {"h", "fgh"};
      case rigid::JointType::PerpendicularAxes: return {"fg", "fgh"};
    }
    return {"", ""};
  }

  void read_driver(const Node& n, Model& m) {
    expect_object(n, {"name", "joint", "rotation", "translation", "axis"});
    Driver d;
    d.name = read_element_name(n, "driver");
    const Node jn = n.required("joint");
    const std::string joint = get_name(jn);
    d.joint = -1;
    for (size_t k = 0; k < m.mechanism.joints.size(); ++k)
      if (m.mechanism.joints[k].name == joint) d.joint = static_cast<int>(k);
    if (d.joint < 0) {
      std::vector<std::string> known;
      for (const Joint& j : m.mechanism.joints) known.push_back(j.name);
      jn.fail("unknown joint '" + joint + "' (" + suggestion(joint, known) + "joints: " +
              (known.empty() ? std::string("none") : join(known)) + ")");
    }
    if (n.has("rotation") == n.has("translation"))
      n.fail(std::string(n.has("rotation") ? "gives both" : "gives neither") +
             " \"rotation\" and \"translation\": a driver prescribes exactly one joint coordinate");
    const bool rotation = n.has("rotation");
    const Node fn = n.child(rotation ? "rotation" : "translation");
    const rigid::JointType t = m.mechanism.joints[d.joint].type;
    // The joint coordinates each joint type leaves free, as marker-frame axes f, g, h.
    const FreeAxes free = free_axes(t);
    const std::string& axes = rotation ? free.rotations : free.translations;
    if (n.has("axis")) {
      const Node an = n.child("axis");
      d.axis = static_cast<int>(std::string("fgh").find(get_choice(an, {"f", "g", "h"}, "joint frame axis")));
      if (axes.find("fgh"[d.axis]) == std::string::npos)
        an.fail(std::string("a ") + joint_type_name(t) + " joint leaves no " + (rotation ? "rotation about " : "translation along ") +
                "its " + "fgh"[d.axis] + " axis free" +
                (axes.empty() ? std::string() : " (free " + std::string(rotation ? "rotation" : "translation") + " axes: " + axes + ")"));
    } else if (axes.find('h') == std::string::npos) {
      fn.fail(std::string("a ") + (rotation ? "rotation" : "translation") + " driver needs a joint that leaves " +
              (rotation ? "a rotation" : "a translation") + " about its axis h free; joint '" + joint + "' is " +
              joint_type_name(t) +
              (axes.empty() ? (rotation ? " (drive it with \"translation\")" : " (drive it with \"rotation\")")
                            : " (give \"axis\": one of " + axes + ")"));
    }
    d.kind = rotation ? Driver::Kind::Rotation : Driver::Kind::Translation;
    d.motion = read_time_function(fn);
    m.mechanism.drivers.push_back(d);
  }

  // Body-frame point of a ground-frame point at t = 0 (ground: the point itself).
  static Vec<3> body_point(const Model& m, int body, const Vec<3>& ground_point) {
    const rigid::BodyState s = initial_state(m, body);
    return rigid::rotate_back(s.p, rigid::vec_sub(ground_point, s.r));
  }

  // What translational and rotational spring-dampers share: name, bodies, stiffness, damping,
  // actuator.
  template <class Element>
  void read_spring_damper(const Node& n, const Model& m, Element& e, const std::string& what) {
    e.name = read_element_name(n, what);
    const auto bodies = read_body_pair(n, m, "a " + what);
    e.body_i = bodies.first;
    e.body_j = bodies.second;
    e.stiffness = get_non_negative(n.required("stiffness"));
    e.damping = n.has("damping") ? get_non_negative(n.child("damping")) : 0.0;
    if (n.has("actuator")) {
      e.has_actuator = true;
      e.actuator = read_time_function(n.child("actuator"));
    }
  }

  void read_spring(const Node& n, Model& m) {
    expect_object(n, {"name", "body_i", "body_j", "point_i", "point_j", "stiffness", "damping", "free_length", "actuator"});
    Tsda s;
    read_spring_damper(n, m, s, "spring");
    const Vec<3> pi = to_vec(get_vector(n.required("point_i"), 3));
    const Node pjn = n.required("point_j");
    const Vec<3> pj = to_vec(get_vector(pjn, 3));
    const double length = rigid::vec_norm(rigid::vec_sub(pj, pi));
    if (!(length > 1e-12)) pjn.fail("coincides with point_i: a spring between coincident points has no line of action");
    s.point_i = body_point(m, s.body_i, pi);
    s.point_j = body_point(m, s.body_j, pj);
    s.free_length = n.has("free_length") ? get_non_negative(n.child("free_length")) : length;
    m.mechanism.forces.tsda.push_back(s);
  }

  void read_rotational_spring(const Node& n, Model& m) {
    expect_object(n, {"name", "body_i", "body_j", "point", "axis", "stiffness", "damping", "free_angle", "actuator"});
    Rsda s;
    read_spring_damper(n, m, s, "rotational spring");
    const Vec<3> point = to_vec(get_vector(n.required("point"), 3));
    const Mat<3, 3> frame = read_joint_triad(n, false);
    s.marker_i = rigid::marker_from_ground(initial_state(m, s.body_i), point, frame);
    s.marker_j = rigid::marker_from_ground(initial_state(m, s.body_j), point, frame);
    s.free_angle = n.has("free_angle") ? get_number(n.child("free_angle")) : 0.0;
    m.mechanism.forces.rsda.push_back(s);
  }

  void read_body_load(const Node& n, Model& m) {
    expect_object(n, {"name", "body", "force", "torque", "point", "frame", "function"});
    BodyLoad l;
    l.name = read_element_name(n, "body load");
    const Node bn = n.required("body");
    l.body = read_rigid_reference(bn, m);
    if (l.body == kGround) bn.fail("a load on the ground has no effect; name a rigid body");
    const std::string frame = get_choice(n.required("frame"), {"ground", "body"}, "load frame");
    l.body_frame = frame == "body";
    if (!n.has("force") && !n.has("torque")) n.fail("gives neither \"force\" nor \"torque\"");
    if (n.has("force")) l.force = to_vec(get_vector(n.child("force"), 3));
    if (n.has("torque")) l.torque = to_vec(get_vector(n.child("torque"), 3));
    l.point = n.has("point") ? body_point(m, l.body, to_vec(get_vector(n.child("point"), 3))) : Vec<3>::zero();
    l.scale = n.has("function") ? read_time_function(n.child("function")) : TimeFunction::constant(1.0);
    m.mechanism.forces.loads.push_back(l);
  }

  void read_attachment(const Node& n, Model& m) {
    expect_object(n, {"name", "node", "rigid_body", "point", "align_slope"});
    Attachment a;
    a.name = read_element_name(n, "attachment");
    const Node nn = n.required("node");
    a.node = read_node_ref(nn, m).node;
    for (const Attachment& other : m.mechanism.attachments)
      if (other.node == a.node)
        nn.fail("this node is already attached by attachment '" + other.name + "' (a node can be attached once)");
    const Node bn = n.required("rigid_body");
    a.body = read_rigid_reference(bn, m);
    if (a.body == kGround)
      bn.fail("attach a node to the ground with a \"spherical\" or \"fix\" constraint in /model/constraints; "
              "attachments connect cable nodes to rigid bodies");
    const int stride = m.coordinates_per_node();
    const double* node = &m.initial_positions[a.node * stride];
    Vec<3> point = rigid::vec3(node[0], node[1], node[2]);
    if (n.has("point")) point = to_vec(get_vector(n.child("point"), 3));
    a.point = body_point(m, a.body, point);
    a.align_slope = n.has("align_slope") && get_bool(n.child("align_slope"));
    if (a.align_slope) {
      const Vec<3> slope = rigid::vec3(node[3], node[4], node[5]);
      const rigid::BodyState s = initial_state(m, a.body);
      a.axis = rigid::rotate_back(s.p, rigid::vec_scale(1.0 / rigid::vec_norm(slope), slope));
    } else {
      a.axis = rigid::vec3(1, 0, 0);
    }
    m.mechanism.attachments.push_back(a);
  }

  template <class F>
  void read_list(const Node& model, const char* key, const char* what, F read) {
    if (!model.has(key)) return;
    const Node list = model.child(key);
    if (!list.v.is_array()) list.fail(std::string("must be an array of ") + what + list.got());
    for (size_t i = 0; i < list.v.size(); ++i) {
      const Node item = list.at(i);
      if (!item.v.is_object()) item.fail("must be an object" + item.got());
      read(item);
    }
  }

  void read_mechanism(const Node& n, Model& m) {
    bool any = false;
    for (const char* k : kMechanismKeys) any = any || n.has(k);
    if (!any) return;
    if (m.dimension != 3) {
      for (const char* k : kMechanismKeys)
        if (n.has(k))
          n.child(k).fail(std::string("rigid bodies, joints and their force elements need a 3D model, but /model/dimension is ") +
                          std::to_string(m.dimension) + " (set \"dimension\": 3 and use cable3d elements)");
    }
    read_list(n, "rigid_bodies", "rigid bodies", [&](const Node& x) { read_rigid_body(x, m); });
    read_list(n, "joints", "joints", [&](const Node& x) { read_joint(x, m); });
    read_list(n, "drivers", "drivers", [&](const Node& x) { read_driver(x, m); });
    read_list(n, "springs", "springs", [&](const Node& x) { read_spring(x, m); });
    read_list(n, "rotational_springs", "rotational springs", [&](const Node& x) { read_rotational_spring(x, m); });
    read_list(n, "body_loads", "body loads", [&](const Node& x) { read_body_load(x, m); });
    read_list(n, "attachments", "attachments", [&](const Node& x) { read_attachment(x, m); });
    const Mechanism& mech = m.mechanism;
    if (mech.bodies.empty()) {
      for (const char* k : kMechanismKeys)
        if (n.has(k) && !n.child(k).v.empty())
          n.child(k).fail("needs rigid bodies, but /model/rigid_bodies is " +
                          std::string(n.has("rigid_bodies") ? "empty" : "missing"));
      return;
    }
  }

  // The mechanism's rows must be independent at the initial positions (before any run, with the
  // mechanism-local coordinate vector); a redundant row is an input error at the element it
  // belongs to, naming the earlier joints it repeats.
  void check_mechanism(const Model& m) {
    if (m.mechanism.empty()) return;
    MultibodyLayout layout;
    try {
      layout = multibody_layout(m);
    } catch (const ModelError& e) {
      throw InputError(file_, "/model/attachments", e.what());
    }
    const Eigen::VectorXd q = initial_coordinates(m);
    Eigen::VectorXd x(layout.dofs.size());
    for (size_t k = 0; k < layout.dofs.size(); ++k) x[k] = q[layout.dofs[k]];
    try {
      check_redundant_constraints(m.mechanism, x, 0.0, attached_node_rows(m, layout));
    } catch (const ModelError& e) {
      const std::string what = e.what();
      std::string path = "/model/joints";
      for (const auto& kv : element_paths_)
        for (const char* kind : {"joint '", "driver '", "attachment '"})
          if (what.rfind(kind + kv.first + "'", 0) == 0) path = kv.second;
      for (const ConstraintGroup& g : m.constraint_groups)
        if (what.rfind("constraint '" + g.name + "'", 0) == 0) path = g.json_path;
      throw InputError(file_, path, what);
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
                      "max_iterations", "tolerance", "adaptive", "formulation", "newton", "linear_solver"});
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

// Parses JSON, rejecting duplicate keys (nlohmann keeps the last one silently).
json parse_strict(const std::string& text, const std::string& file) {
  struct Frame {
    bool array;
    long index;
    std::set<std::string> keys;
    std::string key;
  };
  std::vector<Frame> stack;
  auto path = [&]() {
    std::string p;
    for (const Frame& f : stack) p += "/" + (f.array ? std::to_string(f.index) : escape_pointer(f.key));
    return p;
  };
  auto element_start = [&]() {
    if (!stack.empty() && stack.back().array) stack.back().index++;
  };
  json::parser_callback_t callback = [&](int, json::parse_event_t event, json& parsed) -> bool {
    switch (event) {
      case json::parse_event_t::object_start:
        element_start();
        stack.push_back(Frame{false, -1, {}, ""});
        break;
      case json::parse_event_t::array_start:
        element_start();
        stack.push_back(Frame{true, -1, {}, ""});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!stack.empty()) stack.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string key = parsed.get<std::string>();
        Frame& f = stack.back();
        f.key = key;
        if (!f.keys.insert(key).second) throw InputError(file, path(), "duplicate key '" + key + "'");
        break;
      }
      case json::parse_event_t::value:
        element_start();
        break;
    }
    return true;
  };
  try {
    return json::parse(text, callback);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto bracket = what.find("] ");
    if (what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos) what = what.substr(bracket + 2);
    throw InputError(file, "", "not valid JSON: " + what);
  }
}

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

std::vector<SweepCase> load_cases(const std::string& path) {
  const json doc = read_case_document(path);
  std::vector<SweepCase> cases;
  const std::vector<SweepCopyDocument> copies = expand_sweep(doc, path);
  if (copies.size() > 1 && doc.is_object() && doc.contains("analysis") && doc["analysis"].is_object() &&
      doc["analysis"].contains("type") && doc["analysis"]["type"].is_string()) {
    const std::string type = doc["analysis"]["type"].get<std::string>();
    if (type == "assembly" || type == "kinematic")
      throw InputError(path, "/analysis/type", "a sweep runs static or dynamic analyses only (got '" + type + "')");
  }
  for (size_t k = 0; k < copies.size(); ++k) {
    try {
      cases.push_back({copies[k].label, copies[k].values, Loader(path).load(copies[k].document)});
    } catch (const InputError& e) {
      if (copies.size() == 1) throw;
      throw InputError(e.file(), e.json_path(), e.rule() + " (in sweep copy " + std::to_string(k) + ": " + copies[k].label + ")");
    }
  }
  return cases;
}

}  // namespace catenary
