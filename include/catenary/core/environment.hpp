#pragma once
// Switches read from the environment, for measuring what an optimization saves (A/B runs).
#include <cstdlib>
#include <cstring>

namespace catenary {

// Whether the environment variable `name` is set to "0" (the optimization it names turned off).
inline bool switched_off(const char* name) {
  const char* setting = std::getenv(name);
  return setting && std::strcmp(setting, "0") == 0;
}

}  // namespace catenary
