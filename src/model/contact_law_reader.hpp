#pragma once
// The normal-force law of a contact from a case file's "law" object (elements/contact_law.hpp),
// shared by the cables' surface contacts and the rigid bodies' contacts. Internal to src/model.
#include <string>
#include <vector>

#include "case_reading.hpp"
#include "catenary/elements/contact_law.hpp"

namespace catenary {

// The continuous laws' names, as "law"/"type" takes them.
const std::vector<std::string>& continuous_contact_law_names();

// A continuous law from n (type one of continuous_contact_law_names()).
ContactLaw read_contact_law(const case_reading::Node& n);

}  // namespace catenary
