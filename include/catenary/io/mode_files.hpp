#pragma once
// An eigen analysis's mode files, beside its results.csv and summary.json: modes.csv (each mode's
// frequencies, damping ratio and eigenvalue), mode_shapes.csv (each coordinate's complex shape
// entry per mode), and for ParaView modes/mode_NNN.pvd, one period of each mode drawn over
// mode_frames frames modes/mode_NNN_FF.vtu (columns and drawing in docs/case-format.md).
#include <string>

#include "catenary/integrators/eigen_analysis.hpp"
#include "catenary/model/case.hpp"

namespace catenary {

// Writes the files of `modes` (the eigen analysis of case c) into `directory`; OutputError where
// a write fails.
void write_mode_files(const Case& c, const std::string& directory, const LinearModes& modes);

// The configuration and velocities drawn at phase theta of a mode: the equilibrium q plus
// a Re(phi e^(i theta)), and a Re(s phi e^(i theta)), a scaling the shape's largest position entry
// (1) to `amplitude` metres; each rigid body's Euler parameters normalized again.
void mode_state(const Model& m, const Eigen::VectorXd& q, const LinearMode& mode, double amplitude, double theta,
                Eigen::VectorXd& q_drawn, Eigen::VectorXd& v_drawn);

}  // namespace catenary
