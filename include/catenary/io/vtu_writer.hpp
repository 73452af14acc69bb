#pragma once
// ParaView VTU of the centrelines: each element sampled at points inside it (the Hermite
// interpolation), written as one polyline cell per body.
#include <string>

#include <Eigen/Core>

#include "catenary/model/model.hpp"

namespace catenary {

// Writes path whole: under path + ".tmp", then renamed (OutputError where a write fails).
void write_vtu(const std::string& path, const Model& m, const Eigen::VectorXd& q,
               const Eigen::VectorXd& v, int samples_per_element);

}  // namespace catenary
