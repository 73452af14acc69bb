#pragma once
// A sweep run in parts (run --part K/N or --copies A-B, the tasks of an array job) leaves one index
// and one table a part in its directory: sweep_copies_FFFF-LLLL.json and .csv (SweepIndex). This
// joins them into the whole sweep's sweep.json and sweep.csv, as one run of every copy writes
// them, after checking that the parts are of one sweep and hold each of its copies exactly once.
#include <string>
#include <vector>

namespace catenary {

struct GatheredSweep {
  size_t copies = 0;               // the sweep's, all present
  std::vector<std::string> parts;  // the index files joined, in copy order
  std::vector<size_t> failed;      // the copies whose status is "failed"
  std::vector<size_t> unfinished;  // the copies a stopped run left "interrupted" or "not run"
};

// Throws InputError (naming the directory or the part's file) when there is no part, a part cannot
// be read, the parts disagree (the sweep's size, the table's columns), a copy is in two parts, or
// copies are in none (named, as ranges).
GatheredSweep gather_sweep_parts(const std::string& directory);

}  // namespace catenary
