#pragma once
// Compares two results.csv files of the same case (e.g. the CPU and the CUDA backend's) column
// by column. `catenary compare` prints the report; the tests call it directly.
#include <string>
#include <vector>

namespace catenary {

// A column passes when max_i |a_i - b_i| <= atol OR that difference / max_i |a_i| <= rtol.
struct ComparisonTolerance {
  double rtol = 1e-8;
  double atol = 1e-12;
};

struct ColumnComparison {
  std::string name;
  double max_abs_diff = 0.0;   // max_i |a_i - b_i| (infinite where one side is NaN)
  double max_rel_diff = 0.0;   // max_abs_diff / reference_scale
  double reference_scale = 0.0;  // max_i |a_i| over the reference file's finite values
  long worst_row = -1;         // data row (0-based) of max_abs_diff; -1 when all rows agree
  bool informational = false;  // reported, never fails the comparison
  bool pass = true;
};

struct ComparisonReport {
  std::vector<ColumnComparison> columns;  // in file order; empty when the headers differ
  std::vector<std::string> problems;      // unreadable files, header / row count / time mismatches
  long rows = 0;                          // data rows compared (the common ones)
  bool pass() const;                      // no problem and every column passes
};

// Columns that may legitimately differ between backends: the step size and the Newton
// iteration count of the step that reached each row.
bool is_informational_column(const std::string& name);

// Columns that name what a row is about (rigid_bodies.csv's "body", one row per body and time):
// compared as text, and rows that differ in them are a problem.
bool is_label_column(const std::string& name);

// Splits one CSV line into fields (RFC 4180: quoted fields may hold commas and doubled quotes).
std::vector<std::string> split_csv_line(const std::string& line);

// Compares other_csv against reference_csv. Never throws for a missing or malformed file: that is
// a problem in the report, and the comparison fails.
ComparisonReport compare_result_files(const std::string& reference_csv, const std::string& other_csv,
                                      const ComparisonTolerance& tolerance = {});

}  // namespace catenary
