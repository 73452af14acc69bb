#include "catenary/model/sweep.hpp"

#include <sstream>

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

}  // namespace

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
