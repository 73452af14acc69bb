#pragma once
// Host interface of the CUDA element kernels (compiled by nvcc in kernels/). Plain C++ so the
// CPU code and the tests can call it without CUDA headers. Available only when the project is
// built with CATENARY_CUDA (CATENARY_WITH_CUDA defined).
#include <string>
#include <vector>

#include "catenary/elements/gradient_deficient_math.hpp"

namespace catenary::cuda {

// True if a CUDA device can be used; otherwise `why` says what is missing (no driver, no device).
bool device_available(std::string& why);

// Evaluates evaluate_element<D> for a batch of elements on the device, one thread per element.
// Inputs are element-local arrays (4D values per element); outputs as the CPU function gives
// them: force (4D), stiffness and damping (row-major (4D)^2) and energy per element.
struct ElementBatchResult {
  std::vector<double> force, stiffness, damping, energy;
};
ElementBatchResult evaluate_elements(int dimension, const std::vector<ElementProperties>& properties,
                                     const std::vector<double>& reference, const std::vector<double>& e,
                                     const std::vector<double>& edot);

}  // namespace catenary::cuda
