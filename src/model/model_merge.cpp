#include "catenary/model/model_merge.hpp"

#include <algorithm>
#include <string>

#include "catenary/core/errors.hpp"

namespace catenary {

namespace {

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

Model merge_models(const std::vector<const Model*>& copies, std::vector<CopyRange>& ranges) {
  Model out;
  ranges.clear();
  if (copies.empty()) return out;
  const Model& first = *copies.front();
  out.dimension = first.dimension;
  std::copy(first.gravity, first.gravity + 3, out.gravity);
  out.characteristic_length = 0.0;
  for (size_t k = 0; k < copies.size(); ++k) {
    const Model& m = *copies[k];
    if (m.dimension != out.dimension)
      throw ModelError("copy " + std::to_string(k) + " has dimension " + std::to_string(m.dimension) + ", copy 0 " +
                       std::to_string(out.dimension) + ": the copies of a sweep must share the dimension");
    if (!m.mechanism.empty())
      throw ModelError("copy " + std::to_string(k) + " has rigid bodies: sweeps of models with rigid bodies are not "
                       "supported yet");
    if (!std::equal(m.gravity, m.gravity + 3, out.gravity))
      throw ModelError("copy " + std::to_string(k) + " has a different gravity: the copies of a sweep share it");
    CopyRange r;
    r.first_node = out.node_count;
    r.first_dof = out.dof_count();
    r.dof_count = m.dof_count();
    r.first_row = out.constraint_count();
    r.row_count = m.constraint_count();
    r.first_element = out.elements.size();
    r.element_count = m.elements.size();
    ranges.push_back(r);

    append(out.reference_coordinates, m.reference_coordinates);
    append(out.initial_positions, m.initial_positions);
    append(out.initial_velocities, m.initial_velocities);
    for (Body b : m.bodies) {
      b.first_node += r.first_node;
      b.first_element += r.first_element;
      out.bodies.push_back(b);
    }
    ElementBlock& el = out.elements;
    for (int e = 0; e < m.elements.size(); ++e) {
      el.node_a.push_back(m.elements.node_a[e] + r.first_node);
      el.node_b.push_back(m.elements.node_b[e] + r.first_node);
    }
    append(el.properties, m.elements.properties);
    append(el.reference, m.elements.reference);
    append(el.scalar_mass, m.elements.scalar_mass);
    append(el.shape_integrals, m.elements.shape_integrals);
    for (PointLoad p : m.point_loads) {
      p.dof += r.first_dof;
      out.point_loads.push_back(p);
    }
    for (DistributedLoad d : m.distributed_loads) {
      d.first_element += r.first_element;
      out.distributed_loads.push_back(d);
    }
    for (ConstraintRow row : m.constraint_rows) {
      for (int& dof : row.dofs) dof += r.first_dof;
      out.constraint_rows.push_back(row);
    }
    for (ConstraintGroup g : m.constraint_groups) {
      g.first_row += r.first_row;
      g.name = "copy " + std::to_string(k) + ": " + g.name;
      out.constraint_groups.push_back(g);
    }
    // Each copy keeps its own length scale in the convergence and error norms.
    out.node_length_scale.insert(out.node_length_scale.end(), m.node_count, m.characteristic_length);
    out.characteristic_length = std::max(out.characteristic_length, m.characteristic_length);
    out.node_count += m.node_count;
  }
  return out;
}

}  // namespace catenary
