#pragma once
// The water of a case file's /model: its density, surface, depth, current and waves, and the
// hydrodynamic sections (/model/sections/<name>/hydrodynamics) of the line bodies in it, read
// into the model's fluid loads (elements/fluid_load.hpp). Internal to src/model.
#include "case_reading.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

// /model/water and the sections' hydrodynamics, after the bodies are built and before
// finalize_model (the fluid number is part of an element's record).
void read_water(const case_reading::Node& model, Model& m);

}  // namespace catenary
