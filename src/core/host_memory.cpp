#include "catenary/core/host_memory.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace catenary {

std::size_t available_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  std::size_t bytes = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
  // cgroup v2: "max" or a number of bytes.
  std::ifstream limit("/sys/fs/cgroup/memory.max");
  unsigned long long cgroup = 0;
  if (limit >> cgroup && cgroup > 0 && (bytes == 0 || cgroup < bytes)) bytes = static_cast<std::size_t>(cgroup);
  return bytes;
}

std::size_t heap_bytes_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;  // small blocks in the arenas, and blocks mapped on their own
}

std::string gibibytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / double(std::size_t(1) << 30));
  return text;
}

std::size_t heap_growth_since(std::size_t before) {
  const std::size_t now = heap_bytes_in_use();
  return now > before ? now - before : 0;
}

}  // namespace catenary
