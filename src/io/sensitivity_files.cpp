// sensitivities.json and sensitivities.csv: see include/catenary/io/sensitivity_files.hpp.
#include "catenary/io/sensitivity_files.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "output_file.hpp"
#include "text_output.hpp"

namespace catenary {

void write_sensitivity_files(const std::string& directory, const DesignSensitivities& s) {
  const std::filesystem::path dir(directory);
  nlohmann::json j;
  j["method"] = s.method;
  j["variables"] = nlohmann::json::array();
  for (size_t k = 0; k < s.variables.size(); ++k) j["variables"].push_back({{"path", s.variables[k]}, {"value", s.values[k]}});
  j["objectives"] = nlohmann::json::array();
  for (const ObjectiveSensitivity& o : s.objectives) {
    nlohmann::json derivatives = nlohmann::json::object();
    for (size_t k = 0; k < s.variables.size(); ++k) derivatives[s.variables[k]] = o.derivatives[k];
    j["objectives"].push_back({{"name", o.name}, {"value", o.value}, {"derivatives", derivatives}});
  }
  j["wall_seconds"] = s.wall_seconds;
  write_atomically((dir / kSensitivitiesJson).string(), j.dump(2) + "\n");

  write_atomically((dir / kSensitivitiesCsv).string(), [&](OutputFile& f) {
    std::string header = "objective,value";
    for (const std::string& v : s.variables) header += ',' + csv_field("d/d" + v);
    f.add(header + '\n');
    for (const ObjectiveSensitivity& o : s.objectives) {
      std::string row = csv_field(o.name) + ',' + number(o.value);
      for (double d : o.derivatives) row += ',' + number(d);
      f.add(row + '\n');
    }
  });
}

}  // namespace catenary
