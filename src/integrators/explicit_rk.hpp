#pragma once
// What the explicit methods share (explicit_rk.cpp): how they meet the constraints, the judging
// of a step, and dopri5 on the caller's constraints, the start of ABAM (abam.cpp), which shares
// its solve, partition and vectors with it. make_explicit_rk_stepper (time_stepper.hpp) is the
// rk4 and dopri5 integrators'.
#include <functional>
#include <memory>

#include "accelerations.hpp"
#include "catenary/integrators/coordinate_partitioning.hpp"
#include "time_stepper.hpp"

namespace catenary {

// The constraints of an explicit method: the accelerations' solve (with Baumgarte's terms where
// DynamicSettings sets them) and, with DynamicSettings::partitioning, the projection of each
// step's result onto the position and velocity constraints (coordinate_partitioning.hpp).
struct ExplicitConstraints {
  ExplicitConstraints(System& sys, const DynamicSettings& s);
  // A step's result (to.q, to.v at to.t) projected where partitioning, then its accelerations and
  // multipliers: once a step, so the projected state's accelerations begin the next step.
  void finish(StepState& to);
  // The partition, where there is one.
  void save(StateRecord& record) const;
  void restore(const StateRecord& record);

  AccelerationSolve accelerations;
  std::unique_ptr<CoordinatePartitioning> partitioning;  // null: Baumgarte's terms, or none
};

// An explicit step: `solves` forms `to` (its acceleration solves throw SimulationError on a singular
// matrix); a singular stage or a state that is not finite afterwards is the step's failure, said
// with `limit`, the method's stability limit on undamped modes in words.
StepOutcome explicit_step(BackendVectors& be, const std::function<void()>& solves, const StepState& to,
                          const char* limit);

std::unique_ptr<TimeStepper> make_dopri5_stepper(System& sys, const DynamicSettings& s,
                                                 ExplicitConstraints& constraints);

}  // namespace catenary
