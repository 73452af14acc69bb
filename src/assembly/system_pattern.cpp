#include "catenary/assembly/system_pattern.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "catenary/multibody/multibody_block.hpp"

namespace catenary {

namespace {

// Sorts (column, row, source) triples and compresses them into CSC with per-slot source lists.
// Constraint entries carry source = -1 (no element contribution).
struct Entry {
  int col, row, source;
};

}  // namespace

SystemPattern build_system_pattern(const Model& m) {
  SystemPattern p;
  const int ne = m.elements.size();
  const int nl = 2 * m.coordinates_per_node();
  p.dof_count = m.dof_count();
  p.constraint_count = m.constraint_count();
  p.size = p.dof_count + p.constraint_count;
  p.element_dofs = nl;

  std::vector<Entry> entries;
  size_t constraint_terms = 0;
  for (const auto& r : m.constraint_rows) constraint_terms += r.dofs.size();
  const MultibodyLayout block = multibody_layout(m);
  entries.reserve(static_cast<size_t>(ne) * nl * nl + 2 * constraint_terms + p.dof_count + block.entries.size());
  for (int e = 0; e < ne; ++e)
    for (int i = 0; i < nl; ++i)
      for (int j = 0; j < nl; ++j)
        entries.push_back({element_global_dof(m, e, j), element_global_dof(m, e, i), (e * nl + i) * nl + j});
  // Keep the dof diagonal structurally present even for nodes without elements.
  for (int d = 0; d < p.dof_count; ++d) entries.push_back({d, d, -1});
  for (int r = 0; r < m.linear_constraint_count(); ++r)
    for (int dof : m.constraint_rows[r].dofs) {
      entries.push_back({dof, p.dof_count + r, -1});
      entries.push_back({p.dof_count + r, dof, -1});
    }
  for (const auto& [row, col] : block.entries) entries.push_back({col, row, -1});
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.col != b.col ? a.col < b.col : a.row < b.row;
  });

  p.col_ptr.assign(p.size + 1, 0);
  p.slot_source_ptr.push_back(0);
  for (size_t k = 0; k < entries.size();) {
    const int col = entries[k].col, row = entries[k].row;
    p.row_index.push_back(row);
    p.col_ptr[col + 1]++;
    for (; k < entries.size() && entries[k].col == col && entries[k].row == row; ++k)
      if (entries[k].source >= 0) p.slot_sources.push_back(entries[k].source);
    p.slot_source_ptr.push_back(static_cast<int>(p.slot_sources.size()));
  }
  std::partial_sum(p.col_ptr.begin(), p.col_ptr.end(), p.col_ptr.begin());

  auto slot_of = [&](int row, int col) {
    const auto begin = p.row_index.begin() + p.col_ptr[col], end = p.row_index.begin() + p.col_ptr[col + 1];
    return static_cast<int>(std::lower_bound(begin, end, row) - p.row_index.begin());
  };
  for (const auto& [row, col] : block.entries) p.block_slot.push_back(slot_of(row, col));
  for (int r = 0; r < m.linear_constraint_count(); ++r) {
    const ConstraintRow& row = m.constraint_rows[r];
    for (size_t t = 0; t < row.dofs.size(); ++t) {
      p.constraint_lower_slot.push_back(slot_of(p.dof_count + r, row.dofs[t]));
      p.constraint_upper_slot.push_back(slot_of(row.dofs[t], p.dof_count + r));
      p.constraint_coefficient.push_back(row.coefficients[t]);
    }
  }

  // Force gather map: counting sort of element-local force entries by global dof.
  p.dof_source_ptr.assign(p.dof_count + 1, 0);
  for (int e = 0; e < ne; ++e)
    for (int i = 0; i < nl; ++i) p.dof_source_ptr[element_global_dof(m, e, i) + 1]++;
  std::partial_sum(p.dof_source_ptr.begin(), p.dof_source_ptr.end(), p.dof_source_ptr.begin());
  p.dof_sources.assign(static_cast<size_t>(ne) * nl, 0);
  std::vector<int> fill(p.dof_source_ptr.begin(), p.dof_source_ptr.end() - 1);
  for (int e = 0; e < ne; ++e)
    for (int i = 0; i < nl; ++i) p.dof_sources[fill[element_global_dof(m, e, i)]++] = e * nl + i;
  return p;
}

}  // namespace catenary
