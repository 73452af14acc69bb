#pragma once
// Sparsity pattern of the Newton matrix [A Phi_q^T; Phi_q 0] (A: the element blocks of mass,
// stiffness and damping) in compressed sparse column storage, and the gather maps that let
// every Newton iteration write values only: each matrix slot and each force entry knows which
// element-local entries sum into it. Built once per model; summing per slot instead of
// scattering with atomics makes assembly race-free on CPU threads and GPU threads alike.
#include <vector>

#include "catenary/model/model.hpp"

namespace catenary {

struct SystemPattern {
  int dof_count = 0, constraint_count = 0, size = 0;
  int element_dofs = 0;  // 4D: local matrix is element_dofs^2 entries per element
  std::vector<int> col_ptr, row_index;  // CSC, size x size, rows sorted within each column

  // Matrix gather: slot s sums element-local entries slot_sources[slot_source_ptr[s] ..
  // slot_source_ptr[s+1]), indices into the buffer of all elements' local matrices
  // (element e, local (i, j) at e * element_dofs^2 + i * element_dofs + j).
  std::vector<int> slot_source_ptr, slot_sources;
  // Force gather: dof d sums element-local force entries (e * element_dofs + i).
  std::vector<int> dof_source_ptr, dof_sources;
  // Constraint Jacobian entries, in the order of the rows' terms: slot of (dof_count + r, dof)
  // and of (dof, dof_count + r), and the coefficient.
  std::vector<int> constraint_lower_slot, constraint_upper_slot;
  std::vector<double> constraint_coefficient;
  // Slot of each entry of the multibody block (multibody_layout(m).entries), whose values the
  // host writes each assembly.
  std::vector<int> block_slot;

  int nonzeros() const { return static_cast<int>(row_index.size()); }
};

SystemPattern build_system_pattern(const Model& m);

}  // namespace catenary
