#pragma once
// Parameter sweeps: a case file with a "sweep" runs many copies of its model, each with some
// values under /model replaced, as one batch (one model of disconnected copies, so each stage is
// one pass over all copies on either backend). The analysis is shared: one time step and one
// Newton loop for the batch.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace catenary {

struct SweepCopyDocument {
  std::string label;      // e.g. "youngs_modulus = 2e+09"
  nlohmann::json values;  // {"/model/...": value, ...} as substituted
  nlohmann::json document;  // the case document of this copy, without "sweep"
};

// The copies of a document with a "sweep" object (one copy, the document itself, without it).
// Throws InputError(file, json_path, rule) for a malformed sweep.
std::vector<SweepCopyDocument> expand_sweep(const nlohmann::json& doc, const std::string& file);

}  // namespace catenary
