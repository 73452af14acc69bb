#include "catenary/assembly/block_chain_ordering.hpp"

#include <cstdlib>

namespace catenary {

std::optional<BlockChainOrdering> block_chain_ordering(const Model& m, std::string* why) {
  auto refuse = [&](const std::string& reason) -> std::optional<BlockChainOrdering> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (!m.mechanism.empty()) return refuse("the model has rigid bodies");
  if (m.node_count == 0) return refuse("the model has no nodes");
  for (int e = 0; e < m.elements.size(); ++e)
    if (std::abs(m.elements.node_b[e] - m.elements.node_a[e]) != 1)
      return refuse("element " + std::to_string(e) + " joins nodes " + std::to_string(m.elements.node_a[e]) + " and " +
                    std::to_string(m.elements.node_b[e]) + ", which are not consecutive");
  const int per_node = m.coordinates_per_node(), dofs = m.dof_count();
  std::vector<std::vector<int>> rows_of_node(m.node_count);
  for (int r = 0; r < m.linear_constraint_count(); ++r) {
    const std::vector<int>& d = m.constraint_rows[r].dofs;
    if (d.empty()) return refuse("constraint row " + std::to_string(r) + " has no coordinates");
    const int node = d.front() / per_node;
    for (int dof : d)
      if (dof / per_node != node) return refuse("constraint row " + std::to_string(r) + " couples two nodes");
    rows_of_node[node].push_back(r);
  }
  BlockChainOrdering o;
  o.block_ptr.push_back(0);
  for (int n = 0; n < m.node_count; ++n) {
    if (per_node + static_cast<int>(rows_of_node[n].size()) > kMaxChainBlock)
      return refuse("node " + std::to_string(n) + " carries " + std::to_string(rows_of_node[n].size()) +
                    " constraint rows, more than a block of " + std::to_string(kMaxChainBlock) + " unknowns holds");
    for (int k = 0; k < per_node; ++k) o.original_of.push_back(n * per_node + k);
    for (int r : rows_of_node[n]) o.original_of.push_back(dofs + r);
    o.block_ptr.push_back(static_cast<int>(o.original_of.size()));
  }
  return o;
}

}  // namespace catenary
