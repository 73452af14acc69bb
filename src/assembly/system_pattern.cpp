#include "catenary/assembly/system_pattern.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "catenary/model/multibody_layout.hpp"

namespace catenary {

namespace {

// A matrix entry of the pattern: its row and its element-local source (-1: a structural or
// constraint entry without element contribution).
struct RowSource {
  int row, source;
};

// The entries without an element source, bucketed by column: the dof diagonal (kept structurally
// present even for nodes without elements), both constraint blocks and the multibody block. A few
// per dof, so a counting sort of them all is cheap.
struct ColumnBuckets {
  std::vector<size_t> start;  // column c's rows: rows[start[c] .. start[c + 1])
  std::vector<int> rows;
};

ColumnBuckets structural_entries(const Model& m, const MultibodyLayout& block, int dof_count, int size) {
  auto for_each = [&](auto&& add) {
    for (int d = 0; d < dof_count; ++d) add(d, d);
    for (int r = 0; r < m.linear_constraint_count(); ++r)
      for (int dof : m.constraint_rows[r].dofs) {
        add(dof, dof_count + r);
        add(dof_count + r, dof);
      }
    for (const auto& [row, col] : block.entries) add(col, row);
  };
  ColumnBuckets b;
  b.start.assign(size + 1, 0);
  for_each([&](int col, int) { ++b.start[col + 1]; });
  std::partial_sum(b.start.begin(), b.start.end(), b.start.begin());
  b.rows.resize(b.start.back());
  std::vector<size_t> next(b.start.begin(), b.start.end() - 1);
  for_each([&](int col, int row) { b.rows[next[col]++] = row; });
  return b;
}

// The elements at each node, as (element, end) with end 0 for node_a and 1 for node_b.
struct NodeElements {
  std::vector<int> start, element, end;
};

NodeElements node_elements(const ElementBlock& el, int node_count) {
  NodeElements a;
  a.start.assign(node_count + 1, 0);
  for (int e = 0; e < el.size(); ++e) {
    ++a.start[el.node_a[e] + 1];
    ++a.start[el.node_b[e] + 1];
  }
  std::partial_sum(a.start.begin(), a.start.end(), a.start.begin());
  a.element.resize(a.start.back());
  a.end.resize(a.start.back());
  std::vector<int> next(a.start.begin(), a.start.end() - 1);
  for (int e = 0; e < el.size(); ++e)
    for (int end = 0; end < 2; ++end) {
      const int k = next[end == 0 ? el.node_a[e] : el.node_b[e]]++;
      a.element[k] = e;
      a.end[k] = end;
    }
  return a;
}

}  // namespace

// Column by column: a column's entries are the element rows of the elements at its node (found by
// node adjacency, not stored) and its few structural entries, sorted by (row, source): the slots
// in CSC order, each slot's element sources ascending. Storing every (column, row, source) entry
// first instead would hold 144 million of them for a 1,000,000-element cable: sorting them all
// takes 12 s, bucketing them by column 3.4 s plus the first touch of their 1.15 GB.
SystemPattern build_system_pattern(const Model& m) {
  SystemPattern p;
  const ElementBlock& el = m.elements;
  const int ne = el.size();
  const int cpn = m.coordinates_per_node(), nl = 2 * cpn;
  p.dof_count = m.dof_count();
  p.constraint_count = m.constraint_count();
  p.size = p.dof_count + p.constraint_count;
  p.element_dofs = nl;

  const MultibodyLayout block = multibody_layout(m);
  const ColumnBuckets structural = structural_entries(m, block, p.dof_count, p.size);
  const NodeElements at_node = node_elements(el, m.node_count);

  // Capacity for every entry, repeats included: reserved, not touched, beyond the slots' count.
  const size_t entry_bound = static_cast<size_t>(ne) * nl * nl + structural.rows.size();
  p.row_index.reserve(entry_bound);
  p.slot_source_ptr.reserve(entry_bound + 1);
  p.slot_sources.reserve(static_cast<size_t>(ne) * nl * nl);
  p.col_ptr.assign(p.size + 1, 0);
  p.slot_source_ptr.push_back(0);
  std::vector<RowSource> column;
  for (int col = 0; col < p.size; ++col) {
    column.clear();
    if (col < m.node_dof_count()) {
      const int node = col / cpn, c = col % cpn;
      for (int k = at_node.start[node]; k < at_node.start[node + 1]; ++k) {
        const int e = at_node.element[k], j = at_node.end[k] * cpn + c;  // the column's local index
        for (int i = 0; i < nl; ++i) column.push_back({element_global_dof(m, e, i), (e * nl + i) * nl + j});
      }
    }
    for (size_t k = structural.start[col]; k < structural.start[col + 1]; ++k)
      column.push_back({structural.rows[k], -1});
    std::sort(column.begin(), column.end(), [](const RowSource& a, const RowSource& b) {
      return a.row != b.row ? a.row < b.row : a.source < b.source;
    });
    for (auto k = column.begin(); k != column.end();) {
      const int row = k->row;
      p.row_index.push_back(row);
      p.col_ptr[col + 1]++;
      for (; k != column.end() && k->row == row; ++k)
        if (k->source >= 0) p.slot_sources.push_back(k->source);
      p.slot_source_ptr.push_back(static_cast<int>(p.slot_sources.size()));
    }
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
