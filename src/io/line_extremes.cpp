// Each line's extremes over a run's frames (see include/catenary/io/line_extremes.hpp).
#include "catenary/io/line_extremes.hpp"

#include <cmath>
#include <limits>

#include "catenary/model/line_tension.hpp"
#include "text_output.hpp"

namespace catenary {

LineExtremes::LineExtremes(const Case& c) : case_(c) {
  const Eigen::Index lines = static_cast<Eigen::Index>(c.model.bodies.size());
  tension_ = Eigen::VectorXd::Zero(lines);
  tension_time_ = Eigen::VectorXd::Constant(lines, -1.0);
  tension_node_ = Eigen::VectorXd::Zero(lines);
  const Eigen::Index touchdowns = static_cast<Eigen::Index>(c.output.touchdowns.size());
  touchdown_smallest_ = Eigen::VectorXd::Constant(touchdowns, std::numeric_limits<double>::quiet_NaN());
  touchdown_largest_ = touchdown_smallest_;
}

void LineExtremes::add_frame(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                             const std::vector<Touchdown>& touchdowns) {
  const std::vector<LineTension> largest = largest_line_tensions(case_.model, q, v);
  for (size_t b = 0; b < largest.size(); ++b)
    if (tension_time_[b] < 0.0 || largest[b].value > tension_[b]) {
      tension_[b] = largest[b].value;
      tension_time_[b] = t;
      tension_node_[b] = largest[b].node;
    }
  for (size_t i = 0; i < touchdowns.size(); ++i) {
    if (!touchdowns[i].found) continue;
    // fmin and fmax take s over NaN (no touchdown yet).
    touchdown_smallest_[i] = std::fmin(touchdowns[i].arc_length, touchdown_smallest_[i]);
    touchdown_largest_[i] = std::fmax(touchdowns[i].arc_length, touchdown_largest_[i]);
  }
}

void LineExtremes::save(StateRecord& record, const std::string& prefix) const {
  record.set(prefix + "peak_tension", tension_);
  record.set(prefix + "peak_tension_time", tension_time_);
  record.set(prefix + "peak_tension_node", tension_node_);
  record.set(prefix + "touchdown_smallest", touchdown_smallest_);
  record.set(prefix + "touchdown_largest", touchdown_largest_);
}

void LineExtremes::restore(const StateRecord& record, const std::string& prefix) {
  tension_ = record.vector(prefix + "peak_tension", tension_.size());
  tension_time_ = record.vector(prefix + "peak_tension_time", tension_time_.size());
  tension_node_ = record.vector(prefix + "peak_tension_node", tension_node_.size());
  touchdown_smallest_ = record.vector(prefix + "touchdown_smallest", touchdown_smallest_.size());
  touchdown_largest_ = record.vector(prefix + "touchdown_largest", touchdown_largest_.size());
}

void LineExtremes::add_to_summary(nlohmann::json& summary) const {
  const Model& m = case_.model;
  nlohmann::json tensions = nlohmann::json::object();
  for (size_t b = 0; b < m.bodies.size(); ++b)
    if (tension_time_[b] >= 0.0)
      tensions[m.bodies[b].name] = {{"largest", tension_[b]}, {"time", tension_time_[b]},
                                    {"node", static_cast<int>(tension_node_[b])}};
  if (!tensions.empty()) summary["line_tensions"] = tensions;
  nlohmann::json touchdowns = nlohmann::json::object();
  for (size_t i = 0; i < case_.output.touchdowns.size(); ++i)
    if (!std::isnan(touchdown_smallest_[i]))
      touchdowns[m.bodies[case_.output.touchdowns[i]].name] = {{"smallest", touchdown_smallest_[i]},
                                                               {"largest", touchdown_largest_[i]}};
  if (!touchdowns.empty()) summary["touchdowns"] = touchdowns;
}

std::string LineExtremes::table_header() const {
  const Model& m = case_.model;
  std::string h;
  for (const Body& b : m.bodies)
    if (b.element_count > 0) h += ',' + csv_field(b.name + ".largest_tension") + ',' + csv_field(b.name + ".largest_tension_time");
  for (int b : case_.output.touchdowns)
    h += ',' + csv_field(m.bodies[b].name + ".touchdown_smallest") + ',' + csv_field(m.bodies[b].name + ".touchdown_largest");
  return h.empty() ? h : h.substr(1);
}

std::string LineExtremes::table_row() const {
  const Model& m = case_.model;
  std::string row;
  auto field = [&row](bool known, double x) { row += ',' + (known ? number(x) : std::string()); };
  for (size_t b = 0; b < m.bodies.size(); ++b)
    if (m.bodies[b].element_count > 0) {
      field(tension_time_[b] >= 0.0, tension_[b]);
      field(tension_time_[b] >= 0.0, tension_time_[b]);
    }
  for (Eigen::Index i = 0; i < touchdown_smallest_.size(); ++i) {
    field(!std::isnan(touchdown_smallest_[i]), touchdown_smallest_[i]);
    field(!std::isnan(touchdown_largest_[i]), touchdown_largest_[i]);
  }
  return row.empty() ? row : row.substr(1);
}

}  // namespace catenary
