#pragma once
// The parts of a matrix in the bordered order (assembly/block_chain_ordering.hpp),
//   A = [T B; C E],   T: the node blocks (p unknowns),   E: the border (m unknowns, m small),
// worked out once on the host for the two solvers that eliminate the border by its Schur
// complement S = E - C T^-1 B: the CUDA backend's (kernels/bordered_solver.cu) and the CPU's
// (solve/chain_solver.hpp). Both then factorize with one solve of T per border column that has
// entries in B (a zero column's T^-1 b is zero), and solve with two:
//   y = T^-1 r_T;  x_b = S^-1 (r_b - C y);  x_T = T^-1 (r_T - B x_b).
#include <vector>

namespace catenary {

// A part of A by rows: the entries of its row i are row_ptr[i] .. row_ptr[i + 1] - 1, each with its
// column inside the part and its index (slot) among A's entries.
struct CsrPart {
  std::vector<int> row_ptr{0}, col, slot;
};

struct BorderSplit {
  int p = 0, m = 0;
  CsrPart t, b, c;  // T (p x p), B (p x m), C (m x p)
  // E column-major: E[e_index[k]] = A's entry e_slot[k].
  std::vector<int> e_index, e_slot;
  // B's entries by border column j: b_column_ptr[j] .. b_column_ptr[j + 1] - 1, each with its row and
  // its index among b's entries.
  std::vector<int> b_column_ptr, b_column_row, b_column_entry;
  std::vector<int> solved_columns;  // the border columns with entries in B
};

// Splits the entries of a size x size matrix (entry s at positions entry_row[s], entry_col[s]) whose
// last m unknowns are the border. Within a part's row, entries keep their order in the lists.
// Throws std::invalid_argument unless 1 <= m < size.
BorderSplit split_border(int size, int m, const std::vector<int>& entry_row, const std::vector<int>& entry_col);

}  // namespace catenary
