#pragma once
// The interface the integrators are written against, implemented once per backend (CPU in
// src/assembly, CUDA in kernels/). A backend owns the per-element work (forces, Jacobians, mass
// products), the Newton matrix and its factorization, and the vectors of a time step: they live
// in the backend's memory (device memory for CUDA), so the one HHT Newton loop runs over either
// backend and only scalars and output frames cross to the host (the SUNDIALS N_Vector idea).
//
// The interface is three parts, each an abstract class an analysis can be written against alone:
// BackendVectors (vectors, their combinations, norms and Newton updates), BackendOperators (the
// model's operators: forces, mass products, the Newton matrix, the constraint products, the
// multibody block's hooks) and BackendFactorization (the Newton matrix's factorization and
// solves). Backend joins them with the backend's name and its timings.
//
// Vectors have dof_count() entries (coordinates, forces) or constraint_count() entries
// (multipliers, constraint residuals). Every analysis holds its state in them; only scalars,
// output frames and the multibody block's few coordinates cross to the host.
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "catenary/assembly/element_assembly.hpp"

namespace catenary {

// A vector in a backend's memory; only the backend that made it reads or writes its storage.
class Vector {
 public:
  class Storage {
   public:
    virtual ~Storage() = default;
  };
  Vector() = default;
  Vector(int size, std::unique_ptr<Storage> storage) : size_(size), storage_(std::move(storage)) {}
  int size() const { return size_; }
  void swap(Vector& other) noexcept {
    std::swap(size_, other.size_);
    storage_.swap(other.storage_);
  }
  template <class T>
  T& storage() { return static_cast<T&>(*storage_); }
  template <class T>
  const T& storage() const { return static_cast<const T&>(*storage_); }

 private:
  int size_ = 0;
  std::unique_ptr<Storage> storage_;
};

// One term a x of a linear combination (Backend::combine).
struct Scaled {
  double a;
  const Vector* x;
};

// What an element pass returns as its force: force_scale f_int(q, v) + mass_scale M (q - origin),
// the terms of a Newton residual that the elements give (Backend::internal_force,
// assemble_newton_matrix); origin null: f_int(q, v) alone. A Newmark step's mass term is
// M (q1 - qhat) (bh2 M a1): formed from q1 and the step's constant origin qhat in the pass, it needs
// no a1 kept up to date through the iteration (2 of a Newton update's coordinate-sized vectors).
// Folded into the pass, the mass product reads the scalar mass and origin there and shares the
// forces' gather: apart (mass_product), it is a pass over the dofs that reads the scalar
// mass again (as an element pass and a gather of its own, on an H100 0.30 ms a launch at 1,000,000
// elements against 0.19 for the whole forces pass; docs/performance.md, Element passes).
// With `from`, the output is from - (force_scale f_int + mass_scale M (q - origin)): a Newton residual whose
// terms that stay fixed through a step (loads, history) the gather that sums the element rows
// subtracts from, instead of a pass of its own over the dofs (it read the output and two vectors
// and wrote the output again: 4 of the sweep's 6,060,000-entry vectors an iteration).
// The configuration of a mass that depends on it (the water's added mass, elements/fluid_load.hpp)
// in a mass product: q null, the constant mass alone.
struct MassAt {
  const Vector* q = nullptr;
  double time = 0.0;
};

// time: the time of the evaluation, which the water's waves read (elements/fluid_load.hpp).
struct ForceTerms {
  double force_scale = 1.0, mass_scale = 0.0;
  const Vector* origin = nullptr;
  const Vector* from = nullptr;
  double time = 0.0;
};

// Linear combinations of the same input vectors, made in one pass by Backend::combine: output j is
// sum_k a[j][k] x[k]. An output may also be an input (each entry reads all inputs before it
// writes). Written once at a step's start, the Newmark predictor's five vectors read three and
// write five; apart, as three combinations and the kinematics, they read and wrote 16.
struct Combinations {
  static constexpr int kMaxInputs = 6, kMaxOutputs = 5;
  Combinations() = default;
  // Throws std::invalid_argument for no inputs or more than kMaxInputs.
  explicit Combinations(std::initializer_list<const Vector*> inputs);
  // The one output y = sum of the terms' a x, terms first .. last (the same limits).
  Combinations(const Scaled* first, const Scaled* last, Vector& y);
  // Adds the output y with a coefficient for each input (in their order); throws
  // std::invalid_argument for another count of coefficients or more than kMaxOutputs outputs.
  Combinations& into(Vector& y, std::initializer_list<double> coefficients);

