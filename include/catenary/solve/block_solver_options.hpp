#pragma once
// Choices of the block solvers (CPU chain elimination, the CUDA backend's block-tridiagonal
// solvers), passed in at construction. The defaults are the paths catenary runs; the others are
// the general paths the defaults specialise, kept for the tests that check one against the other
// and, for float_factors, for runs that want every solve in double.

namespace catenary {

struct BlockSolverOptions {
  // Take rows that hold a single coordinate (a pinned node's, a clamped end's slopes) out of the
  // blocks (solve/held_rows.hpp); false keeps them in, the blocks then as wide as the widest
  // node block with its rows. A model with a border keeps them in either way.
  bool take_out_held_rows = true;
  // The CUDA block solvers' Newton updates from a float copy of the factors, where a
  // factorization serves several solves (modified Newton; kernels/block_tridiagonal_solver.cu):
  // half the factors' bytes a solve reads, at a relative error of about 6e-8 times the blocks'
  // condition in each solve, which the Newton iteration corrects like any other error of its
  // matrix (docs/performance.md, Linear solvers). false: every solve from the double factors
  // (the case field analysis.float_factors).
  bool float_factors = true;
};

}  // namespace catenary
