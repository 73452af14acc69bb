#pragma once
// Design sensitivities at a static equilibrium (docs/theory.md, "Design sensitivities"): the
// derivatives dpsi/db of objectives psi(q, lambda; b) with respect to design variables b, values
// of the case document under /model (model/case.hpp, SensitivitySettings).
//
// At the converged equilibrium x* = (q*, lambda*) of R(x; b) = [f(q) - g + Phi_q^T lambda; Phi(q)]
// = 0, A dx/db = -dR/db with A = dR/dx, the static Newton matrix (stiffness coefficient 1),
// assembled and factorized once. dR/db is the central difference of R at the same x* over the
// models loaded with b -+ h (h = relative_step max(|b|, 1e-300)), each evaluated by
// System::newton_terms on a backend of its own. Direct: one solve per variable, then
// dpsi/db = dpsi/dx . dx/db + dpsi/db|x. Adjoint: one solve A mu = dpsi/dx per objective (A is
// symmetric for conservative statics: checked, and a non-symmetric A refused), then
// dpsi/db = mu . (-dR/db) + dpsi/db|x. dpsi/db|x, the objective's own dependence on b (the strain
// energy's on a stiffness), is the same central difference of psi at x*.
#include <Eigen/Core>

#include "catenary/assembly/backend.hpp"
#include "catenary/integrators/design_sensitivities.hpp"
#include "catenary/model/case.hpp"

namespace catenary {

// The sensitivities of c.sensitivity at the equilibrium (q, lambda) of c.model, found by its
// static analysis; `backend` holds c.model (its Newton matrix is assembled and factorized here).
// Throws SimulationError where a variable changes the model's coordinates or constraint rows, A
// is singular, or the adjoint meets an unsymmetric A; InputError where a changed value makes no
// valid model.
DesignSensitivities static_sensitivities(const Case& c, Backend& backend, const Eigen::VectorXd& q,
                                         const Eigen::VectorXd& lambda, const BackendMaker& make_backend);

}  // namespace catenary
