#pragma once
// The mechanism's part of a Model's equations (rigid bodies, joints, drivers, attachments of
// cable nodes), evaluated on the host for either backend. Rigid parts are small, so per Newton
// iteration the few coordinates they touch come to the host (Backend::gather), and their
// residual terms and Newton-matrix entries go back (Backend::scatter_add, add_block_entries);
// the element work stays in the backend. One implementation serves the CPU and CUDA backends.
//
// Mechanism coordinates x (Mechanism's order: bodies, then attached nodes) map to model
// coordinates through layout().dofs; its rows are the model rows first_row .. first_row + rows.
// Its equations, added to the elements':
//   M(x) x'' + f(x, x', t) + Phi_x^T lambda = g,   Phi(x, t) = 0,
// with f = -(quadratic velocity forces + force elements); gravity on the bodies is part of the
// model's load patterns (gravity_vector), so it needs no per-iteration work.
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "catenary/assembly/element_assembly.hpp"
#include "catenary/model/model.hpp"
#include "catenary/model/multibody_layout.hpp"
#include "catenary/multibody/kinematic_analysis.hpp"

namespace catenary {

class MultibodyBlock {
 public:
  explicit MultibodyBlock(const Model& m);
  bool empty() const { return layout_.dofs.empty(); }
  const MultibodyLayout& layout() const { return layout_; }
  const Mechanism& mechanism() const { return mechanism_; }
  int size() const { return static_cast<int>(layout_.dofs.size()); }

  // f(x, x', t) on the mechanism's coordinates; returns the potential energy of its springs and
  // contacts.
  double internal_force(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t, Eigen::VectorXd& f) const;
  // y = M(x) w (zero on the attached nodes' coordinates: their mass is the elements').
  void mass_product(const Eigen::VectorXd& x, const Eigen::VectorXd& w, Eigen::VectorXd& y) const;
  // Values of layout().entries: the Jacobian in x of
  //   c.mass M(x) w + c.stiffness f(x, v(x), t) + Phi_x^T mu
  // with dv/dx = c.damping / c.stiffness, and c.constraint Phi_x in both constraint blocks.
  // The terms that differentiate M, f and Phi_x are central differences over x (second
  // derivatives of the joint equations are not derived by hand); a cable's contact with a body's
  // shape is differenced element by element (forward differences), over the element's and the
  // body's coordinates. Returns the largest absolute
  // row sum over the coordinate rows (for the residual's round-off floor).
  // With assembly_weights, each body's mass term c.mass M is scaled by its assembly_weight (the
  // metric of the assembly of initial conditions). constraints (optional) receives Phi, nu, gamma
  // and Phi_x at (x, v, t), evaluated for the matrix anyway.
  double newton_matrix(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t, const Eigen::VectorXd& w,
                       const Eigen::VectorXd& mu, const NewtonMatrixCoefficients& c, std::vector<double>& values,
                       bool assembly_weights = false, ConstraintState* constraints = nullptr) const;

 private:
  // f without the cables' contacts with body shapes (those are differenced apart:
  // add_cable_contact_columns).
  double rigid_force(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t, Eigen::VectorXd& f) const;
  Eigen::VectorXd force_terms(const Eigen::VectorXd& x, const Eigen::VectorXd& v, double t, const Eigen::VectorXd& w,
                              const Eigen::VectorXd& mu, double mass, double stiffness) const;
  // Adds to values the central difference of `terms` over x (or v) by colour groups: slots
  // (bodies, attached nodes) whose terms share no coordinate are perturbed together, so a chain of
  // bodies costs a few evaluations per coordinate offset whatever its length.
  template <class Terms>
  void add_difference_columns(const Eigen::VectorXd& at, double scale, Terms terms, std::vector<double>& values) const;
  // Adds the central differences of each touching span's forces over its 19 coordinates (the
  // element's 12, the body's 7): x with weight c.stiffness, then v with weight c.damping.
  void add_cable_contact_columns(const Eigen::VectorXd& x, const Eigen::VectorXd& v, const NewtonMatrixCoefficients& c,
                                 std::vector<double>& values) const;
  // The index of local entry (i, j) in layout().local_entries, or -1 if there is none. The
  // matrix is kept as those entries alone: a sweep of a thousand cranes has 13,000 coordinates,
  // whose dense matrix would cost more to clear than all the rest of a Newton iteration.
  int local_entry(int i, int j) const;

  Mechanism mechanism_;
  MultibodyLayout layout_;
  std::vector<int> slot_first_, slot_count_;     // each slot's first coordinate and count (7 or 6)
  std::vector<std::vector<int>> slot_neighbours_;  // slots whose terms a slot's coordinates change
  std::vector<std::vector<int>> colours_;          // slots perturbed together
  // local_entries (sorted by row, then column) by rows: row i's are entry_row_start_[i] ..
  // entry_row_start_[i + 1] - 1.
  std::vector<int> entry_row_start_;
};

}  // namespace catenary
