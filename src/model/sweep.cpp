#include "catenary/model/sweep.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "case_reading.hpp"
#include "catenary/core/errors.hpp"

namespace catenary {

namespace {

using json = nlohmann::json;
using case_reading::shown;


// Whether one pointer is the other or inside it (varying both, the later would win in silence).
bool overlaps(const json::json_pointer& a, const json::json_pointer& b) {
  const std::string x = a.to_string() + "/", y = b.to_string() + "/";
  return x.rfind(y, 0) == 0 || y.rfind(x, 0) == 0;
}

std::string short_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string value_text(const json& v) {
  if (v.is_number()) {
    std::ostringstream s;
    s << v.get<double>();
    return s.str();
  }
  return v.dump();
}

// More copies than any run could hold: a typo in a count or a grid, refused before it allocates.
constexpr double kMostCopies = 1e7;

// The numbers of a range's end ("from" or "to"): a number, or an array of numbers (a vector,
// ranged component by component).
std::vector<double> range_end(const json& v, const std::string& file, const std::string& at) {
  if (v.is_number()) return {v.get<double>()};
  if (v.is_array() && !v.empty()) {
    std::vector<double> out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number()) throw InputError(file, at + "/" + std::to_string(i), "must be a number");
      out.push_back(v[i].get<double>());
    }
    return out;
  }
  throw InputError(file, at, "must be a number or a non-empty array of numbers");
}

// {"from", "to", "count", "spacing"}: count values from `from` to `to` (both included), equally
// spaced ("linear", the default) or in equal ratios ("log", ends of one sign and not zero).
SweepRange read_range(const json& range, const std::string& file, const std::string& at) {
  for (const auto& item : range.items())
    if (item.key() != "from" && item.key() != "to" && item.key() != "count" && item.key() != "spacing")
      throw InputError(file, at + "/" + shown(item.key()),
                       "unknown key (expected \"from\", \"to\", \"count\" or \"spacing\")");
  for (const char* key : {"from", "to", "count"})
    if (!range.contains(key)) throw InputError(file, at + "/" + key, "required field is missing");
  SweepRange r;
  r.from = range_end(range["from"], file, at + "/from");
  r.to = range_end(range["to"], file, at + "/to");
  r.scalar = range["from"].is_number();
  if (r.to.size() != r.from.size())
    throw InputError(file, at + "/to", "must have as many numbers as \"from\" (" + std::to_string(r.from.size()) + ")");
  const json& count_value = range["count"];
  if (!count_value.is_number_integer() || count_value.get<long long>() < 1 || count_value.get<double>() > kMostCopies)
    throw InputError(file, at + "/count", "must be an integer from 1 to 10000000");
  r.count = count_value.get<size_t>();
  if (range.contains("spacing")) {
    const json& spacing = range["spacing"];
    if (!spacing.is_string() || (spacing != "linear" && spacing != "log"))
      throw InputError(file, at + "/spacing", "must be \"linear\" or \"log\" (got " + spacing.dump() + ")");
    r.log = spacing == "log";
  }
  if (r.log)
    for (size_t i = 0; i < r.from.size(); ++i)
      if (!(r.from[i] * r.to[i] > 0.0))
        throw InputError(file, at, "a log range needs ends of one sign, neither zero (from " + value_text(r.from[i]) +
                                       " to " + value_text(r.to[i]) + ")");
  return r;
}

// "together" (the default): parameters vary side by side, copy k taking each one's value k;
// "grid": every combination, the last parameter varying fastest.
bool read_grid(const json& sweep, const std::string& file) {
  if (!sweep.contains("combine")) return false;
  const json& combine = sweep["combine"];
  if (!combine.is_string() || (combine != "together" && combine != "grid"))
    throw InputError(file, "/sweep/combine", "must be \"together\" or \"grid\" (got " + combine.dump() + ")");
  return combine == "grid";
}

