// results.csv's columns (see include/catenary/model/results_columns.hpp).
#include "catenary/model/results_columns.hpp"

#include <nlohmann/json.hpp>

namespace catenary {

std::vector<std::string> results_columns(const Model& m, const OutputSettings& o) {
  static const char* axes[] = {"x", "y", "z"};
  std::vector<std::string> columns = {"time",         "step",        "newton_iterations", "kinetic_energy",
                                      "gravitational_energy", "elastic_energy", "total_energy"};
  for (const OutputNode& n : o.nodes) {
    for (int k = 0; k < m.dimension; ++k) columns.push_back(n.label + '.' + axes[k]);
    for (int k = 0; k < m.dimension; ++k) columns.push_back(n.label + ".v" + axes[k]);
  }
  for (const OutputNode& n : o.tensions) columns.push_back(n.label + ".tension");
  for (int b : o.touchdowns) {
    const std::string& name = m.bodies[b].name;
    columns.push_back(name + ".touchdown");
    for (int k = 0; k < m.dimension; ++k) columns.push_back(name + ".touchdown." + axes[k]);
  }
  for (const ConstraintGroup& g : m.constraint_groups)
    for (int i = 0; i < g.row_count; ++i)
      columns.push_back("reaction." + g.name + '.' +
                        (i < static_cast<int>(g.row_labels.size()) ? g.row_labels[i] : std::to_string(i)));
  return columns;
}

std::string ColumnStatistic::name() const {
  switch (kind) {
    case Kind::max: return "max(" + column + ")";
    case Kind::min: return "min(" + column + ")";
    case Kind::max_abs: return "max_abs(" + column + ")";
    case Kind::at: break;
  }
  return column + "@" + nlohmann::json(time).dump();  // the shortest digits that read back as time
}

}  // namespace catenary
