#include "catenary/assembly/unknown_ordering.hpp"

#include <amd.h>

#include <algorithm>
#include <stdexcept>

#include "catenary/model/multibody_layout.hpp"

namespace catenary {

std::vector<int> newton_unknown_order(const Model& m) {
  // Vertices: nodes (2D coordinates each), rigid bodies (7 each), constraint rows (1 each).
  const int nodes = m.node_count, bodies = static_cast<int>(m.mechanism.bodies.size());
  const int rows = m.constraint_count(), vertices = nodes + bodies + rows;
  const int per_node = m.coordinates_per_node(), node_dofs = m.node_dof_count(), dofs = m.dof_count();
  auto vertex_of = [&](int unknown) {
    return unknown < node_dofs ? unknown / per_node
           : unknown < dofs    ? nodes + (unknown - node_dofs) / 7
                               : nodes + bodies + (unknown - dofs);
  };
  std::vector<std::vector<int>> adjacent(vertices);
  auto connect = [&](int a, int b) {
    if (a == b) return;
    adjacent[a].push_back(b);
    adjacent[b].push_back(a);
  };
  for (int e = 0; e < m.elements.size(); ++e) connect(m.elements.node_a[e], m.elements.node_b[e]);
  for (int r = 0; r < m.linear_constraint_count(); ++r)
    for (int dof : m.constraint_rows[r].dofs) connect(vertex_of(dofs + r), vertex_of(dof));
  for (const auto& [row, col] : multibody_layout(m).entries) connect(vertex_of(row), vertex_of(col));
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
    else if (v < nodes + bodies)
      for (int k = 0; k < 7; ++k) original_of.push_back(node_dofs + 7 * (v - nodes) + k);
    else
      original_of.push_back(dofs + (v - nodes - bodies));
  }
  return original_of;
}

}  // namespace catenary
