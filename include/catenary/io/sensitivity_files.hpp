#pragma once
// A case's design sensitivities (static or dynamic), beside its results.csv and summary.json:
// sensitivities.json (the method, the variables with their values, each objective's value and
// its derivative with respect to each variable) and sensitivities.csv (a row per objective:
// objective,value,d/d<pointer>...); docs/case-format.md, "sensitivity".
#include <string>

#include "catenary/integrators/design_sensitivities.hpp"

namespace catenary {

// The files' names, which summary.json lists under output_files.
inline const char* const kSensitivitiesJson = "sensitivities.json";
inline const char* const kSensitivitiesCsv = "sensitivities.csv";

// Writes both files into `directory`; OutputError where a write fails.
void write_sensitivity_files(const std::string& directory, const DesignSensitivities& s);

}  // namespace catenary
