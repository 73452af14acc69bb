#pragma once
// The parts of a matrix in the bordered order (assembly/block_chain_ordering.hpp),
//   A = [T B; C E],   T: the node blocks (p unknowns),   E: the border (m unknowns, m small),
// worked out once on the host for the two solvers that eliminate the border by its Schur
// complement S = E - C T^-1 B: the CUDA backend's (kernels/bordered_solver.cu) and the CPU's
// (solve/chain_solver.hpp). A solve takes two solves with T:
//   y = T^-1 r_T;  x_b = S^-1 (r_b - C y);  x_T = T^-1 (r_T - B x_b)
// (one, x_b found between its sweeps, where B and C touch only the block eliminated last).
// A factorization takes one per right-hand side x_l of  S = E - sum_l (C T^-1 x_l) y_l^T:
// either B's columns that have entries (x_l = b_j, y_l = e_j; a zero column's T^-1 b is zero) or
// the unit vectors of B's rows that have entries (x_l = e_r, y_l = row r of B), whichever are
// fewer. A cable hung from a crane's boom: 10 columns with entries, all in its first node's 6 rows.
#include <string>
#include <vector>

#include "catenary/core/host_device.hpp"

namespace catenary {

// The Schur complement needs T regular. A matrix without a mass term (statics, the assembly's
// stiffness metric) leaves a chain that only border rows hold (a cable hung from a rigid body)
// free in T: its block LU meets no exact zero pivot and loses every digit (the sprung boom's
// statics diverged); a rigid body's block is singular without it too. Both backends factorize such
// matrices of a model with a border or rigid blocks (BlockChainOrdering::needs_mass_term) by their
// general solver; a dynamic step's matrix always has the mass.
inline bool border_eliminates(double mass_coefficient) { return mass_coefficient > 0.0; }

// The value of B's entry `entry` of a right-hand side or a term of S (split_border's rhs_entry,
// fold_entry), where -1 stands for 1.0.
CATENARY_HD double border_value(const double* b_values, int entry) { return entry < 0 ? 1.0 : b_values[entry]; }

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
  // The factorization's right-hand sides x_l: entries rhs_ptr[l] .. rhs_ptr[l + 1] - 1, each at
  // row rhs_row (of T) with the value of B's entry rhs_entry (an index into b's entries; -1: 1.0).
  std::vector<int> rhs_ptr{0}, rhs_row, rhs_entry;
  // The terms of S: S(:, fold_column) -= (C T^-1 x_fold_rhs) * (B's entry fold_entry, or 1.0 at -1).
  std::vector<int> fold_rhs, fold_column, fold_entry;
  int right_hand_sides() const { return static_cast<int>(rhs_ptr.size()) - 1; }
  // Whether the right-hand sides and C's columns all lie among T's first `lead` unknowns: with a
  // block solver that eliminates that block last, C T^-1 x_l is then its solve alone
  // (CsrSolver::leading_block_solved_last).
  bool within_leading_block(int lead) const;
};

// Splits the entries of a size x size matrix (entry s at positions entry_row[s], entry_col[s]) whose
// last m unknowns are the border. Within a part's row, entries keep their order in the lists.
// Throws std::invalid_argument unless 1 <= m < size.
BorderSplit split_border(int size, int m, const std::vector<int>& entry_row, const std::vector<int>& entry_col);

// S = E - sum_l cw_l y_l^T (cw: C T^-1 x_l for each right-hand side, m values each, one after
// another; e: E column-major; b_values: B's entries in the order of split.b), LU-factorized with
// partial pivoting into lu (row-major) and pivots. Throws SimulationError, naming `solver`, when S
// is singular.
void factorize_schur_complement(const BorderSplit& split, const std::vector<double>& e, const std::vector<double>& cw,
                                const std::vector<double>& b_values, std::vector<double>& lu, std::vector<int>& pivots,
                                const std::string& solver);

}  // namespace catenary
