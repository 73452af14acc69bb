#pragma once
// The analyses of the core: consistent initial conditions, static equilibrium and implicit
// dynamics (HHT-alpha or generalized-alpha). All are free functions over a System; results
// leave through a FrameSink.
#include <functional>

#include <Eigen/Core>

#include "catenary/assembly/backend_options.hpp"
#include "catenary/core/interruption.hpp"
#include "catenary/core/state_record.hpp"
#include "catenary/integrators/run_results.hpp"
#include "catenary/integrators/system.hpp"
#include "catenary/model/case.hpp"

namespace catenary {

// Hands a state to the sink as an output frame, with the system's energies at it. The elements
// are evaluated last at this state, so during the sink the backend's element_energies are the
// frame's (a sweep splits them per copy).
void emit_frame(System& sys, double time, double step, int iterations, const Eigen::VectorXd& q,
                const Eigen::VectorXd& v, const Eigen::VectorXd& lambda, const FrameSink& sink);
// The same with the energies given (System::energies), and the rigid contacts' impulses since the
// last frame (Frame::contact_impulses).
void emit_frame(double time, double step, int iterations, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                const Eigen::VectorXd& lambda, const System::Energies& E, const FrameSink& sink,
                const Eigen::VectorXd* contact_impulses = nullptr);

struct ConsistentState {
  Eigen::VectorXd q, v, a, lambda;  // lambda: physical multipliers
  double constraint_violation = 0.0;      // max |Phi| after projection
  double position_change = 0.0;           // max |q - q0| made by the projection
};

// Projects q0 onto Phi = 0 (least strain energy change) and v0 onto Phi' = 0 (least kinetic
// energy change), then solves the equations of motion for the initial accelerations and
// multipliers.
ConsistentState consistent_initial_state(System& sys, double t0);
// The accelerations a and multipliers lambda of a state (q, v) at t that meets the constraints:
// M a + Phi_q^T lambda = g - f, Phi_q a = gamma (a method's restart after a velocity jump).
void consistent_accelerations(System& sys, const Vector& q, const Vector& v, double t, Vector& a, Vector& lambda);

// Static equilibrium f_int(q) + Phi_q^T lambda = g with Phi = 0, Newton-Raphson with load
// stepping (automatic bisection of a load step that does not converge) and a backtracking line
// search. Writes one frame per load step. Throws SimulationError when it cannot converge, and
// Interrupted after a load step where `interruption` asks to stop; `summary` holds the statistics
// so far either way.
void run_static(System& sys, const StaticSettings& s, const FrameSink& sink, RunSummary& summary,
                const Interruption* interruption = nullptr);

// The static equilibrium under the loads at t = 0 (run_static's load stepping, without frames),
// at rest, with its accelerations and multipliers: a dynamic run's start with
// DynamicSettings::static_start. Its Newton iterations join summary's.
ConsistentState static_initial_state(System& sys, const StaticSettings& s, RunSummary& summary);

// The checkpoints of a dynamic run (output.checkpoint_interval in docs/case-format.md): after an
// accepted step, every `interval` of simulated time and every `wall_interval` wall seconds (0: not
// by that measure), and at a stop the Interruption asks for, the run puts its whole state (the
// step's vectors, the method's history, the step control, the summary's counters) in a record and
// hands it to `write`, which adds what else it keeps (the outputs') and stores it. A run given
// `resume` continues from that record instead of its initial state, without writing its first
// frame again; resumed, it computes what the uninterrupted run would have, bit for bit on one
// backend (modified Newton's kept factorization is formed again where it was formed).
// With at_end, a record is written after the last step too (a coupled run's advance, which the
// next resumes: run/coupled_run.hpp).
struct Checkpoints {
  double interval = 0.0, wall_interval = 0.0;
  std::function<void(StateRecord&)> write;
  const StateRecord* resume = nullptr;
  bool at_end = false;
  bool enabled() const { return write && (interval > 0.0 || wall_interval > 0.0); }
};

// Dynamics of the index-3 DAE with Newton on the positions (Negrut, Rampalli, Ottarsson, Sajdak
// 2007 scaling), fixed or adaptive step, by s.integrator: HHT-alpha (s.alpha) or generalized-alpha
// (Arnold and Bruls 2007, s.rho_infinity). Frames every output_interval (0: every step). Throws
// Interrupted after a step where `interruption` asks to stop. Checkpoints as `checkpoints` asks.
void run_dynamic(System& sys, const DynamicSettings& s, double output_interval, const FrameSink& sink,
                 RunSummary& summary, const Interruption* interruption = nullptr, const Checkpoints& checkpoints = {});

// The assembly analysis: the consistent initial state as the one frame, with what it moved and
// the constraint violation left in `summary` (src/integrators/assembly_analysis.cpp).
void run_assembly(System& sys, const FrameSink& sink, RunSummary& summary);

// The kinematic analysis of a zero-DOF rigid mechanism (the loader checked that the model is one):
// frames every step (thinned to the output interval), with accelerations and the multipliers of
// inverse dynamics. Runs on the mechanism alone, not through a System and backend
// (multibody/kinematic_analysis.hpp, src/integrators/kinematic_frames.cpp).
void run_kinematic(const Model& m, const KinematicSettings& s, double interval, const FrameSink& sink,
                   RunSummary& summary);

// Vectors of all unknowns (coordinates and constraint rows) an analysis holds on the backend at
// most, as counted on the CUDA backend's host build (tests/test_cuda_backend.cpp holds the device
// memory estimate to them): HHT and generalized-alpha 18; BDF 26 + 2 per order of its highest
// (the history); modified Newton 4 more (the point its factorization was formed at). The other
// analyses hold fewer (statics 8, the initial state 6, each while it runs) and are given 18 too.
int backend_vector_count(const AnalysisSettings& a);
// Whether an analysis solves several times from a factorization (a dynamic run by modified
// Newton): the CUDA backend's automatic block method weighs it.
bool reuses_factorizations(const AnalysisSettings& a);

}  // namespace catenary
