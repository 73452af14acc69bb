#include "catenary/model/multibody_layout.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/rigid/joints.hpp"

namespace catenary {


std::vector<MechanismCoupling> mechanism_couplings(const Mechanism& m) {
  const int nb = static_cast<int>(m.bodies.size());
  std::vector<MechanismCoupling> out;
  auto bodies_of = [](int i, int j) {
    std::vector<int> s;
    if (i != kGround) s.push_back(i);
    if (j != kGround && j != i) s.push_back(j);
    return s;
  };
  // Rows counted along from each kind's first, as evaluate_constraints does.
  int row = m.joint_row(0);
  for (const Joint& j : m.joints) {
    out.push_back({bodies_of(j.body_i, j.body_j), row, rigid::joint_equation_count(j.type)});
    row += rigid::joint_equation_count(j.type);
  }
  row = m.driver_row(0);
  for (const Driver& d : m.drivers) {
    const Joint& j = m.joints[d.joint];
    out.push_back({bodies_of(j.body_i, j.body_j), row++, 1});
  }
  row = m.motion_row(0);
  for (const BodyMotion& motion : m.motions) {
    out.push_back({{motion.body}, row, 6});
    row += 6;
  }
  row = m.attachment_row(0);
  for (size_t k = 0; k < m.attachments.size(); ++k) {
    out.push_back({{m.attachments[k].body, nb + static_cast<int>(k)}, row, m.attachments[k].row_count()});
    row += m.attachments[k].row_count();
  }
  row = m.normalization_row(0);
  for (int b = 0; b < nb; ++b) out.push_back({{b}, row + b, 1});
  for (const Tsda& e : m.forces.tsda) out.push_back({bodies_of(e.body_i, e.body_j), 0, 0});
  for (const Rsda& e : m.forces.rsda) out.push_back({bodies_of(e.body_i, e.body_j), 0, 0});
  for (int c = 0; c < m.contacts.count(); ++c)
    out.push_back({bodies_of(m.contacts.body_i(c), m.contacts.body_j(c)), 0, 0});
  return out;
}

MultibodyLayout multibody_layout(const Model& m) {
  const Mechanism& mech = m.mechanism;
  MultibodyLayout layout;
  if (mech.empty()) return layout;
  if (m.dimension != 3) throw ModelError("rigid bodies need a 3D model (the cables' dimension is 2)");
  const int nb = static_cast<int>(mech.bodies.size()), per_node = m.coordinates_per_node();
  for (int k = 0; k < mech.body_coordinate_count(); ++k) layout.dofs.push_back(m.rigid_offset() + k);
  std::set<int> attached;
  for (const Attachment& a : mech.attachments) {
    if (a.node < 0 || a.node >= m.node_count)
      throw ModelError("attachment '" + a.name + "': node " + std::to_string(a.node) + " is not in the model (" +
                       std::to_string(m.node_count) + " nodes)");
    if (a.body < 0 || a.body >= nb)
      throw ModelError("attachment '" + a.name + "': body " + std::to_string(a.body) + " is not in the model");
    if (!attached.insert(a.node).second)
      throw ModelError("attachment '" + a.name + "': node " + std::to_string(a.node) + " is attached twice");
    for (int c = 0; c < per_node; ++c) layout.dofs.push_back(a.node * per_node + c);
  }
  for (int node : mech.contact_nodes)
    for (int c = 0; c < per_node; ++c) layout.dofs.push_back(node * per_node + c);
  layout.first_row = m.linear_constraint_count();
  layout.rows = mech.row_count();

  const int n = mech.coordinate_count(), dofs = m.dof_count();
  auto coordinates_of = [&](int slot) {
    std::vector<int> c;
    const int first = slot < nb ? 7 * slot : mech.node_coordinate(slot - nb), count = slot < nb ? 7 : 6;
    for (int k = 0; k < count; ++k) c.push_back(first + k);
    return c;
  };
  std::set<std::pair<int, int>> local;  // (row, column), block numbering
  for (int b = 0; b < nb; ++b)
    for (int i : coordinates_of(b))
      for (int j : coordinates_of(b)) local.insert({i, j});
  std::vector<MechanismCoupling> couplings = mechanism_couplings(mech);
  for (const CableShapeContact& c : mech.cable_contacts)
    for (const CableShapeSpan& s : c.spans) couplings.push_back({{c.body, nb + s.slot_a, nb + s.slot_b}, 0, 0});
  for (const MechanismCoupling& c : couplings) {
    std::vector<int> coords;
    for (int s : c.slots)
      for (int i : coordinates_of(s)) coords.push_back(i);
    for (int i : coords) {
      for (int j : coords) local.insert({i, j});
      for (int r = c.first_row; r < c.first_row + c.rows; ++r) {
        local.insert({n + r, i});
        local.insert({i, n + r});
      }
    }
  }
  auto global = [&](int i) { return i < n ? layout.dofs[i] : dofs + layout.first_row + (i - n); };
  for (const auto& e : local) {
    layout.local_entries.push_back(e);
    layout.entries.push_back({global(e.first), global(e.second)});
  }
  return layout;
}

std::vector<FixedRow> attached_node_rows(const Model& m, const MultibodyLayout& layout) {
  std::map<int, int> column_of;  // model coordinate -> block column, for the attached nodes
  for (size_t k = m.mechanism.body_coordinate_count(); k < layout.dofs.size(); ++k)
    column_of[layout.dofs[k]] = static_cast<int>(k);
  std::vector<FixedRow> rows;
  for (const ConstraintGroup& g : m.constraint_groups)
    for (int k = 0; k < g.row_count; ++k) {
      const ConstraintRow& row = m.constraint_rows[g.first_row + k];
      FixedRow out;
      for (size_t t = 0; t < row.dofs.size(); ++t) {
        const auto it = column_of.find(row.dofs[t]);
        if (it == column_of.end()) break;
        out.terms.emplace_back(it->second, row.coefficients[t]);
      }
      if (out.terms.size() != row.dofs.size()) continue;  // also on coordinates outside the block
      out.owner = "constraint '" + g.name + "'";
      out.name = out.owner + " row " + (k < static_cast<int>(g.row_labels.size()) ? g.row_labels[k] : std::to_string(k));
      rows.push_back(std::move(out));
    }
  return rows;
}

}  // namespace catenary
