#pragma once
// What a run reports over its output frames beyond results.csv's rows: each line's largest node
// tension (the value, the frame's time, the node), for the lines in output.touchdowns the range of
// the touchdown's arc length from the line's first node, and the statistics of results.csv columns
// that output.statistics asks for (model/case.hpp, ColumnStatistic). summary.json reports them, a
// sweep's table carries them per copy, and a checkpoint keeps them so that a resumed run reports
// those of the whole run.
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "catenary/core/state_record.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/line_touchdown.hpp"

namespace catenary {

class RunExtremes {
 public:
  explicit RunExtremes(const Case& c);
  // The frame at time t: the lines' tensions at (q, v), touchdowns[i] of output.touchdowns[i],
  // and its results.csv row as written (numbers only, without its line end).
  void add_frame(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const std::vector<Touchdown>& touchdowns,
                 const std::string& row);
  void save(StateRecord& record, const std::string& prefix) const;
  void restore(const StateRecord& record, const std::string& prefix);
  // summary.json's "line_tensions", "touchdowns" (none before the first frame) and "statistics"
  // (each by its name; null where no frame reached it).
  void add_to_summary(nlohmann::json& summary) const;
  // A sweep table's columns and this run's values (empty fields where none is known yet):
  // LINE.largest_tension and .largest_tension_time for each line, LINE.touchdown_smallest and
  // .touchdown_largest for each line in output.touchdowns, then the statistics by their names.
  std::string table_header() const;
  std::string table_row() const;

 private:
  void add_statistics(const std::string& row);
  const Case& case_;
  // Per line: the largest node tension, its time (-1: no frame yet) and node.
  Eigen::VectorXd tension_, tension_time_, tension_node_;
  // Per output.touchdowns line: the touchdown's smallest and largest arc length (NaN: none yet).
  Eigen::VectorXd touchdown_smallest_, touchdown_largest_;
  // Per output.statistics entry: its value (NaN: not yet known) and its column in the previous
  // row, whose time is previous_time_ (NaN: no row yet; Kind::at interpolates from it).
  Eigen::VectorXd statistic_, previous_;
  double previous_time_;
};

}  // namespace catenary
