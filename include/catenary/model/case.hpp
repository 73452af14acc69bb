#pragma once
// A case: one model plus what to do with it and what to write.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catenary/model/model.hpp"

namespace catenary {

// The most steps a case file may ask for (analysis.max_steps): load steps, fixed time steps,
// kinematic steps, output frames; an adaptive run stops with an error there.
constexpr long long kDefaultMaxSteps = 1000000;

struct StaticSettings {
  int load_steps = 1;
  long long max_steps = kDefaultMaxSteps;
  int max_iterations = 50;   // Newton iterations per load step
  double tolerance = 1e-10;  // relative tolerance on the coordinate update
};

struct DynamicSettings {
  double end_time = 1.0;
  double step = 1e-3;        // fixed step, or the initial step when adaptive
  enum class Integrator { HHT, GeneralizedAlpha, BDF, SDIRK, RK4, DOPRI5, ABAM };
  Integrator integrator = Integrator::HHT;
  double alpha = -0.1;       // HHT alpha in [-1/3, 0]
  double rho_infinity = 0.8; // generalized-alpha spectral radius at infinite frequency, in [0, 1]
  int max_order = 5;         // BDF: highest order used, 1..5
  // BDF's coefficients when the step changes (src/integrators/bdf.cpp). Variable (ADAMS's WSTIFF
  // form): from the actual time points. Fixed (GSTIFF's): the equal-step coefficients, with the
  // history re-interpolated onto the new step's grid at each change. FixedLeading (DASSL's, ADAMS's
  // DSTIFF): the variable-step predictor corrected with the equal-step leading coefficient.
  enum class BdfCoefficients { Variable, Fixed, FixedLeading };
  BdfCoefficients bdf_coefficients = BdfCoefficients::Variable;
  int stages = 3;            // SDIRK: 2 (order 2) or 3 (order 3), src/integrators/sdirk.cpp
  // rk4, dopri5 and abam (src/integrators/explicit_rk.cpp, abam.cpp): Baumgarte's stabilization
  // of the acceleration constraints, Phi'' + 2 alpha Phi' + beta^2 Phi = 0 (1/s); 0, 0: none.
  double baumgarte_alpha = 0.0, baumgarte_beta = 0.0;
  // rk4, dopri5 and abam: the mechanism's constraints met by coordinate partitioning instead, each
  // step's result projected onto Phi = 0 and Phi' = 0 (integrators/coordinate_partitioning.hpp).
  bool partitioning = false;
  int abam_order = 4;        // ABAM: the order of its predictor and corrector, 1..5 (src/integrators/abam.cpp)
  int max_iterations = 10;   // Newton iterations per step
  double newton_tolerance = 1e-10;  // relative tolerance on the coordinates' error (newmark_newton.cpp)
  bool adaptive = false;
  double min_step = 1e-8, max_step = 1e-2;
  double error_tolerance = 1e-4;  // local error target, relative to characteristic length
  long long max_steps = kDefaultMaxSteps;  // accepted steps; an adaptive run that needs more fails
  // Index3: the position constraints in the Newton step (Negrut et al. scaling). StabilizedIndex2:
  // the velocity constraints in the Newton step, then the positions projected back onto
  // Phi = 0 along H^-1 Phi_q^T (time_stepper.hpp).
  enum class Formulation { Index3, StabilizedIndex2 };
  Formulation formulation = Formulation::Index3;
  // Full: the Newton matrix is assembled and factorized at every iteration. Modified: a matrix
  // is kept across iterations and steps (while the coefficients stay the same) as long as each
  // update is at most half the previous one, and refreshed otherwise; a step that fails from a
  // kept matrix is retried with a fresh one. Fewer element Jacobian passes and factorizations for
  // more, cheaper iterations (Chrono's SetModifiedNewton keeps it within a step).
  enum class Newton { Full, Modified };
  Newton newton = Newton::Full;
  // Rigid contacts: a step across which a contact point's gap changes sign is shortened until the
  // gap at its end is within this distance of zero (m; src/integrators/contact_events.hpp).
  double event_tolerance = 1e-6;
  // The start: the given initial state made consistent (false), or the static equilibrium under
  // the loads at t = 0, at rest (true), found by these settings' load stepping.
  bool static_start = false;
  StaticSettings start_statics;
};

// Kinematic analysis of a zero-DOF rigid mechanism (run_kinematics): positions, velocities,
// accelerations and, by inverse dynamics, the driver efforts and joint reactions every `step`.
struct KinematicSettings {
  double end_time = 1.0;
  double step = 1e-2;
  long long max_steps = kDefaultMaxSteps;
};

// Linearized eigen analysis (integrators/eigen_analysis.hpp): the `modes` modes nearest the real
// shift (1/s) about the static equilibrium (static_equilibrium, by these statics) or the given
// state made consistent; each drawn for ParaView as mode_frames frames over one period, its
// largest position displacement `amplitude` metres (0: a tenth of the model's characteristic
// length).
struct EigenSettings {
  int modes = 10;
  double shift = 0.0;
  bool static_equilibrium = true;
  StaticSettings statics;
  int mode_frames = 12;
  double amplitude = 0.0;
};

// Static: equilibrium. Dynamic: time integration. Assembly: the consistent initial state alone
// (positions and velocities projected onto the constraints), reporting what moved. Kinematic:
// see KinematicSettings. Eigen: see EigenSettings.
// The CUDA backend's linear solver (the CPU backend takes its own chain elimination or UMFPACK:
// docs/case-format.md, analysis.linear_solver): Auto takes a block-tridiagonal method for chain
// models (block cyclic reduction for long chains, elimination along each chain for many short
// ones: preferred_block_method; and for modified Newton on thousands of equal chains:
// interleaved_elimination_preferred) and sparse QR otherwise; Krylov (GMRES, block-Jacobi) only
// when asked.
enum class LinearSolverChoice { Auto, BlockTridiagonal, ChainElimination, SparseQr, Krylov };
// The case file's names of the choices, in the enum's order.
inline const std::vector<std::string> kLinearSolverNames = {"auto", "block_tridiagonal", "chain_elimination",
                                                            "sparse_qr", "krylov"};
// The choice a name of kLinearSolverNames stands for; none for any other name.
inline std::optional<LinearSolverChoice> linear_solver_from_name(const std::string& name) {
  const auto at = std::find(kLinearSolverNames.begin(), kLinearSolverNames.end(), name);
  if (at == kLinearSolverNames.end()) return std::nullopt;
  return static_cast<LinearSolverChoice>(at - kLinearSolverNames.begin());
}

struct AnalysisSettings {
  enum class Type { Static, Dynamic, Assembly, Kinematic, Eigen };
  Type type = Type::Dynamic;
  StaticSettings statics;
  DynamicSettings dynamics;
  LinearSolverChoice linear_solver = LinearSolverChoice::Auto;
  // Modified Newton's updates on the CUDA block solvers from a float copy of the factors
  // (BlockSolverOptions::float_factors); false: every solve in double.
  bool float_factors = true;
  KinematicSettings kinematics;
  EigenSettings eigen;
};

struct OutputNode {
  std::string label;  // e.g. "cable.end"
  int node = 0;
};

// A statistic of one results.csv column over a run's frames (output.statistics): its largest,
// smallest or largest absolute value, or its value at a time (linear between the frames around
// it). summary.json reports it, and a sweep's table carries it per copy.
struct ColumnStatistic {
  enum class Kind { max, min, max_abs, at };
  std::string column;
  int index = 0;  // the column's place in results.csv
  Kind kind = Kind::max;
  double time = 0.0;  // Kind::at
  // Its name in summary.json and the sweep table: "max(COLUMN)", "min(...)", "max_abs(...)",
  // "COLUMN@TIME".
  std::string name() const;
};

// How a VTU frame stores its arrays: as text, as raw bytes appended after the XML, or as those
// bytes compressed with zlib (io/vtu_writer.hpp).
enum class VtuEncoding { ascii, binary, compressed };

// Rigid bodies' Euler angles in rigid_bodies.csv (output.euler_angles): none, 3-1-3 or 1-2-3
// (rigid/euler_angles.hpp).
enum class EulerAngleColumns { none, z_x_z, x_y_z };

struct OutputSettings {
  std::string directory;          // default: the case name next to the working directory
  double interval = 0.0;          // time between output frames (0: every step)
  std::vector<OutputNode> nodes;  // nodes whose position and velocity go to the CSV
  std::vector<OutputNode> tensions;  // nodes whose line tension goes to the CSV
  std::vector<int> touchdowns;       // lines (body indices) whose touchdown goes to the CSV
  std::vector<ColumnStatistic> statistics;
  bool vtu = true;
  int vtu_samples_per_element = 4;
  VtuEncoding vtu_encoding = VtuEncoding::binary;
  EulerAngleColumns euler_angles = EulerAngleColumns::none;
  // Checkpoints of a dynamic run: every so much simulated time and every so many wall seconds
  // (0: not by that measure; both 0: none).
  double checkpoint_interval = 0.0, checkpoint_wall_interval = 0.0;
};

// One objective of design sensitivities (docs/case-format.md, "sensitivity"): a value of the
// static equilibrium, or with a target its squared difference from the target.
struct SensitivityObjective {
  enum class Type { node_position, reaction, strain_energy, tension, rigid_body };
  std::string name;
  Type type = Type::node_position;
  // node_position: the coordinate node * 2D + component; rigid_body: the body's coordinate
  // rigid_offset + 7 body + component; reaction: the constraint row (its reaction is -lambda);
  // tension: the node; strain_energy: unused.
  int index = 0;
  bool has_target = false;
  double target = 0.0;
};

// Design sensitivities of a static analysis (integrators/static_sensitivity.hpp): the
// derivatives of the objectives at the equilibrium with respect to numbers under /model.
struct SensitivitySettings {
  std::vector<std::string> variables;  // JSON pointers into /model, each naming a number
  std::vector<double> values;          // the variables' values in the case
  std::vector<SensitivityObjective> objectives;
  bool adjoint = false;                // false: the direct method
  double relative_step = 1e-6;         // the central differences' step, relative to |b|
  // The case document without "sensitivity", from which the models with a variable changed are
  // loaded.
  nlohmann::json document;
  bool active() const { return !objectives.empty(); }
};

struct Case {
  std::string name;
  std::string source_file;
  // A hash of the case document with its checkpoint settings left out: a checkpoint resumes only
  // the case it was written for (model/case_fingerprint.hpp).
  std::string fingerprint;
  Model model;
  AnalysisSettings analysis;
  OutputSettings output;
  SensitivitySettings sensitivity;
};

}  // namespace catenary
