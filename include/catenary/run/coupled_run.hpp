#pragma once
// A run that a coupling program drives step by step: a floating platform's own solver, a
// co-simulation master. The case's dynamic analysis advances to the times the program asks for;
// the rigid bodies whose `motion` is "coupled" move along the kinematics it gives at those times
// (each coordinate a CoupledPath from the last advance's end); after each advance the program
// reads the loads the attached cables put on those bodies. An advance continues the integrator
// exactly where the last one left it (run_time_steps's record, written after its last step and
// resumed from), so advancing in pieces computes what one run over the same paths would. The C API
// (catenary/coupling.h) and the Python module wrap this class.
#include <memory>
#include <string>
#include <vector>

#include "catenary/core/state_record.hpp"
#include "catenary/core/time_function.hpp"
#include "catenary/integrators/run_results.hpp"
#include "catenary/model/case.hpp"
#include "catenary/run/backend_factory.hpp"

namespace catenary {

class CoupledRun {
 public:
  // A run of case c (a dynamic analysis; InputError otherwise) on `backend`, its outputs written
  // to `directory` as `catenary run` writes them (empty: none; the directory locked for the run).
  CoupledRun(Case c, BackendChoice backend, const std::string& directory = "");
  ~CoupledRun();
  CoupledRun(const CoupledRun&) = delete;
  CoupledRun& operator=(const CoupledRun&) = delete;

  // The rigid bodies whose motion is "coupled", in the case's order: the order of advance's and
  // loads' values.
  const std::vector<std::string>& coupled_bodies() const { return names_; }
  // The state at t = 0: the static equilibrium under the loads at t = 0 (static_equilibrium), or
  // the case's initial state made consistent; its frame written. Before any advance.
  void initialize(bool static_equilibrium);
  // Advances to t_next > time(): each coupled body k moves from its kinematics at time() to
  // motion[6k .. 6k + 5] (x, y, z, roll, pitch, yaw: its `motion` coordinates, the centre of mass's
  // displacement in m and the rotation in rad from its initial pose) with rates
  // rates[6k .. 6k + 5] at t_next. SimulationError where the analysis fails (the state stays at
  // the last advance's end, which a restore can return to).
  void advance(double t_next, const double* motion, const double* rates);
  double time() const;
  // Per coupled body, six values: the force (N, ground frame) and the torque about its centre of
  // mass (N m, ground frame) with which its attached cables pull it, at time().
  std::vector<double> loads() const;
  // The whole state at time() (the integrator's, the paths', the outputs' sizes), and a return to
  // one such state of this run: the outputs are cut back to it.
  StateRecord save() const;
  void restore(const StateRecord& record);
  const RunSummary& summary() const { return summary_; }

 private:
  struct Parts;  // the case, backend, system, writer: fixed addresses for the references among them
  void store_paths(StateRecord& record) const;
  // run_dynamic over s from the record `from` (null: the initial state), keeping the record of
  // its end in state_.
  void advance_to(const DynamicSettings& s, const StateRecord* from);
  std::unique_ptr<Parts> parts_;
  std::vector<std::string> names_;
  std::vector<int> bodies_;                         // each coupled body's index among the rigid bodies
  std::vector<std::shared_ptr<CoupledPath>> paths_;  // six per coupled body
  StateRecord state_;                               // the record at time()
  double next_frame_ = 0.0;                         // the next output frame's time
  RunSummary summary_;
  bool initialized_ = false;
};

}  // namespace catenary
