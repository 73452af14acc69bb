#pragma once
// ParaView VTU of a frame: each cable's or beam's centreline sampled at points inside its elements
// (the Hermite interpolation) as one polyline cell, and each rigid body as its three body axes and
// the surfaces of its contact shapes (src/io/shape_mesh.hpp), or where it has none the box of its
// mass and inertia (src/io/inertia_box.hpp). Point data: velocity, axial_strain and curvature (the
// element's strain law's), tension, radius (half the section's outer diameter, for ParaView's Tube
// filter; 0 on rigid bodies) and, with contact surfaces, contact_force; cell data: body_id. The
// arrays are text, raw binary or zlib-compressed binary (src/io/vtu_format.hpp).
#include <string>

#include <Eigen/Core>

#include "catenary/model/case.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

// Writes path whole: under path + ".tmp", then renamed (OutputError where a write fails).
void write_vtu(const std::string& path, const Model& m, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
               int samples_per_element, VtuEncoding encoding = VtuEncoding::binary);

}  // namespace catenary
