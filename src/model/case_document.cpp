#include "case_document.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <vector>

#include "case_reading.hpp"
#include "catenary/core/errors.hpp"

namespace catenary::case_reading {

namespace {

// An iterator over the text that records the furthest character the parser has read: the line of
// a refusal made while the parser runs (a duplicate key, nesting too deep).
class ReadPosition {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  ReadPosition(const char* at, const char** furthest) : at_(at), furthest_(furthest) {}
  reference operator*() const { return *at_; }
  ReadPosition& operator++() {
    *furthest_ = std::max(*furthest_, ++at_);
    return *this;
  }
  ReadPosition operator++(int) {
    ReadPosition before = *this;
    ++*this;
    return before;
  }
  bool operator==(const ReadPosition& other) const { return at_ == other.at_; }
  bool operator!=(const ReadPosition& other) const { return at_ != other.at_; }

 private:
  const char* at_;
  const char** furthest_;
};

std::string line_at(const std::string& text, const char* at) {
  const auto end = text.data() + std::min<size_t>(at - text.data(), text.size());
  return std::to_string(1 + std::count(text.data(), end, '\n'));
}

// Builds the document from the parser's events, refusing a duplicate key (nlohmann's own reader
// keeps the last in silence), nesting past kDeepestNesting, and a number beyond double range, each
// at its JSON path and line. Written as a SAX handler because the library's filtering reader scans
// the parent for discarded values at each object's end: quadratic in a list of 100,000 bodies.
class StrictDocument final : public nlohmann::json_sax<nlohmann::json> {
 public:
  using json = nlohmann::json;

  StrictDocument(const std::string& text, const std::string& file, const char* const& furthest)
      : text_(text), file_(file), furthest_(furthest) {}
  json& document() { return root_; }

  bool null() override { return add(nullptr); }
  bool boolean(bool value) override { return add(value); }
  bool number_integer(number_integer_t value) override { return add(value); }
  bool number_unsigned(number_unsigned_t value) override { return add(value); }
  bool number_float(number_float_t value, const string_t&) override { return add(value); }
  bool string(string_t& value) override { return add(std::move(value)); }
  bool binary(binary_t& value) override { return add(json::binary(std::move(value))); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& key) override {
    Open& o = open_.back();
    if (!o.keys.insert(key).second)
      throw InputError(file_, path(&key), "duplicate key '" + shown(key) + "' (line " + line() + ")");
    o.key = std::move(key);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    if (e.id == 406)  // out_of_range: a number beyond double range (1e400, a 400-digit integer)
      throw InputError(file_, path(nullptr),
                       "a number beyond the range of double precision (largest 1.8e308), at line " +
                           line_at(text_, text_.data() + position));
    std::string what = e.what();
    const auto bracket = what.find("] ");
    if (what.rfind("[json.exception", 0) == 0 && bracket != std::string::npos) what = what.substr(bracket + 2);
    throw InputError(file_, "", "not valid JSON: " + what);
  }

 private:
  struct Open {
    json* value;
    std::set<std::string> keys;  // of an object
    std::string key;             // the object's key last read
  };

  std::string line() const { return line_at(text_, furthest_); }

  // The JSON pointer of the value about to be added (with `key`: of that key in the innermost
  // object).
  std::string path(const std::string* key) const {
    std::string p;
    for (size_t k = 0; k < open_.size(); ++k) {
      const Open& o = open_[k];
      const bool last = k + 1 == open_.size();
      if (o.value->is_array())
        p += "/" + std::to_string(o.value->size() - (last ? 0 : 1));
      else
        p += "/" + escape_pointer(last && key ? *key : o.key);
    }
    return p;
  }

  // Adds v to the innermost array or object (or as the document) and returns where it is.
  json* place(json&& v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *open_.back().value;
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    return &(parent[open_.back().key] = std::move(v));
  }
  bool add(json&& v) {
    place(std::move(v));
    return true;
  }
  bool open(json&& container) {
    if (static_cast<int>(open_.size()) == kDeepestNesting)
      throw InputError(file_, path(nullptr),
                       "nested deeper than " + std::to_string(kDeepestNesting) + " arrays and objects (line " +
                           line() + ")");
    json* at = place(std::move(container));
    open_.push_back(Open{at, {}, ""});
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  const std::string& text_;
  const std::string& file_;
  const char* const& furthest_;
  json root_;
  std::vector<Open> open_;
};

}  // namespace

nlohmann::json parse_strict(const std::string& text, const std::string& file) {
  const char* furthest = text.data();
  StrictDocument document(text, file, furthest);
  nlohmann::json::sax_parse(ReadPosition(text.data(), &furthest), ReadPosition(text.data() + text.size(), &furthest),
                            &document);
  return std::move(document.document());
}

nlohmann::json read_case_document(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec) throw InputError(path, "", "cannot open the case file: " + ec.message());
  if (std::filesystem::is_directory(status)) throw InputError(path, "", "is a directory, not a case file");
  if (!std::filesystem::is_regular_file(status))
    throw InputError(path, "", "is not a regular file (a device, a pipe or a socket); a case is read from a file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kLargestCaseFile)
    throw InputError(path, "", "is " + std::to_string(size) + " bytes; a case file may have at most " +
                                   std::to_string(kLargestCaseFile) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot open the case file: ") + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path, "", "cannot read the case file");
  return parse_strict(buffer.str(), path);
}

}  // namespace catenary::case_reading
