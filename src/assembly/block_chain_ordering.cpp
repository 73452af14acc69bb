#include "catenary/assembly/block_chain_ordering.hpp"

#include <algorithm>
#include <cstdlib>

namespace catenary {

namespace {

std::optional<BlockChainOrdering> refuse(std::string* why, const std::string& reason) {
  if (why) *why = reason;
  return std::nullopt;
}

}  // namespace

std::optional<BlockChainOrdering> node_block_ordering(const Model& m, std::string* why) {
  if (!m.mechanism.empty()) return refuse(why, "the model has rigid bodies");
  if (m.node_count == 0) return refuse(why, "the model has no nodes");
  const int per_node = m.coordinates_per_node(), dofs = m.dof_count();
  std::vector<std::vector<int>> rows_of_node(m.node_count);
  for (int r = 0; r < m.linear_constraint_count(); ++r) {
    const std::vector<int>& d = m.constraint_rows[r].dofs;
    if (d.empty()) return refuse(why, "constraint row " + std::to_string(r) + " has no coordinates");
    rows_of_node[*std::min_element(d.begin(), d.end()) / per_node].push_back(r);
  }
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

std::optional<BlockChainOrdering> block_chain_ordering(const Model& m, std::string* why) {
  for (int e = 0; e < m.elements.size(); ++e)
    if (std::abs(m.elements.node_b[e] - m.elements.node_a[e]) != 1)
      return refuse(why, "element " + std::to_string(e) + " joins nodes " + std::to_string(m.elements.node_a[e]) +
                             " and " + std::to_string(m.elements.node_b[e]) + ", which are not consecutive");
  const int per_node = m.coordinates_per_node();
  for (int r = 0; r < m.linear_constraint_count(); ++r)
    for (int dof : m.constraint_rows[r].dofs)
      if (dof / per_node != m.constraint_rows[r].dofs.front() / per_node)
        return refuse(why, "constraint row " + std::to_string(r) + " couples two nodes");
  std::optional<BlockChainOrdering> o = node_block_ordering(m, why);
  if (!o) return o;
  // Node n + 1 starts a new chain unless an element joins it to node n.
  std::vector<char> joined_to_next(m.node_count, 0);
  for (int e = 0; e < m.elements.size(); ++e)
    joined_to_next[std::min(m.elements.node_a[e], m.elements.node_b[e])] = 1;
  o->chain_ptr.push_back(0);
  for (int n = 0; n + 1 < m.node_count; ++n)
    if (!joined_to_next[n]) o->chain_ptr.push_back(n + 1);
  o->chain_ptr.push_back(m.node_count);
  return o;
}

}  // namespace catenary
