#pragma once
// The host's memory as the run sees it: how much the machine has, and how much of the heap is in
// use (to measure what building one object costs before building a million of them).
#include <cstddef>
#include <string>

namespace catenary {

// The memory this process may use, in bytes: the machine's physical memory, or the limit of its
// control group where that is lower (a cluster job's memory); 0 where it cannot be told.
std::size_t available_memory_bytes();
// Bytes of the heap in use by this process now (glibc's count of allocated blocks).
std::size_t heap_bytes_in_use();
// A size for a message: "558.8 GiB" (one decimal).
std::string gibibytes(double bytes);
// heap_bytes_in_use() less `before` (0 where the heap shrank).
std::size_t heap_growth_since(std::size_t before);

}  // namespace catenary
