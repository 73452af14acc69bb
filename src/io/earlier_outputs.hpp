#pragma once
// What an earlier run left in an output directory, cleared before a new run writes there, so that
// none of its frames or copies stays beside the new run's files. Only files catenary writes go:
// those the earlier summary.json lists (results.csv, results.pvd, rigid_bodies.csv,
// joint_reactions.csv, modes.csv, mode_shapes.csv, sensitivities.json and .csv, summary.json,
// checkpoint.bin) with their temporary names, and where it lists results.pvd
// the frame files frames/frame_NNNNN.vtu (all of them: a run killed early lists none).
#include <set>
#include <string>

namespace catenary {

void clear_earlier_run(const std::string& directory);

// The copies that an earlier sweep's index DIR/STEM.json lists, other than those named in `keep`
// (this run's copy directories, which their writers clear): each copy's run is cleared as above,
// and its directory removed when that empties it.
void clear_earlier_copies(const std::string& directory, const std::string& stem, const std::set<std::string>& keep);

}  // namespace catenary
