#include "time_table_reader.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace catenary::case_reading {

namespace {

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  for (const char c : line) {
    if (c == ',')
      fields.emplace_back();
    else if (c != '\r')
      fields.back().push_back(c);
  }
  for (std::string& f : fields) {  // trimmed of spaces
    const size_t first = f.find_first_not_of(' '), last = f.find_last_not_of(' ');
    f = first == std::string::npos ? std::string() : f.substr(first, last - first + 1);
  }
  return fields;
}

// Column `column` of a CSV file with a header row, its first column the time: the samples into
// times and values.
void read_csv_column(const Node& n, const std::string& file, const std::string& column, std::vector<double>& times,
                     std::vector<double>& values) {
  const std::filesystem::path path = std::filesystem::path(n.file).parent_path() / file;
  std::ifstream in(path);
  if (!in) n.child("file").fail("cannot read the table '" + path.string() + "'");
  std::string line;
  if (!std::getline(in, line)) n.child("file").fail("the table '" + path.string() + "' is empty (it needs a header row)");
  const std::vector<std::string> header = csv_fields(line);
  size_t index = 0;
  for (size_t k = 1; k < header.size(); ++k)
    if (header[k] == column) index = k;
  if (index == 0) {
    const std::vector<std::string> known(header.begin() + 1, header.end());
    n.child("column").fail("the table '" + path.string() + "' has no column '" + column + "' (" +
                           suggestion(column, known) + "its columns after the time: " + join_some(known) + ")");
  }
  for (long row = 2; std::getline(in, line); ++row) {
    if (csv_fields(line) == std::vector<std::string>{""}) continue;  // a blank line
    const std::vector<std::string> fields = csv_fields(line);
    const auto number = [&](size_t k) {
      size_t used = 0;
      double x = 0.0;
      try {
        x = std::stod(fields.at(k), &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != fields.at(k).size())
        n.child("file").fail(path.string() + " line " + std::to_string(row) + ": '" + fields.at(k) + "' in column '" +
                             header[k] + "' is not a number");
      return x;
    };
    if (fields.size() != header.size())
      n.child("file").fail(path.string() + " line " + std::to_string(row) + " has " + std::to_string(fields.size()) +
                           " fields, the header " + std::to_string(header.size()));
    times.push_back(number(0));
    values.push_back(number(index));
  }
}

}  // namespace

std::shared_ptr<const TimeTable> read_time_table(const Node& n) {
  expect_object(n, {"type", "file", "column", "times", "values", "ramp"});
  std::vector<double> times, values;
  if (n.has("file")) {
    if (n.has("times") || n.has("values")) n.child("file").fail("give the samples as a file or as times and values, not both");
    read_csv_column(n, get_name(n.child("file")), get_name(n.required("column")), times, values);
  } else {
    const Node tn = n.required("times"), vn = n.required("values");
    if (!tn.v.is_array()) tn.fail("must be an array of times (s)" + tn.got());
    if (!vn.v.is_array() || vn.v.size() != tn.v.size())
      vn.fail("must be an array of as many values as there are times (" + std::to_string(tn.v.size()) + ")" + vn.got());
    for (size_t i = 0; i < tn.v.size(); ++i) {
      times.push_back(get_number(tn.at(i)));
      values.push_back(get_number(vn.at(i)));
    }
  }
  try {
    return std::make_shared<const TimeTable>(std::move(times), std::move(values));
  } catch (const std::invalid_argument& e) {
    n.fail(std::string("the table's samples: ") + e.what());
  }
}

}  // namespace catenary::case_reading
