#pragma once
// Design sensitivities of a dynamic analysis by the discrete direct method (docs/theory.md, "Design
// sensitivities"): the derivatives, with respect to the design variables b of c.sensitivity, of the
// numerical solution itself, step by step. After each converged step x1 = (q1, lambda1) from x0
// (with what the method carries: HHT's force history, generalized-alpha's algorithmic
// acceleration), R(x1; x0, b) = 0 gives for each variable
//   J dx1/db = -(dR/db + dR/dx0 dx0/db),
// J the step's Newton matrix as its iteration last factorized it; the right-hand side is a
// central difference of R: over the models loaded with b -+ h for dR/db (each with a backend of
// its own), and along the state's derivative in the case's model for dR/dx0, with dx1/db first
// the linearized predictor, then the solve's result (two solves a variable a step: the second
// corrects what J, formed before the iteration's last update, leaves). The velocities and accelerations follow by the Newmark formulas, the
// method's history by the same differences. The start: central differences of the changed models'
// consistent initial states. With the adaptive step the step sequence is the case's own, held: the
// derivative of the run with its step sizes frozen.
#include "catenary/core/interruption.hpp"
#include "catenary/integrators/design_sensitivities.hpp"
#include "catenary/integrators/run_results.hpp"
#include "catenary/integrators/system.hpp"
#include "catenary/model/case.hpp"

namespace catenary {

// Runs c's dynamic analysis on sys (the case's model on its backend) as run_dynamic does, without
// checkpoints, frames to sink every c.output.interval, and returns the derivatives of
// c.sensitivity's objectives at the end time (the integrators hht and generalized_alpha, full
// Newton, index 3, the consistent initial state: the case reader refuses the rest). Throws
// SimulationError as run_dynamic does, where a variable changes the model's size, or at a rigid
// contact's impact; InputError where a changed value makes no valid model.
DesignSensitivities run_dynamic_sensitivities(const Case& c, System& sys, const FrameSink& sink, RunSummary& summary,
                                              const Interruption* interruption, const BackendMaker& make_backend);

}  // namespace catenary
