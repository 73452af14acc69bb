#pragma once
// Parameter sweeps: a case file with a "sweep" runs many copies of its model, each with some
// values under /model replaced, as one batch (one model of disconnected copies, so each stage is
// one pass over all copies on either backend). The analysis is shared: one time step and one
// Newton loop for the batch.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace catenary {

struct SweepCopyDocument {
  std::string label;      // e.g. "youngs_modulus = 2e+09"
  nlohmann::json values;  // {"/model/...": value, ...} as substituted
  nlohmann::json document;  // the case document of this copy, without "sweep"
};

// Which copies of a sweep a run takes, so that one sweep can be split over jobs (an HPC array job,
// each part on its own GPU or node): all of them, the copies first..last (0-based and inclusive,
// the numbers of copy_NNNN: `run --copies`), or part k of n (k from 0; contiguous parts whose
// sizes differ by at most one: `run --part`).
struct CopySelection {
  enum class Kind { All, Copies, Part } kind = Kind::All;
  size_t a = 0, b = 0;  // Copies: first and last; Part: k and n
  std::string option;   // as the user gave it ("--copies 3-7"), for messages
};
// "A-B" or "A" for --copies, "K/N" for --part; throw std::invalid_argument saying what is wanted.
CopySelection parse_copy_range(const std::string& text);
CopySelection parse_copy_part(const std::string& text);
// The first and last copy (inclusive) that `selection` takes of a sweep of `copies` copies;
// throws std::invalid_argument when it names copies the sweep does not have.
std::pair<size_t, size_t> selected_copies(const CopySelection& selection, size_t copies);

// Copy numbers (ascending) for a message: "copy 3", "copies 4, 7 and 9", "copies 0 to 999",
// "copies 2, 10 to 19 and 40" (a run of four or more as a range).
std::string copy_list(const std::vector<size_t>& copies);

// The pointer that path_value (a string at JSON path `at` in the file) gives to a value under
// /model of doc: an InputError where it is not a string, not a valid JSON pointer, outside /model
// (`outside` says why that is refused) or names no value of doc. Sweep parameters and design
// sensitivities' variables name their values so.
nlohmann::json::json_pointer model_value_pointer(const nlohmann::json& doc, const nlohmann::json& path_value,
                                                 const std::string& file, const std::string& at,
                                                 const std::string& outside);

// A range of sweep values (docs/case-format.md, "sweep"): count values from `from` to `to`.
struct SweepRange {
  std::vector<double> from, to;  // one number each, or a vector's components
  size_t count = 0;
  bool log = false;     // equal ratios instead of equal steps
  bool scalar = false;  // numbers, not arrays
};

// One varied value: where it is and its values, a list from the file or a range computed when a
// copy asks for its value.
struct SweepParameter {
  nlohmann::json::json_pointer pointer;
  std::string path;
  nlohmann::json list;  // the values as listed, or null for a range
  SweepRange range;
  size_t size() const;
  nlohmann::json value(size_t k) const;
};

// The copies of a document with a "sweep" object (one copy, the document itself, without it),
// each made when asked for: a sweep of ten million copies holds its parameters, not ten million
// documents. Throws InputError(file, json_path, rule) for a malformed sweep.
class SweepCopies {
 public:
  SweepCopies(const nlohmann::json& doc, const std::string& file);
  size_t size() const { return count_; }
  SweepCopyDocument operator[](size_t c) const;

 private:
  nlohmann::json base_;  // the document without "sweep"
  std::vector<SweepParameter> parameters_;
  bool grid_ = false;
  size_t count_ = 1;
};

}  // namespace catenary
