#pragma once
// The Newton matrix pattern and gather maps built in the backend's memory with Thrust sorts and
// reductions (the CPU backend's SystemPattern, built by column buckets, is the reference in tests).
// Every element-local matrix entry becomes a key (row, column) in the permuted unknown order;
// sorting the keys groups the entries of each CSR slot, so per Newton iteration each slot sums
// its sources without atomics. Built once per model.
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <Eigen/SparseCore>
#include <vector>

#include "catenary/assembly/element_assembly.hpp"
#include "catenary/assembly/unknown_ordering.hpp"
#include "catenary/core/errors.hpp"
#include "catenary/model/model.hpp"
#include "catenary/model/multibody_layout.hpp"
#include "memory_space.cuh"

namespace catenary::cuda {

using SlotKey = unsigned long long;  // (row << 32) | column

CATENARY_HD SlotKey slot_key(int row, int col) {
  return (static_cast<SlotKey>(row) << 32) | static_cast<unsigned int>(col);
}

template <class Space>
struct DevicePattern {
  template <class T>
  using Array = typename Space::template Array<T>;
  int size = 0, nonzeros = 0;
  Array<int> row_ptr, col_index;             // CSR of the matrix in permuted order
  Array<int> slot_source_ptr, slot_sources;  // slot s sums local matrix entries [ptr[s], ptr[s+1])
  // dof d (original order) sums local force entries [ptr[d], ptr[d+1]): their places entry-major
  // (LocalEntryLayout), by element ascending.
  Array<int> dof_source_ptr, dof_sources;
  Array<int> constraint_lower_slot, constraint_upper_slot;
  Array<int> block_slot;  // slot of each multibody block entry (multibody_layout(m).entries)
  Array<double> constraint_coefficient;
  Array<int> original_of;  // unknown at each position
  Array<int> position_of;  // position of each unknown
};

namespace detail {

// Key of local matrix entry k = (e nl + i) nl + j of element e.
struct ElementEntryKey {
  const int *node_a, *node_b, *position_of;
  int local_dofs, per_node;
  CATENARY_HD SlotKey operator()(int k) const {
    const int nl2 = local_dofs * local_dofs, e = k / nl2, i = (k % nl2) / local_dofs, j = k % local_dofs;
    return slot_key(position_of[local_to_global_dof(node_a[e], node_b[e], per_node, i)],
                    position_of[local_to_global_dof(node_a[e], node_b[e], per_node, j)]);
  }
};

// Global dof of local force entry k = e nl + i.
struct ElementForceDof {
  const int *node_a, *node_b;
  int local_dofs, per_node;
  CATENARY_HD int operator()(int k) const {
    const int e = k / local_dofs;
    return local_to_global_dof(node_a[e], node_b[e], per_node, k % local_dofs);
  }
};

// Element-major place k = e N + i of a local force entry to its place in the element passes'
// entry-major layout (LocalEntryLayout, element_assembly.hpp).
template <int N>
struct EntryMajorPlace {
  LocalEntryLayout<N> local;
  CATENARY_HD int operator()(int k) const { return static_cast<int>(local.index(k / N, k % N)); }
};

struct IsElementSource {
  CATENARY_HD int operator()(int source) const { return source >= 0 ? 1 : 0; }
};
struct KeyRow {
  CATENARY_HD int operator()(SlotKey key) const { return static_cast<int>(key >> 32); }
};
struct KeyColumn {
  CATENARY_HD int operator()(SlotKey key) const { return static_cast<int>(key & 0xffffffffull); }
};

}  // namespace detail

// element arrays (node_a, node_b) already in the space; C: the constraint Jacobian (compressed,
// duplicates summed); original_of: newton_unknown_order.
template <class Space>
DevicePattern<Space> build_device_pattern(const Model& m, const ArrayOf<Space, int>& node_a,
                                          const ArrayOf<Space, int>& node_b,
                                          const Eigen::SparseMatrix<double, Eigen::RowMajor>& C,
                                          const std::vector<int>& original_of) {
  using IntArray = ArrayOf<Space, int>;
  const auto policy = Space::policy();
  DevicePattern<Space> p;
  const int n = m.dof_count(), rows = m.constraint_count(), N = n + rows;
  const int ne = m.elements.size(), per_node = m.coordinates_per_node(), nl = 2 * per_node;
  const long long element_entries = static_cast<long long>(ne) * nl * nl;
  if (element_entries > 0x7fffffffll)
    throw BackendUnavailable("the model has more element matrix entries than 32-bit indices address (" +
                             std::to_string(element_entries) + ")");
  p.size = N;
  const std::vector<int> position_of = positions_of(original_of);
  p.original_of = IntArray(original_of.begin(), original_of.end());
  p.position_of = IntArray(position_of.begin(), position_of.end());

  // Entries without element sources: the dof diagonal (kept even where no element reaches) and
  // both constraint blocks.
  std::vector<SlotKey> extra;
  std::vector<SlotKey> lower_query, upper_query;
  std::vector<double> coefficients;
  for (int d = 0; d < n; ++d) extra.push_back(slot_key(position_of[d], position_of[d]));
  for (int r = 0; r < rows; ++r)
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(C, r); it; ++it) {
      const int pr = position_of[n + r], pd = position_of[it.col()];
      lower_query.push_back(slot_key(pr, pd));
      upper_query.push_back(slot_key(pd, pr));
      coefficients.push_back(it.value());
    }
  std::vector<SlotKey> block_query;
  for (const auto& [row, col] : multibody_layout(m).entries)
    block_query.push_back(slot_key(position_of[row], position_of[col]));
  extra.insert(extra.end(), lower_query.begin(), lower_query.end());
  extra.insert(extra.end(), upper_query.begin(), upper_query.end());
  extra.insert(extra.end(), block_query.begin(), block_query.end());

