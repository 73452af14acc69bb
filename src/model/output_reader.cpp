#include "output_reader.hpp"

#include <string>
#include <utility>

#include "catenary/model/line_touchdown.hpp"

namespace catenary::case_reading {

void read_output(const Node& n, const Model& m, OutputSettings& o) {
  expect_object(n, {"directory", "interval", "nodes", "tensions", "touchdowns", "vtu", "vtu_samples_per_element",
                    "checkpoint_interval", "checkpoint_wall_interval"});
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
  if (n.has("vtu")) o.vtu = get_bool(n.child("vtu"));
  if (n.has("vtu_samples_per_element"))
    o.vtu_samples_per_element = get_positive_int(n.child("vtu_samples_per_element"));
  if (n.has("checkpoint_interval")) o.checkpoint_interval = get_positive(n.child("checkpoint_interval"));
  if (n.has("checkpoint_wall_interval"))
    o.checkpoint_wall_interval = get_positive(n.child("checkpoint_wall_interval"));
}

}  // namespace catenary::case_reading
