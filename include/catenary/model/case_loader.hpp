#pragma once
// Reads a case file (JSON, format in docs/case-format.md) into a Case.
//
// Every problem in the file throws InputError(file, json_path, rule): json_path is a JSON
// pointer to the offending value (e.g. "/model/bodies/2/elements"; empty for the document as a
// whole, e.g. a file that is not JSON) and rule says in plain words what is wrong. Unknown keys
// are rejected everywhere, required values have no defaults, and the model is built only
// through the builders in builders.hpp. The constraint set is checked for redundant or
// contradictory constraints (check_constraints) before the case is returned.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catenary/core/host_memory.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/sweep.hpp"

namespace catenary {

// The memory a case may take: a model whose elements would need more to build, or a sweep whose
// copies would need more than half of it to hold, is refused before it is built.
struct CaseLimits {
  double memory_bytes = static_cast<double>(available_memory_bytes());
};

// A case file without "sweep".
Case load_case(const std::string& path, const CaseLimits& limits = {});

// A case from its document (without "sweep"), loaded and checked as load_case loads a file;
// `path` names the file it stands for in messages.
Case load_case_document(const nlohmann::json& doc, const std::string& path, const CaseLimits& limits = {});

// A case file with or without "sweep" (docs/case-format.md): one SweepCase per copy that
// `selection` takes (all by default), each loaded and checked like a case of its own (one, with
// empty label, without a sweep; a selection of a case without a sweep is an InputError, as is one
// that names copies the sweep does not have).
struct SweepCase {
  std::string label;      // the values of this copy, e.g. "youngs_modulus = 2e+09"
  nlohmann::json values;  // {"/model/...": value}
  Case c;
  size_t index = 0;       // the copy's number in its sweep (copy_NNNN)
  size_t sweep_size = 1;  // the number of copies of the whole sweep
};
// Before it loads the rest, the memory one copy took (measured) times the copies selected must
// fit in half the machine's memory, or the selection is refused (an InputError at /sweep naming
// both figures).
std::vector<SweepCase> load_cases(const std::string& path, const CopySelection& selection = {},
                                  const CaseLimits& limits = {});
// The same from a case's text in memory (the Python module's cases, built or changed in code):
// `path` names the file it stands for, which messages name and beside which the files it refers
// to (time tables) are found.
std::vector<SweepCase> load_cases_from_text(const std::string& text, const std::string& path,
                                            const CopySelection& selection = {}, const CaseLimits& limits = {});
// The fingerprint of a run of these copies (their Case::fingerprint, in order, hashed), which a
// sweep's checkpoint records.
std::string copies_fingerprint(const std::vector<SweepCase>& cases);

// Every check of load_cases on each copy but the memory's, one copy at a time (what `catenary
// check` runs: it holds one copy, however many the sweep has); returns the number checked.
size_t check_cases(const std::string& path, const CopySelection& selection = {}, const CaseLimits& limits = {});

}  // namespace catenary