  const size_t total = static_cast<size_t>(element_entries) + extra.size();
  ArrayOf<Space, SlotKey> keys(total);
  IntArray sources(total);
  thrust::counting_iterator<int> first(0);
  thrust::transform(policy, first, first + static_cast<int>(element_entries), keys.begin(),
                    detail::ElementEntryKey{raw<int>(node_a), raw<int>(node_b), raw<int>(p.position_of), nl, per_node});
  thrust::sequence(policy, sources.begin(), sources.begin() + element_entries);
  thrust::copy(extra.begin(), extra.end(), keys.begin() + element_entries);
  thrust::fill(policy, sources.begin() + element_entries, sources.end(), -1);
  thrust::sort_by_key(policy, keys.begin(), keys.end(), sources.begin());

  // One slot per distinct key; count its element sources.
  ArrayOf<Space, SlotKey> slot_keys(total);
  IntArray counts(total);
  const auto ends = thrust::reduce_by_key(policy, keys.begin(), keys.end(),
                                          thrust::make_transform_iterator(sources.begin(), detail::IsElementSource()),
                                          slot_keys.begin(), counts.begin());
  p.nonzeros = static_cast<int>(ends.first - slot_keys.begin());
  slot_keys.resize(p.nonzeros);
  counts.resize(p.nonzeros);
  p.slot_source_ptr = IntArray(p.nonzeros + 1, 0);
  thrust::inclusive_scan(policy, counts.begin(), counts.end(), p.slot_source_ptr.begin() + 1);
  p.slot_sources = std::move(sources);
  p.slot_sources.erase(thrust::remove(policy, p.slot_sources.begin(), p.slot_sources.end(), -1), p.slot_sources.end());

  // CSR rows and columns from the sorted keys.
  IntArray slot_rows(p.nonzeros);
  thrust::transform(policy, slot_keys.begin(), slot_keys.end(), slot_rows.begin(), detail::KeyRow());
  p.col_index = IntArray(p.nonzeros);
  thrust::transform(policy, slot_keys.begin(), slot_keys.end(), p.col_index.begin(), detail::KeyColumn());
  p.row_ptr = IntArray(N + 1);
  thrust::lower_bound(policy, slot_rows.begin(), slot_rows.end(), first, first + N + 1, p.row_ptr.begin());

  // Slots of the constraint entries, found by binary search among the sorted keys.
  ArrayOf<Space, SlotKey> lower(lower_query.begin(), lower_query.end()), upper(upper_query.begin(), upper_query.end());
  p.constraint_lower_slot = IntArray(lower.size());
  p.constraint_upper_slot = IntArray(upper.size());
  thrust::lower_bound(policy, slot_keys.begin(), slot_keys.end(), lower.begin(), lower.end(), p.constraint_lower_slot.begin());
  thrust::lower_bound(policy, slot_keys.begin(), slot_keys.end(), upper.begin(), upper.end(), p.constraint_upper_slot.begin());
  p.constraint_coefficient = ArrayOf<Space, double>(coefficients.begin(), coefficients.end());
  const ArrayOf<Space, SlotKey> block(block_query.begin(), block_query.end());
  p.block_slot = IntArray(block.size());
  thrust::lower_bound(policy, slot_keys.begin(), slot_keys.end(), block.begin(), block.end(), p.block_slot.begin());

  // Force gather: local force entries sorted by global dof (a stable sort of their element-major
  // places: each dof's entries by element, as the CPU sums them), then placed entry-major.
  const int force_entries = ne * nl;
  IntArray dofs(force_entries);
  thrust::transform(policy, first, first + force_entries, dofs.begin(),
                    detail::ElementForceDof{raw<int>(node_a), raw<int>(node_b), nl, per_node});
  p.dof_sources = IntArray(force_entries);
  thrust::sequence(policy, p.dof_sources.begin(), p.dof_sources.end());
  thrust::stable_sort_by_key(policy, dofs.begin(), dofs.end(), p.dof_sources.begin());
  if (nl == 12)
    thrust::transform(policy, p.dof_sources.begin(), p.dof_sources.end(), p.dof_sources.begin(),
                      detail::EntryMajorPlace<12>{{ne}});
  else
    thrust::transform(policy, p.dof_sources.begin(), p.dof_sources.end(), p.dof_sources.begin(),
                      detail::EntryMajorPlace<8>{{ne}});
  p.dof_source_ptr = IntArray(n + 1);
  thrust::lower_bound(policy, dofs.begin(), dofs.end(), first, first + n + 1, p.dof_source_ptr.begin());
  return p;
}

}  // namespace catenary::cuda