std::vector<SweepParameter> read_parameters(const json& doc, const std::string& file, bool& grid) {
  const json& sweep = doc.at("sweep");
  if (!sweep.is_object()) throw InputError(file, "/sweep", "must be an object with \"parameters\"");
  for (const auto& item : sweep.items())
    if (item.key() != "parameters" && item.key() != "combine")
      throw InputError(file, "/sweep/" + item.key(), "unknown key (expected \"parameters\" or \"combine\")");
  grid = read_grid(sweep, file);
  if (!sweep.contains("parameters")) throw InputError(file, "/sweep/parameters", "required field is missing");
  const json& list = sweep.at("parameters");
  if (!list.is_array() || list.empty())
    throw InputError(file, "/sweep/parameters", "must be a non-empty array of {\"path\", \"values\"}");
  std::vector<SweepParameter> parameters;
  double copies = 1.0;
  for (size_t k = 0; k < list.size(); ++k) {
    const std::string at = "/sweep/parameters/" + std::to_string(k);
    const json& p = list[k];
    if (!p.is_object()) throw InputError(file, at, "must be an object with \"path\" and \"values\"");
    for (const auto& item : p.items())
      if (item.key() != "path" && item.key() != "values")
        throw InputError(file, at + "/" + item.key(), "unknown key (expected \"path\" or \"values\")");
    if (!p.contains("path")) throw InputError(file, at + "/path", "required field is missing");
    if (!p.contains("values")) throw InputError(file, at + "/values", "required field is missing");
    SweepParameter parameter;
    // The analysis and the output are shared by the batch; only the model varies per copy.
    parameter.pointer = model_value_pointer(doc, p.at("path"), file, at + "/path", "the analysis is shared by all copies");
    const std::string path = p.at("path").get<std::string>();
    parameter.path = path;
    for (size_t j = 0; j < parameters.size(); ++j)
      if (overlaps(parameters[j].pointer, parameter.pointer))
        throw InputError(file, at + "/path",
                         "varies '" + shown(path) + "', which overlaps /sweep/parameters/" + std::to_string(j) +
                             " ('" + shown(parameters[j].path) + "'): a value can have one list of values");
    const json& values = p.at("values");
    if (values.is_object())
      parameter.range = read_range(values, file, at + "/values");
    else if (values.is_array() && !values.empty())
      parameter.list = values;
    else
      throw InputError(file, at + "/values", "must be a non-empty array or a range {\"from\", \"to\", \"count\"}");
    const size_t n = parameter.size(), first = parameters.empty() ? n : parameters.front().size();
    if (!grid && n != first)
      throw InputError(file, at + "/values",
                       "has " + std::to_string(n) + " values, the first parameter " + std::to_string(first) +
                           ": all parameters of a sweep vary together, one value per copy (\"combine\": \"grid\" "
                           "runs every combination)");
    copies *= static_cast<double>(n);
    if (grid && copies > kMostCopies)
      throw InputError(file, "/sweep/parameters", "the grid has more than 10000000 combinations");
    parameters.push_back(std::move(parameter));
  }
  return parameters;
}

// A copy number or part index: digits only (no sign, no spaces), so that "-1" or "2x" are refused.
size_t parse_count(const std::string& text, const std::string& wanted) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9)
    throw std::invalid_argument("expected " + wanted);
  return std::stoul(text);
}

}  // namespace

json::json_pointer model_value_pointer(const json& doc, const json& path_value, const std::string& file,
                                       const std::string& at, const std::string& outside) {
  if (!path_value.is_string()) throw InputError(file, at, "must be a JSON pointer string");
  const std::string path = path_value.get<std::string>();
  if (path.rfind("/model/", 0) != 0)
    throw InputError(file, at, "must point into /model (got '" + shown(path) + "'): " + outside);
  json::json_pointer pointer;
  try {
    pointer = json::json_pointer(path);
  } catch (const json::exception&) {
    throw InputError(file, at, "is not a valid JSON pointer: '" + shown(path) + "'");
  }
  bool found = false;
  try {
    found = doc.contains(pointer);
  } catch (const json::exception&) {  // an array index beyond any size
  }
  if (!found) throw InputError(file, at, "no value at '" + shown(path) + "' in this case to vary");
  return pointer;
}

CopySelection parse_copy_range(const std::string& text) {
  const std::string wanted = "FIRST-LAST or one copy number (0-based, as in copy_NNNN), got '" + text + "'";
  const size_t dash = text.find('-');
  CopySelection s{CopySelection::Kind::Copies, 0, 0, "--copies " + text};
  s.a = parse_count(text.substr(0, dash), wanted);
  s.b = dash == std::string::npos ? s.a : parse_count(text.substr(dash + 1), wanted);
  if (s.b < s.a) throw std::invalid_argument("the last copy comes before the first in '" + text + "'");
  return s;
}

