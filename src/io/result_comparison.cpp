#include "catenary/io/result_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

namespace catenary {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;    // label columns hold 0 here
  std::vector<std::vector<std::string>> labels;  // per row, the label columns' text in order
};

std::string format(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", x);
  return buffer;
}

// One CSV record: a quoted field may hold a line break, so lines are joined until the quotes
// balance. Drops a trailing '\r' (files edited on Windows).
bool read_record(std::istream& in, std::string& record) {
  if (!std::getline(in, record)) return false;
  auto quotes_open = [](const std::string& s) { return std::count(s.begin(), s.end(), '"') % 2 == 1; };
  for (std::string more; quotes_open(record) && std::getline(in, more);) record += '\n' + more;
  if (!record.empty() && record.back() == '\r') record.pop_back();
  return true;
}

// strtod accepts what number() writes, including nan and inf; the whole field must be the number.
bool parse_number(const std::string& field, double& x) {
  if (field.empty()) return false;
  char* end = nullptr;
  x = std::strtod(field.c_str(), &end);
  return end == field.c_str() + field.size();
}

// Reads a results.csv into `table`; on failure returns the problem, else an empty string.
std::string read_table(const std::string& path, CsvTable& table) {
  std::ifstream in(path);
  if (!in) return "cannot read " + path;
  std::string record;
  if (!read_record(in, record)) return path + ": empty file (no header)";
  table.header = split_csv_line(record);
  for (long line = 2; read_record(in, record); ++line) {
    if (record.empty()) continue;
    const std::vector<std::string> fields = split_csv_line(record);
    const std::string where = path + ":" + std::to_string(line) + ": ";
    if (fields.size() != table.header.size())
      return where + std::to_string(fields.size()) + " fields, the header has " +
             std::to_string(table.header.size());
    std::vector<double> row(fields.size(), 0.0);
    std::vector<std::string> labels;
    for (size_t j = 0; j < fields.size(); ++j)
      if (is_label_column(table.header[j]))
        labels.push_back(fields[j]);
      else if (!parse_number(fields[j], row[j]))
        return where + "column '" + table.header[j] + "': not a number: '" + fields[j] + "'";
    table.rows.push_back(std::move(row));
    table.labels.push_back(std::move(labels));
  }
  return {};
}

// |a - b|, with equal infinities and two NaNs counted as agreeing and one NaN as infinitely far.
double difference(double a, double b) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return 0.0;
  const double d = std::fabs(a - b);
  return std::isnan(d) ? kInfinity : d;
}

// The header mismatch, or an empty string when the headers are the same.
std::string header_problem(const CsvTable& ref, const CsvTable& other) {
  const size_t n = std::min(ref.header.size(), other.header.size());
  for (size_t j = 0; j < n; ++j)
    if (ref.header[j] != other.header[j])
      return "headers differ: column " + std::to_string(j + 1) + " is '" + ref.header[j] +
             "' in the reference and '" + other.header[j] + "' in the other file";
  if (ref.header.size() != other.header.size())
    return "headers differ: the reference has " + std::to_string(ref.header.size()) +
           " columns, the other file " + std::to_string(other.header.size());
  return {};
}

ColumnComparison compare_column(const CsvTable& ref, const CsvTable& other, size_t column, long rows,
                                const ComparisonTolerance& tol) {
  ColumnComparison c;
  c.name = ref.header[column];
  c.informational = is_informational_column(c.name);
  double scale = 0.0;  // largest finite magnitude of the reference column
  for (long i = 0; i < rows; ++i) {
    const double a = ref.rows[i][column], d = difference(a, other.rows[i][column]);
    if (std::isfinite(a)) scale = std::max(scale, std::fabs(a));
    if (d > c.max_abs_diff) {
      c.max_abs_diff = d;
      c.worst_row = i;
    }
  }
  c.reference_scale = scale;
  if (c.max_abs_diff > 0.0) c.max_rel_diff = scale > 0.0 ? c.max_abs_diff / scale : kInfinity;
  c.pass = c.informational || c.max_abs_diff <= tol.atol || c.max_rel_diff <= tol.rtol;
  return c;
}

// Judges c against `scale` where that is larger than its own magnitude.
void judge_against(ColumnComparison& c, double scale, const ComparisonTolerance& tol) {
  if (c.informational || !(scale > c.reference_scale)) return;
  c.reference_scale = scale;
  if (c.max_abs_diff > 0.0) c.max_rel_diff = c.max_abs_diff / scale;
  c.pass = c.max_abs_diff <= tol.atol || c.max_rel_diff <= tol.rtol;
}

