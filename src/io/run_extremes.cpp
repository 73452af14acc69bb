// What a run reports over its frames (see include/catenary/io/run_extremes.hpp).
#include "catenary/io/run_extremes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "catenary/model/line_tension.hpp"
#include "text_output.hpp"

namespace catenary {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// The row's numbers up to field `last` (rows hold numbers only: no quoted fields).
std::vector<double> fields_of(const std::string& row, int last) {
  std::vector<double> fields;
  const char* at = row.c_str();
  for (int k = 0; k <= last && *at; ++k) {
    char* end = nullptr;
    fields.push_back(std::strtod(at, &end));
    at = *end == ',' ? end + 1 : end;
  }
  return fields;
}

}  // namespace

RunExtremes::RunExtremes(const Case& c) : case_(c), previous_time_(kNone) {
  const Eigen::Index lines = static_cast<Eigen::Index>(c.model.bodies.size());
  tension_ = Eigen::VectorXd::Zero(lines);
  tension_time_ = Eigen::VectorXd::Constant(lines, -1.0);
  tension_node_ = Eigen::VectorXd::Zero(lines);
  const Eigen::Index touchdowns = static_cast<Eigen::Index>(c.output.touchdowns.size());
  touchdown_smallest_ = Eigen::VectorXd::Constant(touchdowns, kNone);
  touchdown_largest_ = touchdown_smallest_;
  statistic_ = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(c.output.statistics.size()), kNone);
  previous_ = statistic_;
}

void RunExtremes::add_frame(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                            const std::vector<Touchdown>& touchdowns, const std::string& row) {
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
  add_statistics(row);
}

void RunExtremes::add_statistics(const std::string& row) {
  const std::vector<ColumnStatistic>& statistics = case_.output.statistics;
  if (statistics.empty()) return;
  int last = 0;
  for (const ColumnStatistic& s : statistics) last = std::max(last, s.index);
  const std::vector<double> fields = fields_of(row, last);
  const double t = fields.at(0);
  const bool first = std::isnan(previous_time_);
  for (size_t k = 0; k < statistics.size(); ++k) {
    const ColumnStatistic& s = statistics[k];
    const Eigen::Index i = static_cast<Eigen::Index>(k);
    const double x = fields.at(static_cast<size_t>(s.index));
    switch (s.kind) {
      // fmax and fmin take x over NaN (none yet); a NaN x (a frame without a touchdown) is passed over.
      case ColumnStatistic::Kind::max: statistic_[i] = std::fmax(statistic_[i], x); break;
      case ColumnStatistic::Kind::min: statistic_[i] = std::fmin(statistic_[i], x); break;
      case ColumnStatistic::Kind::max_abs: statistic_[i] = std::fmax(statistic_[i], std::fabs(x)); break;
      case ColumnStatistic::Kind::at:  // at the first frame at or past the time
        if (t < s.time || (!first && previous_time_ >= s.time)) break;
        if (t == s.time || first)
          statistic_[i] = x;
        else  // linear between the previous frame and this one
          statistic_[i] = previous_[i] + (x - previous_[i]) * (s.time - previous_time_) / (t - previous_time_);
        break;
    }
    previous_[i] = x;
  }
  previous_time_ = t;
}

void RunExtremes::save(StateRecord& record, const std::string& prefix) const {
  record.set(prefix + "peak_tension", tension_);
  record.set(prefix + "peak_tension_time", tension_time_);
  record.set(prefix + "peak_tension_node", tension_node_);
  record.set(prefix + "touchdown_smallest", touchdown_smallest_);
  record.set(prefix + "touchdown_largest", touchdown_largest_);
  record.set(prefix + "statistics", statistic_);
  record.set(prefix + "statistics_previous", previous_);
  record.set(prefix + "statistics_previous_time", previous_time_);
}

void RunExtremes::restore(const StateRecord& record, const std::string& prefix) {
  tension_ = record.vector(prefix + "peak_tension", tension_.size());
  tension_time_ = record.vector(prefix + "peak_tension_time", tension_time_.size());
  tension_node_ = record.vector(prefix + "peak_tension_node", tension_node_.size());
  touchdown_smallest_ = record.vector(prefix + "touchdown_smallest", touchdown_smallest_.size());
  touchdown_largest_ = record.vector(prefix + "touchdown_largest", touchdown_largest_.size());
  statistic_ = record.vector(prefix + "statistics", statistic_.size());
  previous_ = record.vector(prefix + "statistics_previous", previous_.size());
  previous_time_ = record.number(prefix + "statistics_previous_time");
}

void RunExtremes::add_to_summary(nlohmann::json& summary) const {
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
  if (case_.output.statistics.empty()) return;
  nlohmann::json statistics = nlohmann::json::object();
  for (size_t k = 0; k < case_.output.statistics.size(); ++k) {
    const double x = statistic_[static_cast<Eigen::Index>(k)];
    statistics[case_.output.statistics[k].name()] = std::isnan(x) ? nlohmann::json() : nlohmann::json(x);
  }
  summary["statistics"] = statistics;
}

std::string RunExtremes::table_header() const {
  const Model& m = case_.model;
  std::string h;
  for (const Body& b : m.bodies)
    if (b.element_count > 0) h += ',' + csv_field(b.name + ".largest_tension") + ',' + csv_field(b.name + ".largest_tension_time");
  for (int b : case_.output.touchdowns)
    h += ',' + csv_field(m.bodies[b].name + ".touchdown_smallest") + ',' + csv_field(m.bodies[b].name + ".touchdown_largest");
  for (const ColumnStatistic& s : case_.output.statistics) h += ',' + csv_field(s.name());
  return h.empty() ? h : h.substr(1);
}

std::string RunExtremes::table_row() const {
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
  for (Eigen::Index k = 0; k < statistic_.size(); ++k) field(!std::isnan(statistic_[k]), statistic_[k]);
  return row.empty() ? row : row.substr(1);
}

}  // namespace catenary
