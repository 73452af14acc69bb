#pragma once
// ParaView VTU of a frame: each cable's or beam's centreline sampled at points inside its elements
// (the Hermite interpolation) as one polyline cell, and each rigid body as its three body axes and
// the surfaces of its contact shapes (src/io/shape_mesh.hpp).
#include <string>

#include <Eigen/Core>

#include "catenary/model/model.hpp"

namespace catenary {

// Writes path whole: under path + ".tmp", then renamed (OutputError where a write fails).
void write_vtu(const std::string& path, const Model& m, const Eigen::VectorXd& q,
               const Eigen::VectorXd& v, int samples_per_element);

}  // namespace catenary
