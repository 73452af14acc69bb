#include "output_reader.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "catenary/model/line_touchdown.hpp"
#include "catenary/model/results_columns.hpp"

namespace catenary::case_reading {

namespace {

// /output/statistics: each a results.csv column (of the columns the rest of o gives) and a
// statistic over the frames or a time.
void read_statistics(const Node& list, const Model& m, OutputSettings& o) {
  if (!list.v.is_array()) list.fail("must be an array of {\"column\", \"statistic\" or \"at\"}" + list.got());
  const std::vector<std::string> columns = results_columns(m, o);
  for (size_t i = 0; i < list.v.size(); ++i) {
    const Node item = list.at(i);
    expect_object(item, {"column", "statistic", "at"});
    ColumnStatistic s;
    const Node column = item.required("column");
    s.column = get_name(column);
    const auto at = std::find(columns.begin(), columns.end(), s.column);
    if (at == columns.end())
      column.fail("no column '" + shown(s.column) + "' in results.csv (" + suggestion(s.column, columns) +
                  "columns: " + join_some(columns) + ")");
    s.index = static_cast<int>(at - columns.begin());
    if (item.has("statistic") == item.has("at"))
      item.fail("must give either 'statistic' (\"max\", \"min\" or \"max_abs\") or 'at' (a time)");
    if (item.has("at")) {
      s.kind = ColumnStatistic::Kind::at;
      s.time = get_non_negative(item.child("at"));
    } else {
      const std::string kind = get_choice(item.child("statistic"), {"max", "min", "max_abs"}, "statistic");
      s.kind = kind == "max" ? ColumnStatistic::Kind::max
               : kind == "min" ? ColumnStatistic::Kind::min
                               : ColumnStatistic::Kind::max_abs;
    }
    for (const ColumnStatistic& earlier : o.statistics)
      if (earlier.name() == s.name()) item.fail("repeats " + earlier.name());
    o.statistics.push_back(s);
  }
}

}  // namespace

void read_output(const Node& n, const Model& m, OutputSettings& o) {
  expect_object(n, {"directory", "interval", "nodes", "tensions", "touchdowns", "statistics", "vtu",
                    "vtu_samples_per_element", "vtu_encoding", "euler_angles", "checkpoint_interval",
                    "checkpoint_wall_interval"});
  if (n.has("directory")) o.directory = get_name(n.child("directory"));
  if (n.has("interval")) o.interval = get_non_negative(n.child("interval"));
  for (const auto& [key, list] : {std::pair{"nodes", &o.nodes}, std::pair{"tensions", &o.tensions}}) {
    if (!n.has(key)) continue;
    const Node nodes = n.child(key);
    if (!nodes.v.is_array()) nodes.fail("must be an array of node references" + nodes.got());
    for (size_t i = 0; i < nodes.v.size(); ++i) {
      const NodeRef r = read_node_ref(nodes.at(i), m);
      list->push_back(OutputNode{r.label, r.node});
    }
  }
  if (n.has("touchdowns")) {
    const Node lines = n.child("touchdowns");
    if (!lines.v.is_array()) lines.fail("must be an array of line names" + lines.got());
    for (size_t i = 0; i < lines.v.size(); ++i) {
      const Node at = lines.at(i);
      const int body = read_body_reference(at, m);
      if (!line_has_contact(m, m.bodies[body]))
        at.fail("line '" + m.bodies[body].name + "' touches no contact surface (a touchdown needs one: /model/contacts)");
      o.touchdowns.push_back(body);
    }
  }
  if (n.has("statistics")) read_statistics(n.child("statistics"), m, o);
  if (n.has("vtu")) o.vtu = get_bool(n.child("vtu"));
  if (n.has("vtu_samples_per_element"))
    o.vtu_samples_per_element = get_positive_int(n.child("vtu_samples_per_element"));
  if (n.has("vtu_encoding")) {
    const std::string encoding = get_choice(n.child("vtu_encoding"), {"binary", "compressed", "ascii"}, "VTU encoding");
    o.vtu_encoding = encoding == "binary" ? VtuEncoding::binary
                     : encoding == "compressed" ? VtuEncoding::compressed
                                                : VtuEncoding::ascii;
  }
  if (n.has("euler_angles")) {
    const Node angles = n.child("euler_angles");
    o.euler_angles = get_choice(angles, {"313", "123"}, "Euler angle convention") == "313" ? EulerAngleColumns::z_x_z
                                                                                     : EulerAngleColumns::x_y_z;
    if (m.mechanism.bodies.empty()) angles.fail("the model has no rigid bodies (/model/rigid_bodies) to give angles of");
  }
  if (n.has("checkpoint_interval")) o.checkpoint_interval = get_positive(n.child("checkpoint_interval"));
  if (n.has("checkpoint_wall_interval"))
    o.checkpoint_wall_interval = get_positive(n.child("checkpoint_wall_interval"));
}

}  // namespace catenary::case_reading
