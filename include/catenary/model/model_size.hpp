#pragma once
// What a model's arrays hold in bytes, counted from their sizes: a measure that does not depend
// on the allocator.
#include <cstddef>

#include "catenary/model/model.hpp"

namespace catenary {

// The bytes of m's node, element and constraint-row arrays: the bulk of a large model, and a
// lower bound of all it holds (names, loads and the mechanism's bodies are left out). The sweep
// loader's memory guard takes it where the heap's own count reads nothing (an allocator other
// than glibc's, or a sanitizer's).
std::size_t model_array_bytes(const Model& m);

}  // namespace catenary
