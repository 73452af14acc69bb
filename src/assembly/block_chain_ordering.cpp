#include "catenary/assembly/block_chain_ordering.hpp"

#include <algorithm>
#include <cstdlib>

#include "catenary/multibody/multibody_block.hpp"

namespace catenary {

namespace {

std::optional<BlockChainOrdering> refuse(std::string* why, const std::string& reason) {
  if (why) *why = reason;
  return std::nullopt;
}

// Node n's coordinates followed by rows_of_node[n], node after node; none if a block would exceed
// kMaxChainBlock unknowns.
std::optional<BlockChainOrdering> node_blocks(const Model& m, const std::vector<std::vector<int>>& rows_of_node,
                                              std::string* why) {
  const int per_node = m.coordinates_per_node(), dofs = m.dof_count();
  BlockChainOrdering o;
  o.block_ptr.push_back(0);
  for (int n = 0; n < m.node_count; ++n) {
    if (per_node + static_cast<int>(rows_of_node[n].size()) > kMaxChainBlock)
      return refuse(why, "node " + std::to_string(n) + " carries " + std::to_string(rows_of_node[n].size()) +
                             " constraint rows, more than a block of " + std::to_string(kMaxChainBlock) + " unknowns holds");
    for (int k = 0; k < per_node; ++k) o.original_of.push_back(n * per_node + k);
    for (int r : rows_of_node[n]) o.original_of.push_back(dofs + r);
    o.block_ptr.push_back(static_cast<int>(o.original_of.size()));
  }
  return o;
}

// The first element that joins nodes which are not consecutive, as a reason; empty if none.
std::string nonconsecutive_element(const Model& m) {
  for (int e = 0; e < m.elements.size(); ++e)
    if (std::abs(m.elements.node_b[e] - m.elements.node_a[e]) != 1)
      return "element " + std::to_string(e) + " joins nodes " + std::to_string(m.elements.node_a[e]) + " and " +
             std::to_string(m.elements.node_b[e]) + ", which are not consecutive";
  return {};
}

// joined[n]: an element joins node n to node n + 1 (otherwise node n + 1 starts a new chain).
std::vector<char> joined_to_next(const Model& m) {
  std::vector<char> joined(m.node_count, 0);
  for (int e = 0; e < m.elements.size(); ++e) joined[std::min(m.elements.node_a[e], m.elements.node_b[e])] = 1;
  return joined;
}

}  // namespace

std::optional<BlockChainOrdering> node_block_ordering(const Model& m, std::string* why) {
  if (!m.mechanism.empty()) return refuse(why, "the model has rigid bodies");
  if (m.node_count == 0) return refuse(why, "the model has no nodes");
  const int per_node = m.coordinates_per_node();
  std::vector<std::vector<int>> rows_of_node(m.node_count);
  for (int r = 0; r < m.linear_constraint_count(); ++r) {
    const std::vector<int>& d = m.constraint_rows[r].dofs;
    if (d.empty()) return refuse(why, "constraint row " + std::to_string(r) + " has no coordinates");
    rows_of_node[*std::min_element(d.begin(), d.end()) / per_node].push_back(r);
  }
  return node_blocks(m, rows_of_node, why);
}

std::optional<BlockChainOrdering> bordered_chain_ordering(const Model& m, std::string* why) {
  if (m.node_count == 0) return refuse(why, "the model has no nodes");
  if (const std::string element = nonconsecutive_element(m); !element.empty()) return refuse(why, element);
  const int per_node = m.coordinates_per_node(), node_dofs = m.node_dof_count(), dofs = m.dof_count();
  std::vector<int> border;
  for (int d = node_dofs; d < dofs; ++d) border.push_back(d);  // rigid bodies' coordinates
  std::vector<std::vector<int>> rows_of_node(m.node_count);
  for (int r = 0; r < m.linear_constraint_count(); ++r) {
    const std::vector<int>& d = m.constraint_rows[r].dofs;
    if (d.empty()) return refuse(why, "constraint row " + std::to_string(r) + " has no coordinates");
    const int node = d.front() / per_node;
    const bool one_node =
        std::all_of(d.begin(), d.end(), [&](int dof) { return dof < node_dofs && dof / per_node == node; });
    if (one_node)
      rows_of_node[node].push_back(r);
    else
      border.push_back(dofs + r);
  }
  for (int r = m.linear_constraint_count(); r < m.constraint_count(); ++r) border.push_back(dofs + r);
  if (static_cast<int>(border.size()) > kMaxBorder)
    return refuse(why, "rigid bodies and rows over several nodes make a border of " + std::to_string(border.size()) +
                           " unknowns, more than " + std::to_string(kMaxBorder));
  std::optional<BlockChainOrdering> o = node_blocks(m, rows_of_node, why);
  if (!o) return o;
  const std::vector<char> joined = joined_to_next(m);
  o->chain_ptr.push_back(0);
  for (int n = 0; n + 1 < m.node_count; ++n)
    if (!joined[n]) o->chain_ptr.push_back(n + 1);
  o->chain_ptr.push_back(m.node_count);
  // The mechanism's terms between cable nodes (a spring between two attached nodes) must stay
  // inside the block tridiagonal.
  if (!m.mechanism.empty())
    for (const auto& [row, col] : multibody_layout(m).entries) {
      if (row >= node_dofs || col >= node_dofs) continue;
      const int a = std::min(row, col) / per_node, b = std::max(row, col) / per_node;
      if (b - a > 1 || (b == a + 1 && !joined[a]))
        return refuse(why, "the mechanism couples nodes " + std::to_string(a) + " and " + std::to_string(b) +
                               ", which are not neighbours in one chain");
    }
  o->original_of.insert(o->original_of.end(), border.begin(), border.end());
  return o;
}

std::optional<BlockChainOrdering> block_chain_ordering(const Model& m, std::string* why) {
  if (!m.mechanism.empty()) return refuse(why, "the model has rigid bodies");
  const int per_node = m.coordinates_per_node();
  for (int r = 0; r < m.linear_constraint_count(); ++r)
    for (int dof : m.constraint_rows[r].dofs)
      if (dof / per_node != m.constraint_rows[r].dofs.front() / per_node)
        return refuse(why, "constraint row " + std::to_string(r) + " couples two nodes");
  return bordered_chain_ordering(m, why);  // no border left to put
}

}  // namespace catenary
