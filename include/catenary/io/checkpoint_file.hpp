#pragma once
// A run's checkpoint file, checkpoint.bin in its output directory: a StateRecord in CBOR
// (nlohmann::json's binary form, each vector's doubles as one byte string, so every value comes
// back bit for bit) under a header that names the format and its version, catenary's version, the
// case's fingerprint and the model's size. A resume refuses a checkpoint whose header is not its
// own. The file is written under a temporary name, synced to the disk and renamed over the last
// one, so a run killed at any moment, or a power loss, leaves the previous checkpoint or the new
// one whole.
#include <string>

#include "catenary/core/state_record.hpp"

namespace catenary {

// What a checkpoint must match to be resumed.
struct CheckpointIdentity {
  std::string case_fingerprint;  // Case::fingerprint
  long dofs = 0, constraints = 0;
};

std::string checkpoint_path(const std::string& directory);

// Throws OutputError naming the file and the system's reason where it cannot be written.
void write_checkpoint(const std::string& path, const CheckpointIdentity& identity, const StateRecord& record);

// The record of the checkpoint at path; CheckpointError naming the file and what does not match
// where it is missing, unreadable, not a checkpoint, or another case's, model's or version's.
StateRecord read_checkpoint(const std::string& path, const CheckpointIdentity& expected);

}  // namespace catenary
