#pragma once
// A case file read into a JSON document, strictly: a regular file within a size limit, valid
// JSON without duplicate keys, nested no deeper than a case needs, every number within double
// range. Each refusal is an InputError naming the file, the JSON path and, where the parser
// stopped, the line. Internal to src/model.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace catenary::case_reading {

// The largest case file read (bytes) and the deepest nesting of arrays and objects in it: a case
// is some kilobytes and six levels deep; a sweep's value lists add one.
constexpr std::uintmax_t kLargestCaseFile = std::uintmax_t(64) << 20;
constexpr int kDeepestNesting = 64;

// The JSON document of the case file at path.
nlohmann::json read_case_document(const std::string& path);

// text parsed as the document of `file` (read_case_document's rules but the file's).
nlohmann::json parse_strict(const std::string& text, const std::string& file);

}  // namespace catenary::case_reading
