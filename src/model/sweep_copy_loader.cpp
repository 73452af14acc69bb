// The copies of a case file (with or without "sweep") that a selection takes, each loaded and
// checked as a case of its own (load_case_document), with the sweep's own refusals and the check
// that the selected copies fit in memory.
#include "catenary/model/case_loader.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/core/host_memory.hpp"
#include "catenary/model/model_size.hpp"
#include "catenary/model/sweep.hpp"
#include "case_document.hpp"

namespace catenary {

using nlohmann::json;
using case_reading::parse_strict;
using case_reading::read_case_document;

namespace {

// The copies of a case file that a selection takes, each loaded and checked when asked for.
class SelectedCopies {
 public:
  SelectedCopies(json doc, const std::string& path, const CopySelection& selection, const CaseLimits& limits)
      : path_(path), limits_(limits), doc_(std::move(doc)), copies_(doc_, path) {
    const bool has_sweep = doc_.is_object() && doc_.contains("sweep");
    if (selection.kind != CopySelection::Kind::All && !has_sweep)
      throw InputError(path, "/sweep", selection.option + " selects copies of a sweep, and this case has no sweep");
    try {
      span_ = selected_copies(selection, copies_.size());
    } catch (const std::invalid_argument& e) {
      throw InputError(path, "/sweep", e.what());
    }
    if (has_sweep && doc_.contains("sensitivity"))
      throw InputError(path, "/sensitivity", "a case with a sweep has no sensitivities (each copy would need its own)");
    if (copies_.size() > 1 && doc_.contains("analysis") && doc_["analysis"].is_object() &&
        doc_["analysis"].contains("type") && doc_["analysis"]["type"].is_string()) {
      const std::string type = doc_["analysis"]["type"].get<std::string>();
      if (type == "assembly" || type == "kinematic")
        throw InputError(path, "/analysis/type", "a sweep runs static or dynamic analyses only (got '" + type + "')");
    }
  }

  size_t first() const { return span_.first; }
  size_t last() const { return span_.second; }
  size_t count() const { return span_.second - span_.first + 1; }

  SweepCase load(size_t k) const {
    const SweepCopyDocument copy = copies_[k];
    try {
      return {copy.label, copy.values, load_case_document(copy.document, path_, limits_), k, copies_.size()};
    } catch (const InputError& e) {
      if (copies_.size() == 1) throw;
      throw InputError(e.file(), e.json_path(), e.rule() + " (in sweep copy " + std::to_string(k) + ": " + copy.label + ")");
    }
  }

  // Refuses a selection whose copies, at `bytes_per_copy` each (measured on the first), would take
  // more than half the machine's memory: the run needs as much again for the batch it merges them
  // into, and more for the backend.
  void check_memory(size_t bytes_per_copy) const {
    const double need = static_cast<double>(bytes_per_copy) * static_cast<double>(count());
    const double have = limits_.memory_bytes;
    if (have > 0.0 && need > 0.5 * have)
      throw InputError(path_, "/sweep",
                       "the " + std::to_string(count()) + " copies selected would take " + gibibytes(need) +
                           " of memory to hold (" + std::to_string(bytes_per_copy / 1024) +
                           " KiB each, measured on copy " + std::to_string(first()) + "); this machine has " +
                           gibibytes(have) + ", of which a run's copies may take half: split the sweep with " +
                           "--part K/N or --copies FIRST-LAST");
  }

 private:
  std::string path_;
  CaseLimits limits_;
  json doc_;
  SweepCopies copies_;
  std::pair<size_t, size_t> span_;
};

std::vector<SweepCase> load_selected(const SelectedCopies& copies) {
  std::vector<SweepCase> cases;
  const size_t heap_before = heap_bytes_in_use();
  cases.push_back(copies.load(copies.first()));
  // The heap's count of what loading the copy took, or at least its model's arrays where that
  // count reads nothing (another allocator than glibc's, or a sanitizer's).
  if (copies.count() > 1)
    copies.check_memory(std::max(heap_growth_since(heap_before), model_array_bytes(cases.front().c.model)));
  cases.reserve(copies.count());
  for (size_t k = copies.first() + 1; k <= copies.last(); ++k) cases.push_back(copies.load(k));
  return cases;
}

}  // namespace

std::vector<SweepCase> load_cases(const std::string& path, const CopySelection& selection, const CaseLimits& limits) {
  return load_selected(SelectedCopies(read_case_document(path), path, selection, limits));
}

std::vector<SweepCase> load_cases_from_text(const std::string& text, const std::string& path,
                                            const CopySelection& selection, const CaseLimits& limits) {
  return load_selected(SelectedCopies(parse_strict(text, path), path, selection, limits));
}

size_t check_cases(const std::string& path, const CopySelection& selection, const CaseLimits& limits) {
  const SelectedCopies copies(read_case_document(path), path, selection, limits);
  for (size_t k = copies.first(); k <= copies.last(); ++k) copies.load(k);
  return copies.count();
}

}  // namespace catenary
