#pragma once
// A case file's values read with their place in it, for the errors that name the file, the JSON
// path and the rule broken: the strict getters, "did you mean" hints, time functions and
// references to a model's bodies and nodes that the case loader (case_loader.cpp) and its
// mechanism part (mechanism_reader.cpp) share. Internal to src/model.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/core/small_matrix.hpp"
#include "catenary/core/time_function.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/model.hpp"

namespace catenary::case_reading {

using json = nlohmann::json;

constexpr double kPi = 3.14159265358979323846;

// A JSON pointer's escapes (RFC 6901) of an object key.
std::string escape_pointer(const std::string& key);

// A JSON value with its location, for error messages.
struct Node {
  const json& v;
  std::string path;
  const std::string& file;

  [[noreturn]] void fail(const std::string& rule) const { throw InputError(file, path, rule); }
  bool has(const std::string& key) const { return v.is_object() && v.contains(key); }
  Node child(const std::string& key) const { return Node{v.at(key), path + "/" + escape_pointer(key), file}; }
  Node at(size_t i) const { return Node{v.at(i), path + "/" + std::to_string(i), file}; }
  Node required(const std::string& key) const {
    if (!has(key)) throw InputError(file, path + "/" + escape_pointer(key), "required field is missing");
    return child(key);
  }
  std::string got() const { return " (got " + std::string(v.type_name()) + ")"; }
};

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");
// The first `most` items joined, and how many there are in all where there are more (a list of
// the model's bodies in a message).
std::string join_some(const std::vector<std::string>& items, size_t most = 12);
// A string from the case as a message echoes it: at most 60 characters (then "..."), control
// characters written as \xNN.
std::string shown(const std::string& text);
std::string format_number(double x);
// "did you mean 'x'? " for the option closest to word, where it is close; else "".
std::string suggestion(const std::string& word, const std::vector<std::string>& options);

// The value must be an object whose keys are all in `allowed`.
void expect_object(const Node& n, const std::vector<std::string>& allowed);
double get_number(const Node& n);
double get_positive(const Node& n);
double get_non_negative(const Node& n);
int get_int(const Node& n, const std::string& rule = "must be an integer");
int get_positive_int(const Node& n);
bool get_bool(const Node& n);
std::string get_string(const Node& n);
// A non-empty string of at most 200 characters without control characters (a NUL would cut it).
std::string get_name(const Node& n);
std::string get_choice(const Node& n, const std::vector<std::string>& options, const std::string& what);
// The 3 x 3 matrix given by n, an array of 3 rows (checked by the caller) of 3 numbers each; a
// row of another shape fails with `rule`.
Mat<3, 3> get_matrix_rows(const Node& n, const std::string& rule);
// An array of D numbers; 2D vectors get z = 0.
Vec3 get_vector(const Node& n, int D);
// A number (a constant) or a time function object.
TimeFunction read_time_function(const Node& n);

// model[key], where present, an array of objects, each handed to read.
template <class F>
void read_list(const Node& model, const char* key, const char* what, F read) {
  if (!model.has(key)) return;
  const Node list = model.child(key);
  if (!list.v.is_array()) list.fail(std::string("must be an array of ") + what + list.got());
  for (size_t i = 0; i < list.v.size(); ++i) {
    const Node item = list.at(i);
    if (!item.v.is_object()) item.fail("must be an object" + item.got());
    read(item);
  }
}

struct NodeRef {
  int node = 0;
  std::string label;
};

// A body name that must refer to a body defined in /model/bodies; returns its index.
int read_body_reference(const Node& n, const Model& m);
// {"body": name, "index": i or "start" or "end"}.
NodeRef read_node_ref(const Node& n, const Model& m);

}  // namespace catenary::case_reading
