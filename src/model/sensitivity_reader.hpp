#pragma once
// Reading a case's "sensitivity" section (docs/case-format.md) into Case::sensitivity, and
// loading the case with one of its variables changed. Internal to src/model.
#include "case_reading.hpp"
#include "catenary/model/case.hpp"

namespace catenary {

// Reads root's "sensitivity" (root: the whole case document) into c.sensitivity, after the
// model and the analysis: refused, an InputError at its JSON path, with an analysis other than
// static or dynamic, a dynamic one the direct method cannot differentiate (an integrator other
// than hht and generalized_alpha, the stabilized index-2 formulation, modified Newton, a static
// start, the adjoint method), a variable that is not a number under /model, an unknown objective or a reference to
// something the model lacks, or the adjoint method for a model whose static Newton matrix is not
// symmetric (water loads, contact friction).
void read_sensitivity(const case_reading::Node& root, Case& c);

}  // namespace catenary