  int inputs = 0, outputs = 0;
  const Vector* x[kMaxInputs] = {};
  Vector* y[kMaxOutputs] = {};
  double a[kMaxOutputs][kMaxInputs] = {};

 private:
  void add_input(const Vector* v);  // throws past kMaxInputs
  void check_some_input() const;    // throws for none
};

// One vector that follows a Newton update dx by a dx (Backend::add_update).
struct Increment {
  double a;
  Vector* y;
};

// What Backend::add_update measures: the weighted norm of the update (weighted_norm, with the
// index of its worst entry) and max |x| of the updated coordinates (infinite if any is not finite).
struct UpdateNorms {
  double weighted = 0.0;
  int worst = 0;
  double max_abs = 0.0;
};

// Time spent in each stage since a backend was made (seconds), for the benchmarks. With stage
// timing on, the CUDA backend's stages end with the device synchronized, so these are device times
// too (Backend::set_stage_timing).
// Alongside, the counters the benchmark turns into rates: element-pass traffic, Krylov
// iterations, and (CUDA) the backend's device memory.
struct SetupPhase {
  std::string name;
  double seconds = 0.0;
};
struct StageTimings {
  double element = 0.0, assembly = 0.0, factorization = 0.0, solve = 0.0;
  long factorizations = 0;
  double element_bytes = 0.0;    // bytes the element passes read and wrote (element_pass_bytes)
  long linear_iterations = 0;    // iterations of an iterative linear solver (0 for direct ones)
  size_t peak_device_bytes = 0;  // CUDA: device memory the backend held, largest seen at a stage's end
  // The constructor's phases in order (wall time; a device backend waits for the device at each
  // phase's end), so that a large model's setup shows where it goes.
  std::vector<SetupPhase> setup;
};

// Vectors in a backend's memory and what an analysis does with them: linear combinations,
// norms and Newton updates, each one pass over the entries (the fused forms are single passes
// so that a Newton iteration reads each vector as few times as it can).
class BackendVectors {
 public:
  virtual ~BackendVectors() = default;
  virtual Vector make_vector(int size) = 0;  // zero-filled
  virtual void upload(const Eigen::VectorXd& host, Vector& x) = 0;  // sizes must match
  virtual void download(const Vector& x, Eigen::VectorXd& host) = 0;
  virtual void copy(const Vector& x, Vector& y) = 0;
  virtual void axpby(double a, const Vector& x, double b, Vector& y) = 0;  // y = a x + b y
  // The outputs of c, in one pass over the entries: a Newton iteration's residual is one such pass
  // instead of a chain of axpby, each a pass over memory and, on a device, a launch.
  virtual void combine(const Combinations& c) = 0;
  // y = sum of a_k x_k over at most Combinations::kMaxInputs terms (y may be one of the x_k).
  void combine(std::initializer_list<Scaled> terms, Vector& y) { combine(Combinations(terms.begin(), terms.end(), y)); }
  // The same for a count known at run time, of any size: past kMaxInputs terms, one more pass for
  // each kMaxInputs - 1 further terms, with y carrying the sum (y may be one of the first
  // kMaxInputs x_k only; std::invalid_argument if it is a later one).
  void combine(const std::vector<Scaled>& terms, Vector& y);
  // x . y (the same sizes): the slope of a line search on the potential energy (statics).
  virtual double dot(const Vector& x, const Vector& y) = 0;
  // max |x_i|; infinite if any entry is not finite.
  virtual double max_abs(const Vector& x) = 0;
  // maxima[k] = max_abs(*xs[k]) for up to kMaxMaxima vectors in one reduction: on a device, one
  // wait for the host instead of one per vector.
  static constexpr int kMaxMaxima = 3;
  virtual void max_abs_each(std::initializer_list<const Vector*> xs, double* maxima) = 0;
  // max_i |dx_i| / (tol (scale_i + |x_i|)) over the coordinates (scale: characteristic length
  // for positions, 1 for slopes); infinite if any entry is not finite. worst (optional) gets i.
  virtual double weighted_norm(const Vector& dx, const Vector& x, double tol, int* worst) = 0;
  // The same for dx = factor (a - b), without dx written first: a local error estimate's norm
  // (a pass that read a and b and wrote dx, read again: 2 of its 6 coordinate-sized vectors).
  virtual double weighted_difference_norm(double factor, const Vector& a, const Vector& b, const Vector& x,
                                          double tol) = 0;

