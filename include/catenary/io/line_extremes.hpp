#pragma once
// Each line's extremes over a run's output frames: its largest node tension (the value, the frame's
// time, the node) and, for the lines in output.touchdowns, the range of the touchdown's arc length
// from the line's first node. summary.json reports them, a sweep's table carries them
// per copy, and a checkpoint keeps them so that a resumed run reports those of the whole run.
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "catenary/core/state_record.hpp"
#include "catenary/model/case.hpp"
#include "catenary/model/line_touchdown.hpp"

namespace catenary {

class LineExtremes {
 public:
  explicit LineExtremes(const Case& c);
  // The frame at time t: the lines' tensions at (q, v), and touchdowns[i] of output.touchdowns[i].
  void add_frame(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const std::vector<Touchdown>& touchdowns);
  void save(StateRecord& record, const std::string& prefix) const;
  void restore(const StateRecord& record, const std::string& prefix);
  // summary.json's "line_tensions" and "touchdowns" (none before the first frame).
  void add_to_summary(nlohmann::json& summary) const;
  // A sweep table's columns and this run's values (empty fields where a line has no value yet):
  // LINE.largest_tension and .largest_tension_time for each line, LINE.touchdown_smallest and
  // .touchdown_largest for each line in output.touchdowns.
  std::string table_header() const;
  std::string table_row() const;

 private:
  const Case& case_;
  // Per line: the largest node tension, its time (-1: no frame yet) and node.
  Eigen::VectorXd tension_, tension_time_, tension_node_;
  // Per output.touchdowns line: the touchdown's smallest and largest arc length (NaN: none yet).
  Eigen::VectorXd touchdown_smallest_, touchdown_largest_;
};

}  // namespace catenary
