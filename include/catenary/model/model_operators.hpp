#pragma once
// The model's linear operators that every backend builds once from the same definitions: the
// constraint Jacobian C, the external load patterns, and the per-coordinate scales of the
// convergence norm. Backends copy these to their memory; they never re-derive them.
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "catenary/model/model.hpp"

namespace catenary {

// C (constraint_count x dof_count) of the linear constraint rows, row-major.
Eigen::SparseMatrix<double, Eigen::RowMajor> constraint_matrix(const Model& m);

// The rows of a sparse matrix that have entries, listed: row[i] is the i-th such row, its entries
// col and val from ptr[i] to ptr[i + 1] (AddListedRowProducts in vector_kernels.hpp).
struct ListedRows {
  std::vector<int> row, ptr, col;
  std::vector<double> val;
};
// C^T's rows with entries: the coordinates the linear constraints hold. C^T mu adds to these
// alone; as a full matrix-vector product it wrote zeros to every other coordinate.
ListedRows constraint_transpose_rows(const Model& m);

// Gravity forces (the gravitational potential is -q . gravity_vector).
Eigen::VectorXd gravity_vector(const Model& m);

// External loads as g(t) = sum_k scale_k(t) G_k: gravity and the constant loads in the first
// pattern, then one pattern per time-varying distributed or point load.
struct LoadPatterns {
  std::vector<Eigen::VectorXd> vectors;
  std::vector<TimeFunction> scales;
  std::vector<double> scales_at(double t) const;
};
LoadPatterns build_load_patterns(const Model& m);
// build_load_patterns(m).vectors.size(), without building them.
size_t load_pattern_count(const Model& m);

// Scale of each coordinate in the convergence and error norms: the characteristic length for
// positions, 1 for (dimensionless) slopes and Euler parameters.
Eigen::VectorXd coordinate_scales(const Model& m);

// q0 and q0' of all coordinates: the nodes' (Model::initial_positions, initial_velocities), then
// the rigid bodies' (r, p and r', p' from their initial velocity and angular velocity).
Eigen::VectorXd initial_coordinates(const Model& m);
Eigen::VectorXd initial_rates(const Model& m);

// A coordinate in words: "body 'x' node n, coordinate c" (c: x, y, z or slope_x ...) or
// "rigid body 'x', coordinate c" (c: x, y, z or e0 ... e3).
std::string describe_coordinate(const Model& m, int dof);

}  // namespace catenary
