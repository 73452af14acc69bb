#pragma once
// The mechanism part of a case file's /model (3D models only): rigid bodies, joints, drivers,
// springs, rotational springs, body loads and attachments, read into Model::mechanism by the
// case loader's rules (case_reading.hpp). Internal to src/model.
#include <map>
#include <string>

#include "case_reading.hpp"
#include "catenary/model/model.hpp"

namespace catenary {

// The JSON path of each named joint, driver, spring, attachment and body load (one set of names:
// they share the output columns of joint_reactions.csv).
using MechanismPaths = std::map<std::string, std::string>;

// /model's mechanism keys into m.mechanism; `paths` gets each named element's path.
void read_mechanism(const case_reading::Node& model, Model& m, MechanismPaths& paths);

// The mechanism's rows must be independent at the initial positions (before any run, with the
// mechanism-local coordinate vector); a redundant row is an input error at the element it
// belongs to, naming the earlier joints it repeats.
void check_mechanism(const Model& m, const MechanismPaths& paths, const std::string& file);

}  // namespace catenary
