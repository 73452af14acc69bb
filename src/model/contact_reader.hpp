#pragma once
// The contacts of a case file's /model: planes (the ground, a seabed) and cylinders (sheaves,
// drums) that the named cables and beams touch, each with its normal force law and friction
// (elements/surface_contact.hpp), read into the model's contact surfaces and its elements'
// contact numbers. Internal to src/model.
#include "case_reading.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

// /model/contacts, where present, after the bodies are built and before finalize_model (the
// contact number is part of an element's record).
void read_contacts(const case_reading::Node& model, Model& m);

}  // namespace catenary