CopySelection parse_copy_part(const std::string& text) {
  const std::string wanted = "K/N, part K (from 0) of N parts, got '" + text + "'";
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw std::invalid_argument("expected " + wanted);
  CopySelection s{CopySelection::Kind::Part, parse_count(text.substr(0, slash), wanted),
                  parse_count(text.substr(slash + 1), wanted), "--part " + text};
  if (s.b == 0 || s.a >= s.b)
    throw std::invalid_argument("part K of N needs 0 <= K < N (K counts from 0), got '" + text + "'");
  return s;
}

std::string copy_list(const std::vector<size_t>& copies) {
  std::vector<std::string> items;
  for (size_t i = 0; i < copies.size();) {
    size_t j = i;
    while (j + 1 < copies.size() && copies[j + 1] == copies[j] + 1) ++j;
    if (j - i >= 3) {
      items.push_back(std::to_string(copies[i]) + " to " + std::to_string(copies[j]));
      i = j + 1;
    } else {
      items.push_back(std::to_string(copies[i++]));
    }
  }
  std::string text = copies.size() == 1 ? "copy " : "copies ";
  for (size_t k = 0; k < items.size(); ++k)
    text += (k == 0 ? "" : k + 1 == items.size() ? " and " : ", ") + items[k];
  return text;
}

std::pair<size_t, size_t> selected_copies(const CopySelection& s, size_t copies) {
  const std::string range = " (the sweep has " + std::to_string(copies) + " copies, 0 to " + std::to_string(copies - 1) + ")";
  switch (s.kind) {
    case CopySelection::Kind::All:
      return {0, copies - 1};
    case CopySelection::Kind::Copies:
      if (s.b >= copies) throw std::invalid_argument(s.option + " names copies the sweep does not have" + range);
      return {s.a, s.b};
    case CopySelection::Kind::Part:
      if (s.b > copies)
        throw std::invalid_argument(s.option + ": more parts than copies leaves parts empty" + range);
      return {s.a * copies / s.b, (s.a + 1) * copies / s.b - 1};
  }
  return {0, copies - 1};
}

size_t SweepParameter::size() const { return list.is_array() ? list.size() : range.count; }

nlohmann::json SweepParameter::value(size_t k) const {
  if (list.is_array()) return list[k];
  const double t = range.count == 1 ? 0.0 : static_cast<double>(k) / static_cast<double>(range.count - 1);
  json value = json::array();
  for (size_t i = 0; i < range.from.size(); ++i) {
    const double from = range.from[i], to = range.to[i];
    // The ends exactly, whatever the rounding between them.
    value.push_back(k == 0                 ? from
                    : k + 1 == range.count ? to
                    : range.log            ? from * std::pow(to / from, t)
                                           : from + t * (to - from));
  }
  return range.scalar ? value[0] : value;
}

SweepCopies::SweepCopies(const json& doc, const std::string& file) : base_(doc) {
  if (!doc.is_object() || !doc.contains("sweep")) return;
  parameters_ = read_parameters(doc, file, grid_);
  base_.erase("sweep");
  count_ = grid_ ? 1 : parameters_.front().size();
  if (grid_)
    for (const SweepParameter& p : parameters_) count_ *= p.size();
}

SweepCopyDocument SweepCopies::operator[](size_t c) const {
  SweepCopyDocument copy{"", json::object(), base_};
  // Copy c's value of each parameter: its own index c, or in a grid c's digit in the mixed radix
  // of the parameters' counts, the last the fastest.
  size_t rest = c;
  std::vector<size_t> pick(parameters_.size(), c);
  if (grid_)
    for (size_t i = parameters_.size(); i-- > 0;) {
      pick[i] = rest % parameters_[i].size();
      rest /= parameters_[i].size();
    }
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const SweepParameter& p = parameters_[i];
    const json value = p.value(pick[i]);
    copy.document[p.pointer] = value;
    copy.values[p.path] = value;
    copy.label += (copy.label.empty() ? "" : ", ") + short_name(p.path) + " = " + value_text(value);
  }
  return copy;
}

}  // namespace catenary
