#pragma once
// Switches read from the environment: for measuring what an optimization saves (A/B runs), and
// CATENARY_CUDA_ON_HOST for testing the CUDA paths without a GPU (backend_factory.cpp).
#include <cstdlib>
#include <cstring>

namespace catenary {

// Whether the environment variable `name` is set to "0" (the optimization it names turned off).
inline bool switched_off(const char* name) {
  const char* setting = std::getenv(name);
  return setting && std::strcmp(setting, "0") == 0;
}

// Whether the environment variable `name` is set to "1".
inline bool switched_on(const char* name) {
  const char* setting = std::getenv(name);
  return setting && std::strcmp(setting, "1") == 0;
}

}  // namespace catenary
