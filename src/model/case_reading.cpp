#include "case_reading.hpp"

#include "time_table_reader.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

namespace catenary::case_reading {

namespace {

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

}  // namespace

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

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

std::string join_some(const std::vector<std::string>& items, size_t most) {
  if (items.size() <= most) return join(items);
  const std::vector<std::string> first(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(most));
  return join(first) + ", ... (" + std::to_string(items.size()) + " in all)";
}

std::string shown(const std::string& text) {
  constexpr size_t kLongest = 60;
  std::string out;
  for (size_t i = 0; i < text.size() && out.size() < kLongest; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    } else {
      out += text[i];
    }
  }
  return out.size() >= kLongest && out.size() < text.size() ? out + "..." : out;
}

std::string format_number(double x) {
  std::ostringstream os;
  os.precision(10);
  os << x;
  return os.str();
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

// The value must be an object whose keys are all in `allowed`.
void expect_object(const Node& n, const std::vector<std::string>& allowed) {
  if (!n.v.is_object()) n.fail("must be an object" + n.got());
  for (auto it = n.v.begin(); it != n.v.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    throw InputError(n.file, n.path + "/" + escape_pointer(it.key()),
                     "unknown key '" + shown(it.key()) + "' (" + suggestion(it.key(), allowed) +
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

int get_int(const Node& n, const std::string& rule) {
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
  constexpr size_t kLongestName = 200;
  const std::string s = get_string(n);
  if (s.empty()) n.fail("must not be empty");
  if (s.size() > kLongestName)
    n.fail("must have at most " + std::to_string(kLongestName) + " characters (got " + std::to_string(s.size()) +
           ": '" + shown(s) + "')");
  for (size_t i = 0; i < s.size(); ++i)
    if (static_cast<unsigned char>(s[i]) < 0x20 || s[i] == 0x7f)
      n.fail("must not contain control characters (got '" + shown(s) + "', one at character " + std::to_string(i) +
             ")");
  return s;
}

std::string get_choice(const Node& n, const std::vector<std::string>& options, const std::string& what) {
  if (!n.v.is_string()) n.fail("must be a string naming the " + what + " (one of: " + join(options) + ")" + n.got());
  const std::string s = n.v.get<std::string>();
  if (std::find(options.begin(), options.end(), s) == options.end())
    n.fail("unknown " + what + " '" + shown(s) + "' (" + suggestion(s, options) + "expected one of: " + join(options) + ")");
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

TimeFunction read_time_function(const Node& n) {
  if (n.v.is_number()) return TimeFunction::constant(n.v.get<double>());
  if (!n.v.is_object()) n.fail("must be a number or a time function object" + n.got());
  const std::string type =
      get_choice(n.required("type"), {"constant", "ramp", "smooth_step", "step5", "harmonic", "table"}, "time function type");
  TimeFunction f;
  if (type == "table") {
    const double ramp = n.has("ramp") ? get_non_negative(n.child("ramp")) : 0.0;
    return TimeFunction::of_table(read_time_table(n), ramp);
  }
  if (type == "constant") {
    expect_object(n, {"type", "value"});
    return TimeFunction::constant(get_number(n.required("value")));
  }
  if (type == "ramp" || type == "smooth_step" || type == "step5") {
    expect_object(n, {"type", "t0", "t1", "from", "to"});
    f.kind = type == "ramp"          ? TimeFunction::Kind::LinearRamp
             : type == "smooth_step" ? TimeFunction::Kind::SmoothStep
                                     : TimeFunction::Kind::Step5;
    f.t0 = get_number(n.required("t0"));
    f.t1 = get_number(n.required("t1"));
    if (!(f.t1 > f.t0)) n.child("t1").fail("must be greater than t0 (" + format_number(f.t0) + ")");
    f.v0 = get_number(n.required("from"));
    f.v1 = get_number(n.required("to"));
    return f;
  }
  expect_object(n, {"type", "amplitude", "frequency", "phase", "offset", "ramp"});
  f.kind = TimeFunction::Kind::Harmonic;
  f.ramp = n.has("ramp") ? get_non_negative(n.child("ramp")) : 0.0;
  f.amplitude = get_number(n.required("amplitude"));
  f.frequency = get_positive(n.required("frequency"));
  f.phase = n.has("phase") ? get_number(n.child("phase")) : 0.0;
  f.v0 = n.has("offset") ? get_number(n.child("offset")) : 0.0;
  return f;
}

// A body name that must refer to a body defined in /model/bodies; returns its index.
int read_body_reference(const Node& n, const Model& m) {
  const std::string name = get_name(n);
  const int body = find_body(m, name);
  if (body < 0) {
    std::vector<std::string> known;
    for (const Body& b : m.bodies) known.push_back(b.name);
    n.fail("unknown body '" + name + "' (" + suggestion(name, known) + "bodies: " + join_some(known) + ")");
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
      in.fail(rule + " (got \"" + shown(label) + "\")");
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

}  // namespace catenary::case_reading
