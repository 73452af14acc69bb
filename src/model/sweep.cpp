#include "catenary/model/sweep.hpp"

#include <sstream>
#include <stdexcept>

#include "catenary/core/errors.hpp"

namespace catenary {

namespace {

using json = nlohmann::json;

struct Parameter {
  json::json_pointer pointer;
  std::string path;
  const json* values;
};

std::string short_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string value_text(const json& v) {
  if (v.is_number()) {
    std::ostringstream s;
    s << v.get<double>();
    return s.str();
  }
  return v.dump();
}

std::vector<Parameter> read_parameters(const json& doc, const std::string& file) {
  const json& sweep = doc.at("sweep");
  if (!sweep.is_object()) throw InputError(file, "/sweep", "must be an object with \"parameters\"");
  for (const auto& item : sweep.items())
    if (item.key() != "parameters")
      throw InputError(file, "/sweep/" + item.key(), "unknown key (expected \"parameters\")");
  if (!sweep.contains("parameters")) throw InputError(file, "/sweep/parameters", "required field is missing");
  const json& list = sweep.at("parameters");
  if (!list.is_array() || list.empty())
    throw InputError(file, "/sweep/parameters", "must be a non-empty array of {\"path\", \"values\"}");
  std::vector<Parameter> parameters;
  size_t copies = 0;
  for (size_t k = 0; k < list.size(); ++k) {
    const std::string at = "/sweep/parameters/" + std::to_string(k);
    const json& p = list[k];
    if (!p.is_object()) throw InputError(file, at, "must be an object with \"path\" and \"values\"");
    for (const auto& item : p.items())
      if (item.key() != "path" && item.key() != "values")
        throw InputError(file, at + "/" + item.key(), "unknown key (expected \"path\" or \"values\")");
    if (!p.contains("path")) throw InputError(file, at + "/path", "required field is missing");
    if (!p.contains("values")) throw InputError(file, at + "/values", "required field is missing");
    if (!p.at("path").is_string()) throw InputError(file, at + "/path", "must be a JSON pointer string");
    const std::string path = p.at("path").get<std::string>();
    // The analysis and the output are shared by the batch; only the model varies per copy.
    if (path.rfind("/model/", 0) != 0)
      throw InputError(file, at + "/path", "must point into /model (got '" + path + "'): the analysis is shared by all copies");
    Parameter parameter{json::json_pointer(), path, &p.at("values")};
    try {
      parameter.pointer = json::json_pointer(path);
    } catch (const json::exception&) {
      throw InputError(file, at + "/path", "is not a valid JSON pointer: '" + path + "'");
    }
    if (!doc.contains(parameter.pointer))
      throw InputError(file, at + "/path", "no value at '" + path + "' in this case to vary");
    const json& values = p.at("values");
    if (!values.is_array() || values.empty()) throw InputError(file, at + "/values", "must be a non-empty array");
    if (copies == 0) copies = values.size();
    if (values.size() != copies)
      throw InputError(file, at + "/values",
                       "has " + std::to_string(values.size()) + " values, the first parameter " + std::to_string(copies) +
                           ": all parameters of a sweep vary together, one value per copy");
    parameters.push_back(parameter);
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

std::vector<SweepCopyDocument> expand_sweep(const json& doc, const std::string& file) {
  if (!doc.is_object() || !doc.contains("sweep")) return {SweepCopyDocument{"", json::object(), doc}};
  const std::vector<Parameter> parameters = read_parameters(doc, file);
  json base = doc;
  base.erase("sweep");
  std::vector<SweepCopyDocument> copies(parameters.front().values->size());
  for (size_t c = 0; c < copies.size(); ++c) {
    SweepCopyDocument& copy = copies[c];
    copy.document = base;
    copy.values = json::object();
    for (const Parameter& p : parameters) {
      const json& value = (*p.values)[c];
      copy.document[p.pointer] = value;
      copy.values[p.path] = value;
      copy.label += (copy.label.empty() ? "" : ", ") + short_name(p.path) + " = " + value_text(value);
    }
  }
  return copies;
}

}  // namespace catenary