  // A Newton update in one pass: x += dx and y_k += a_k dx for at most kMaxIncrements vectors that
  // follow it (the step's kinematics), returning the weighted norm of dx at the updated x and
  // max |x|. Apart, the update, the kinematics, the norm and the maximum read and wrote 11
  // coordinate-sized vectors an iteration; together 7 (on a device, one launch and one wait).
  static constexpr int kMaxIncrements = 2;
  virtual UpdateNorms add_update(const Vector& dx, Vector& x, std::initializer_list<Increment> also, double tol) = 0;
};

// The model's operators on backend vectors: the elements' forces, energies and mass products,
// the Newton matrix and its constraint blocks, and the host's multibody block added to them.
class BackendOperators {
 public:
  virtual ~BackendOperators() = default;
  // f = f_int(q, v): elastic plus material damping forces; with terms, their combination with
  // a mass product (ForceTerms).
  virtual void internal_force(const Vector& q, const Vector& v, const ForceTerms& terms, Vector& f) = 0;
  void internal_force(const Vector& q, const Vector& v, Vector& f) { internal_force(q, v, ForceTerms{}, f); }
  // Strain energy (with the contact energy of elements that touch a plane, surface_contact.hpp)
  // at the state of the last internal_force or assemble_newton_matrix call. Apart
  // from the forces because on a device the sum is a wait for the host, which the Newton
  // iterations do not need; frames ask for it.
  virtual double strain_energy() = 0;
  // The same per element (the per-copy energies of a sweep sum them by range).
  virtual void element_energies(std::vector<double>& energies) = 0;
  // Evaluates the elements' strain energy at q (v: their velocities, where the evaluation reads
  // them) and returns it; strain_energy and element_energies then give it. Backend's is a forces
  // pass; the CPU backend evaluates the energies alone, a third of that time. The device's
  // forces pass is no cost beside a frame's downloads.
  virtual double strain_energy_at(const Vector& q, const Vector& v) = 0;
  // y = scale M x + plus.a plus.x (M the consistent mass; plus.x null: scale M x alone), in one
  // pass; x and y distinct. With at.q, M holds the water's added mass at (at.q, at.time) too
  // (elements/fluid_load.hpp); without, it is the constant mass of the elements alone. The
  // coordinates of no element (rigid bodies) get the plus term alone: System adds their mass
  // product.
  virtual void mass_product(const Vector& x, Vector& y, double scale, const Scaled& plus, const MassAt& at) = 0;
  void mass_product(const Vector& x, Vector& y) { mass_product(x, y, 1.0, {0.0, nullptr}, {}); }
  // Writes the Newton matrix c.mass M + c.stiffness K(q, v) + c.damping D(q, v) with the
  // constraint blocks, and returns f_int(q, v) (or with terms, ForceTerms) from the same element pass.
  virtual void assemble_newton_matrix(const Vector& q, const Vector& v, const NewtonMatrixCoefficients& c,
                                      const ForceTerms& terms, Vector& f) = 0;
  void assemble_newton_matrix(const Vector& q, const Vector& v, const NewtonMatrixCoefficients& c, Vector& f) {
    assemble_newton_matrix(q, v, c, ForceTerms{}, f);
  }
  // Infinity norm of the coordinate block of the matrix last assembled, as the elements give it:
  // the largest over the dofs of the sum of |entries| of the element matrix rows that add up to the
  // dof's row. An upper bound of max_i sum_j |a_ij| (equal to it where no entries of two elements
  // cancel), and the scale of the round-off in a residual summed element by element. For the
  // round-off floor of the Newton residual and the analyses' mass/stiffness ratios. Computed with
  // the element pass (a gather of one value per element row) instead of a pass over the matrix:
  // at 6 M rows that pass read ~1.3 GB, 0.48 ms on an H100, for a number that needs no more than
  // its magnitude.
  virtual double newton_matrix_norm() const = 0;
  // y = C x, C the constraint Jacobian.
  virtual void constraint_product(const Vector& x, Vector& y) = 0;
  // y += a C^T mu, on the coordinates the constraints hold alone: the Newton residual takes its
  // C^T mu term this way, without a coordinate-sized vector written with zeros elsewhere and read
  // back (constraint_transpose_rows).
  virtual void add_constraint_transpose_product(double a, const Vector& mu, Vector& y) = 0;

