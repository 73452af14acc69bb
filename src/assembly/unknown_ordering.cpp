#include "catenary/assembly/unknown_ordering.hpp"

#include <amd.h>

#include <algorithm>
#include <stdexcept>

namespace catenary {

std::vector<int> newton_unknown_order(const Model& m) {
  const int nodes = m.node_count, rows = m.constraint_count(), vertices = nodes + rows;
  const int per_node = m.coordinates_per_node();
  std::vector<std::vector<int>> adjacent(vertices);
  auto connect = [&](int a, int b) {
    if (a == b) return;
    adjacent[a].push_back(b);
    adjacent[b].push_back(a);
  };
  for (int e = 0; e < m.elements.size(); ++e) connect(m.elements.node_a[e], m.elements.node_b[e]);
  for (int r = 0; r < rows; ++r)
    for (int dof : m.constraint_rows[r].dofs) connect(nodes + r, dof / per_node);
  std::vector<int> col_ptr(vertices + 1, 0), row_index;
  for (int v = 0; v < vertices; ++v) {
    std::vector<int>& a = adjacent[v];
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    row_index.insert(row_index.end(), a.begin(), a.end());
    col_ptr[v + 1] = static_cast<int>(row_index.size());
  }
  std::vector<int> order(vertices);
  if (vertices > 0 && amd_order(vertices, col_ptr.data(), row_index.data(), order.data(), nullptr, nullptr) < AMD_OK)
    throw std::runtime_error("AMD ordering of the Newton matrix failed");

  std::vector<int> original_of;
  original_of.reserve(m.dof_count() + rows);
  for (int v : order) {
    if (v < nodes)
      for (int k = 0; k < per_node; ++k) original_of.push_back(v * per_node + k);
    else
      original_of.push_back(m.dof_count() + (v - nodes));
  }
  return original_of;
}

}  // namespace catenary