ColumnComparison* column_named(std::vector<ColumnComparison>& columns, const std::string& name) {
  for (ColumnComparison& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

// The total energy is a sum whose terms nearly cancel in a conservative run: judge it against
// the largest of its terms, not against its own (tiny) magnitude.
void judge_total_energy_by_its_terms(std::vector<ColumnComparison>& columns, const ComparisonTolerance& tol) {
  ColumnComparison* total = column_named(columns, "total_energy");
  if (!total) return;
  double scale = 0.0;
  for (const char* term : {"kinetic_energy", "gravitational_energy", "elastic_energy"})
    if (const ColumnComparison* c = column_named(columns, term)) scale = std::max(scale, c->reference_scale);
  judge_against(*total, scale, tol);
}

// A contact's friction force (contacts.csv, C.friction_force) nears zero where a line comes to
// rest, and there the regularized law turns velocities that agree to round-off into forces that
// differ by as much over the slip velocity: judge it against the contact's normal force, the scale
// friction is a fraction of (a rope of rope_drop_sweep at rest: friction 2e-4 N against a normal
// force of 1 N differed by 1.7e-10 N).
void judge_friction_by_the_normal_force(std::vector<ColumnComparison>& columns, const ComparisonTolerance& tol) {
  const std::string friction = ".friction_force", normal = ".normal_force";
  for (ColumnComparison& c : columns) {
    if (c.name.size() <= friction.size() ||
        c.name.compare(c.name.size() - friction.size(), friction.size(), friction) != 0)
      continue;
    if (const ColumnComparison* n = column_named(columns, c.name.substr(0, c.name.size() - friction.size()) + normal))
      judge_against(c, n->reference_scale, tol);
  }
}

// An undamped mode's eigenvalue is imaginary, its real part and damping ratio the round-off of the
// eigenvalue's size (modes.csv of cantilever_modes: 4e-8 of 8,150 1/s apart on the host's two
// solvers): judge both parts against the larger, and the damping ratio against 1.
void judge_eigenvalues_by_their_size(std::vector<ColumnComparison>& columns, const ComparisonTolerance& tol) {
  ColumnComparison *real = column_named(columns, "eigenvalue_real"), *imag = column_named(columns, "eigenvalue_imag");
  if (!real || !imag) return;
  const double scale = std::max(real->reference_scale, imag->reference_scale);
  judge_against(*real, scale, tol);
  judge_against(*imag, scale, tol);
  if (ColumnComparison* ratio = column_named(columns, "damping_ratio")) judge_against(*ratio, 1.0, tol);
}

// Rows at different instants make every other column meaningless: say where they part.
std::string time_problem(const CsvTable& ref, const CsvTable& other, const ColumnComparison& time) {
  const long i = time.worst_row;
  return "the rows are at different times (largest gap at data row " + std::to_string(i + 1) +
         ": t = " + format(ref.rows[i][0]) + " s in the reference, " + format(other.rows[i][0]) +
         " s in the other file)";
}

}  // namespace

bool ComparisonReport::pass() const {
  return problems.empty() &&
         std::all_of(columns.begin(), columns.end(), [](const ColumnComparison& c) { return c.pass; });
}

bool is_informational_column(const std::string& name) {
  return name == "step" || name == "newton_iterations";
}

bool is_label_column(const std::string& name) { return name == "body"; }

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';  // "" inside quotes: one literal quote
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

ComparisonReport compare_result_files(const std::string& reference_csv, const std::string& other_csv,
                                      const ComparisonTolerance& tolerance) {
  ComparisonReport report;
  CsvTable ref, other;
  for (const std::string& problem : {read_table(reference_csv, ref), read_table(other_csv, other)})
    if (!problem.empty()) report.problems.push_back(problem);
  if (!report.problems.empty()) return report;
  if (const std::string problem = header_problem(ref, other); !problem.empty()) {
    report.problems.push_back(problem);
    return report;
  }
  if (ref.rows.size() != other.rows.size())
    report.problems.push_back("row counts differ: " + std::to_string(ref.rows.size()) +
                              " data rows in the reference, " + std::to_string(other.rows.size()) +
                              " in the other file (the first " +
                              std::to_string(std::min(ref.rows.size(), other.rows.size())) + " compared)");
  report.rows = static_cast<long>(std::min(ref.rows.size(), other.rows.size()));
  for (long i = 0; i < report.rows; ++i)
    if (ref.labels[i] != other.labels[i]) {
      report.problems.push_back("the rows are about different things (data row " + std::to_string(i + 1) +
                                " names '" + ref.labels[i].front() + "' in the reference, '" +
                                other.labels[i].front() + "' in the other file)");
      break;
    }
  for (size_t j = 0; j < ref.header.size(); ++j)
    if (!is_label_column(ref.header[j])) report.columns.push_back(compare_column(ref, other, j, report.rows, tolerance));
  judge_total_energy_by_its_terms(report.columns, tolerance);
  judge_friction_by_the_normal_force(report.columns, tolerance);
  judge_eigenvalues_by_their_size(report.columns, tolerance);
  if (!ref.header.empty() && ref.header[0] == "time" && !report.columns[0].pass)
    report.problems.push_back(time_problem(ref, other, report.columns[0]));
  return report;
}

}  // namespace catenary
