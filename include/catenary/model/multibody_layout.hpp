#pragma once
// Where a model's rigid mechanism sits among the model's unknowns: its coordinates (the bodies',
// then the attached nodes') and its constraint rows, and the Newton-matrix entries its terms
// reach. The case loader checks a mechanism with it; the multibody block
// (assembly/multibody_block.hpp) and the orderings build on it.
#include <utility>
#include <vector>

#include "catenary/model/model.hpp"
#include "catenary/multibody/kinematic_analysis.hpp"

namespace catenary {

// Groups of mechanism coordinates that one joint, driver, attachment, body, spring-damper or rigid
// contact couples, with the rows it owns: each group's coordinates form a dense block of the
// Newton matrix. (Each element of a cable's contact with a body's shape couples the body and the
// element's two node slots too: multibody_layout adds those groups.)
struct MechanismCoupling {
  std::vector<int> slots;  // bodies b < body count; attachment k is slot body count + k
  int first_row = 0, rows = 0;
};
std::vector<MechanismCoupling> mechanism_couplings(const Mechanism& m);

struct MultibodyLayout {
  std::vector<int> dofs;        // model coordinate of each mechanism coordinate
  int first_row = 0, rows = 0;  // the mechanism's rows among the model's constraint rows
  // Newton-matrix entries the block writes, in the matrix's numbering (coordinate d is d,
  // constraint row r is dof_count + r), without repeats; local_entries holds the same entries
  // in the block's numbering (mechanism coordinate i is i, its row k is coordinate_count + k).
  std::vector<std::pair<int, int>> entries, local_entries;
};

// Throws ModelError for a mechanism that cannot join the model (2D model, a node attached
// twice, a node index out of range).
MultibodyLayout multibody_layout(const Model& m);

// The cables' linear rows that lie wholly on attached nodes' coordinates, in the block's columns:
// with the mechanism's rows they can repeat each other (check_redundant_constraints).
std::vector<FixedRow> attached_node_rows(const Model& m, const MultibodyLayout& layout);

}  // namespace catenary
