#pragma once
// The fingerprint of a case document that a checkpoint records (Case::fingerprint).
#include <string>

#include <nlohmann/json.hpp>

namespace catenary {

// 64-bit FNV-1a, in hexadecimal, of the document's canonical text (keys sorted, no spaces) without
// output.checkpoint_interval and output.checkpoint_wall_interval: a resumed run may change how
// often it checkpoints, nothing else. Hand-written because std::hash may differ between standard
// libraries and a checkpoint outlives the program that wrote it.
std::string case_fingerprint(const nlohmann::json& document);

}  // namespace catenary