  // --- the multibody block (multibody/multibody_block.hpp), evaluated on the host
  // Adds the values of multibody_layout(model).entries to the matrix last assembled (call
  // between assemble_newton_matrix and factorize).
  virtual void add_block_entries(const std::vector<double>& values) = 0;
  // out[k] = x[index[k]], and x[index[k]] += values[k] (index without repeats).
  virtual void gather(const Vector& x, const std::vector<int>& index, std::vector<double>& out) = 0;
  virtual void scatter_add(const std::vector<int>& index, const std::vector<double>& values, Vector& x) = 0;
};

// The factorization of the Newton matrix last assembled (BackendOperators::assemble_newton_matrix)
// and the solves with it.
class BackendFactorization {
 public:
  virtual ~BackendFactorization() = default;
  // Factorizes the matrix last assembled and returns the new factorization's identity (1, 2, ...
  // in the order made), which factorization() returns until the next factorize(): a solver that
  // keeps a factorization for later iterations (modified Newton) compares the two. Throws
  // SimulationError if the matrix is found singular; no factorization is current then.
  long factorize() {
    factorization_ = 0;
    factorize_matrix();
    return factorization_ = ++factorizations_made_;
  }
  // The identity of the current factorization (the last factorize()'s); 0: none.
  long factorization() const { return factorization_; }
  // [x; y] = A^-1 [rhs_dofs; rhs_constraints] with the last factorization.
  virtual void solve(const Vector& rhs_dofs, const Vector& rhs_constraints, Vector& x, Vector& y) = 0;
  // The same for a Newton update of a time step, which the next iterations correct: a backend may
  // solve it less exactly (the CUDA backend's float factors, block_layout.hpp). One-off
  // solves (initial conditions, projections) take solve().
  virtual void solve_newton_update(const Vector& rhs_dofs, const Vector& rhs_constraints, Vector& x, Vector& y) {
    solve(rhs_dofs, rhs_constraints, x, y);
  }

 protected:
  // The backend's factorization of the matrix last assembled (factorize()); throws
  // SimulationError if it is found singular.
  virtual void factorize_matrix() = 0;

 private:
  long factorization_ = 0, factorizations_made_ = 0;
};

// A backend: the three parts an analysis uses, built for one model, with its name and its timings.
class Backend : public BackendVectors, public BackendOperators, public BackendFactorization {
 public:
  Backend(int dof_count, int constraint_count) : dof_count_(dof_count), constraint_count_(constraint_count) {}
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // The linear solver it factorizes with, in words ("UMFPACK", "block chain elimination",
  // "block cyclic reduction", "GMRES", "sparse QR").
  virtual std::string linear_solver() const = 0;
  int dof_count() const { return dof_count_; }
  int constraint_count() const { return constraint_count_; }

  const StageTimings& timings() const { return timings_; }
  // On (the benchmark's choice): a device backend waits for the device at each stage's end, so that
  // its stage times are device times. Off (the default, as runs read no stage times): its stage
  // times stay 0 and only the whole step's wall time means something. The waits cost a
  // 100,000-element full-Newton step on an H100 1.0 of its 5.9 ms (docs/performance.md, Element
  // passes). The CPU backend's stage timers wait for nothing and always run.
  void set_stage_timing(bool on) { stage_timing_ = on; }

  // A forces pass at q, v (BackendOperators::strain_energy_at).
  double strain_energy_at(const Vector& q, const Vector& v) override;

  // For an output frame of a state already in backend vectors: M v, downloaded, and the strain
  // energy at q as the return value (strain_energy_at q). Nothing is uploaded.
  double strain_energy_and_momentum(const Vector& q, const Vector& v, Eigen::VectorXd& momentum);

 protected:
  // Ends a setup phase of the constructor: its name and the wall seconds of lap (StageTimings::setup).
  void end_setup_phase(const char* name, double lap) { timings_.setup.push_back({name, lap}); }

  StageTimings timings_;
  bool stage_timing_ = false;

 private:
  // A coordinate-sized vector for the forces of strain_energy_at and the momentum of a frame,
  // made on first use.
  Vector& scratch();
  int dof_count_, constraint_count_;
  Vector scratch_;
  bool scratch_made_ = false;
};

}  // namespace catenary
