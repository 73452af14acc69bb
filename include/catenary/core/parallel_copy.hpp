#pragma once
// A large host-to-host copy on all OpenMP threads. One core copies a few GB/s, short of what a
// device link delivers into a pinned buffer (the CUDA backend's PinnedStaging), so a frame's
// vectors are copied on from there by every thread.
#include <cstddef>

namespace catenary {

void copy_in_parallel(const double* from, double* to, std::size_t count);

}  // namespace catenary
