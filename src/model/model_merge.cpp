#include "catenary/model/model_merge.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/multibody/ground.hpp"

namespace catenary {

namespace {

template <class T>
void append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// Room in `to` for all copies' entries, `count` of them a copy, so that appending them moves
// nothing: without it a sweep of 10,000 copies regrew each of its big arrays about 14 times.
template <class T, class Count>
void reserve_for(std::vector<T>& to, const std::vector<const Model*>& copies, Count count) {
  size_t total = 0;
  for (const Model* m : copies) total += count(*m);
  to.reserve(total);
}

}  // namespace

namespace {

// Copy k's rigid bodies, joints, drivers, motions, attachments, force elements and contacts appended to
// the batch's mechanism, with body, joint, shape, element and node indices shifted and names
// prefixed by the copy.
void append_mechanism(const Mechanism& from, int first_node, int first_element, const std::string& prefix,
                      Mechanism& to) {
  const int body_offset = static_cast<int>(to.bodies.size()), joint_offset = static_cast<int>(to.joints.size());
  auto body = [body_offset](int b) { return b == kGround ? kGround : b + body_offset; };
  for (RigidBody b : from.bodies) {
    b.name = prefix + b.name;
    to.bodies.push_back(b);
  }
  for (Joint j : from.joints) {
    j.name = prefix + j.name;
    j.body_i = body(j.body_i);
    j.body_j = body(j.body_j);
    to.joints.push_back(j);
  }
  for (Driver d : from.drivers) {
    d.name = prefix + d.name;
    d.joint += joint_offset;
    to.drivers.push_back(d);
  }
  for (BodyMotion motion : from.motions) {
    motion.name = prefix + motion.name;
    motion.body = body(motion.body);
    to.motions.push_back(motion);
  }
  for (Attachment a : from.attachments) {
    a.name = prefix + a.name;
    a.body = body(a.body);
    a.node += first_node;
    to.attachments.push_back(a);
  }
  for (Tsda t : from.forces.tsda) {
    t.name = prefix + t.name;
    t.body_i = body(t.body_i);
    t.body_j = body(t.body_j);
    to.forces.tsda.push_back(t);
  }
  for (Rsda r : from.forces.rsda) {
    r.name = prefix + r.name;
    r.body_i = body(r.body_i);
    r.body_j = body(r.body_j);
    to.forces.rsda.push_back(r);
  }
  for (BodyLoad l : from.forces.loads) {
    l.name = prefix + l.name;
    l.body = body(l.body);
    to.forces.loads.push_back(l);
  }
  const int shape_offset = static_cast<int>(to.contacts.shapes.size());
  for (RigidShape s : from.contacts.shapes) {
    s.name = prefix + s.name;
    s.body = body(s.body);
    to.contacts.shapes.push_back(s);
  }
  for (PlaneContact c : from.contacts.planes) {
    c.name = prefix + c.name;
    c.shape += shape_offset;
    to.contacts.planes.push_back(c);
  }
  for (ClearanceJoint c : from.contacts.clearance_joints) {
    c.name = prefix + c.name;
    c.body_i = body(c.body_i);
    c.body_j = body(c.body_j);
    to.contacts.clearance_joints.push_back(c);
  }
  for (CableShapeContact c : from.cable_contacts) {
    c.name = prefix + c.name;
    c.body = body(c.body);
    for (int& s : c.shapes) s += shape_offset;
    for (CableShapeSpan& s : c.spans) {
      s.element += first_element;
      s.node_a += first_node;
      s.node_b += first_node;
    }
    to.cable_contacts.push_back(std::move(c));
  }
}

void append_run(int first, int count, std::vector<int>& to) {
  for (int i = 0; i < count; ++i) to.push_back(first + i);
}

// The batch's numbers of a copy's records (contact surfaces, fluid loads) with the values each
// holds in an array of its block: equal records with equal values (bit for bit) are one record of
// the batch, so that the elements of copies that name the same one keep equal records (shared,
// model/element_records.hpp); a new one is added with the copy's name. held(record) returns the
// record without its offsets and the values it holds; place(record, values) appends the values to
// the batch's array and sets the record's offsets to them.
template <class Record, class Held, class Place>
std::vector<int> merged_records(const std::vector<Record>& records, const std::vector<std::string>& names,
                                const std::string& prefix, std::vector<Record>& batch,
                                std::vector<std::string>& batch_names, std::map<std::vector<double>, int>& index,
                                Held held, Place place) {
  static_assert(sizeof(Record) % sizeof(double) == 0, "records of doubles only");
  std::vector<int> number;
  for (size_t c = 0; c < records.size(); ++c) {
    auto [record, values] = held(records[c]);
    const double* fields = reinterpret_cast<const double*>(&record);
    std::vector<double> key(fields, fields + sizeof(Record) / sizeof(double));
    key.insert(key.end(), values.begin(), values.end());
    const auto [at, added] = index.emplace(key, static_cast<int>(batch.size()));
    if (added) {
      place(record, values);
      batch.push_back(record);
      batch_names.push_back(prefix + names[c]);
    }
    number.push_back(at->second);
  }
  return number;
}

std::vector<int> merged_contact_surfaces(const ElementBlock& copy, const std::string& prefix, ElementBlock& batch,
                                         std::map<std::vector<double>, int>& index) {
  const auto held = [&](ContactSurface surface) {
    const bool grid = surface.kind == double(SurfaceKind::grid);
    const auto first = copy.contact_heights.begin() + (grid ? static_cast<long>(surface.grid_offset) : 0);
    const auto last = first + (grid ? static_cast<long>(surface.grid_size[0] * surface.grid_size[1]) : 0);
    if (grid) surface.grid_offset = -1.0;
    return std::make_pair(surface, std::vector<double>(first, last));
  };
  const auto place = [&](ContactSurface& surface, const std::vector<double>& heights) {
    if (surface.kind != double(SurfaceKind::grid)) return;
    surface.grid_offset = static_cast<double>(batch.contact_heights.size());
    batch.contact_heights.insert(batch.contact_heights.end(), heights.begin(), heights.end());
  };
  return merged_records(copy.contact_surfaces, copy.contact_names, prefix, batch.contact_surfaces, batch.contact_names,
                        index, held, place);
}

// The same for fluid loads, whose values are a current profile (4 per height) and wave components.
std::vector<int> merged_fluid_loads(const ElementBlock& copy, const std::string& prefix, ElementBlock& batch,
                                    std::map<std::vector<double>, int>& index) {
  const auto held = [&](FluidLoad f) {
    const auto profile = copy.fluid_values.begin() + static_cast<long>(f.profile_offset);
    const auto waves = copy.fluid_values.begin() + static_cast<long>(f.wave_offset);
    std::vector<double> values(profile, profile + static_cast<long>(4 * f.profile_count));
    values.insert(values.end(), waves, waves + static_cast<long>(kWaveValues * f.wave_count));
    f.profile_offset = f.wave_offset = -1.0;
    return std::make_pair(f, values);
  };
  const auto place = [&](FluidLoad& f, const std::vector<double>& values) {
    f.profile_offset = static_cast<double>(batch.fluid_values.size());
    f.wave_offset = f.profile_offset + 4 * f.profile_count;
    batch.fluid_values.insert(batch.fluid_values.end(), values.begin(), values.end());
  };
  return merged_records(copy.fluid_loads, copy.fluid_names, prefix, batch.fluid_loads, batch.fluid_names, index, held,
                        place);
}

}  // namespace

Model merge_models(const std::vector<const Model*>& copies, std::vector<CopyRange>& ranges,
                   const std::vector<size_t>& numbers) {
  Model out;
  ranges.clear();
  if (copies.empty()) return out;
  const Model& first = *copies.front();
  out.dimension = first.dimension;
  out.gravity = first.gravity;
  out.characteristic_length = 0.0;
  reserve_for(out.reference_coordinates, copies, [](const Model& m) { return m.reference_coordinates.size(); });
  reserve_for(out.initial_positions, copies, [](const Model& m) { return m.initial_positions.size(); });
  reserve_for(out.initial_velocities, copies, [](const Model& m) { return m.initial_velocities.size(); });
  reserve_for(out.node_length_scale, copies, [](const Model& m) { return m.node_count; });
  reserve_for(out.bodies, copies, [](const Model& m) { return m.bodies.size(); });
  reserve_for(out.constraint_rows, copies, [](const Model& m) { return m.constraint_rows.size(); });
  ElementBlock& el = out.elements;
  reserve_for(el.node_a, copies, [](const Model& m) { return m.elements.node_a.size(); });
  reserve_for(el.node_b, copies, [](const Model& m) { return m.elements.node_b.size(); });
  reserve_for(el.properties, copies, [](const Model& m) { return m.elements.properties.size(); });
  reserve_for(el.reference, copies, [](const Model& m) { return m.elements.reference.size(); });
  reserve_for(el.scalar_mass, copies, [](const Model& m) { return m.elements.scalar_mass.size(); });
  reserve_for(el.shape_integrals, copies, [](const Model& m) { return m.elements.shape_integrals.size(); });
  reserve_for(el.quadrature, copies, [](const Model& m) { return m.elements.quadrature.size(); });
  std::map<std::vector<double>, int> contact_index;  // a contact surface's values -> its number in the batch
  std::map<std::vector<double>, int> fluid_index;    // a fluid load's values -> its number in the batch
  const auto copy_name = [&](size_t k) { return "copy " + std::to_string(numbers.empty() ? k : numbers.at(k)); };
  for (size_t k = 0; k < copies.size(); ++k) {
    const Model& m = *copies[k];
    const std::string copy = copy_name(k);
    if (m.dimension != out.dimension)
      throw ModelError(copy + " has dimension " + std::to_string(m.dimension) + ", " + copy_name(0) + " " +
                       std::to_string(out.dimension) + ": the copies of a sweep must share the dimension");
    if (!std::equal(m.gravity.v, m.gravity.v + 3, out.gravity.v))
      throw ModelError(copy + " has a different gravity: the copies of a sweep share it");
    CopyRange r;
    r.first_node = out.node_count;
    r.first_element = out.elements.size();
    r.element_count = m.elements.size();
    append_run(out.node_dof_count(), m.node_dof_count(), r.dofs);  // its bodies' follow below
    append_run(out.linear_constraint_count(), m.linear_constraint_count(), r.rows);
    ranges.push_back(r);

    append(out.reference_coordinates, m.reference_coordinates);
    append(out.initial_positions, m.initial_positions);
    append(out.initial_velocities, m.initial_velocities);
    for (Body b : m.bodies) {
      b.name = copy + ": " + b.name;
      b.first_node += r.first_node;
      b.first_element += r.first_element;
      out.bodies.push_back(b);
    }
    for (int e = 0; e < m.elements.size(); ++e) {
      el.node_a.push_back(m.elements.node_a[e] + r.first_node);
      el.node_b.push_back(m.elements.node_b[e] + r.first_node);
    }
    const size_t first_property = el.properties.size();
    append(el.properties, m.elements.properties);
    const std::vector<int> contact_of = merged_contact_surfaces(m.elements, copy + ": ", el, contact_index);
    const std::vector<int> fluid_of = merged_fluid_loads(m.elements, copy + ": ", el, fluid_index);
    for (size_t e = first_property; e < el.properties.size(); ++e) {
      ElementProperties& p = el.properties[e];
      if (p.contact >= 0.0) p.contact = contact_of[int(p.contact)];
      if (p.fluid >= 0.0) p.fluid = fluid_of[int(p.fluid)];
    }
    append(el.reference, m.elements.reference);
    append(el.scalar_mass, m.elements.scalar_mass);
    append(el.shape_integrals, m.elements.shape_integrals);
    append(el.quadrature, m.elements.quadrature);
    const int first_dof = out.node_dof_count(), first_row = out.linear_constraint_count();
    for (PointLoad p : m.point_loads) {
      p.dof += first_dof;
      out.point_loads.push_back(p);
    }
    for (DistributedLoad d : m.distributed_loads) {
      d.first_element += r.first_element;
      out.distributed_loads.push_back(d);
    }
    for (ConstraintRow row : m.constraint_rows) {
      for (int& dof : row.dofs) dof += first_dof;
      out.constraint_rows.push_back(row);
    }
    for (ConstraintGroup g : m.constraint_groups) {
      g.first_row += first_row;
      g.name = copy + ": " + g.name;
      out.constraint_groups.push_back(g);
    }
    append_mechanism(m.mechanism, r.first_node, r.first_element, copy + ": ", out.mechanism);
    // Each copy keeps its own length scale in the convergence and error norms.
    out.node_length_scale.insert(out.node_length_scale.end(), m.node_count, m.characteristic_length);
    out.characteristic_length = std::max(out.characteristic_length, m.characteristic_length);
    out.node_count += m.node_count;
  }

  // The copies' rigid coordinates and mechanism rows, now that the batch's layout is complete:
  // each kind (bodies, joints, drivers, motions, attachments, normalizations) holds the copies in
  // order.
  const Mechanism& batch = out.mechanism;
  const int rows = out.linear_constraint_count();
  int body = 0;                                   // the copy's first body in the batch
  int joint_row = rows + batch.joint_row(0);      // its first row of each kind
  int driver_row = rows + batch.driver_row(0);
  int motion_row = rows + batch.motion_row(0);
  int attachment_row = rows + batch.attachment_row(0);
  int normalization_row = rows + batch.normalization_row(0);
  int plane = 0, clearance = static_cast<int>(batch.contacts.planes.size());  // the copy's first of each
  for (size_t k = 0; k < copies.size(); ++k) {
    const Mechanism& m = copies[k]->mechanism;
    const int bodies = static_cast<int>(m.bodies.size()), drivers = static_cast<int>(m.drivers.size());
    const int joint_rows = m.joint_row(static_cast<int>(m.joints.size()));
    const int attachment_rows = m.attachment_row(static_cast<int>(m.attachments.size())) - m.attachment_row(0);
    CopyRange& r = ranges[k];
    append_run(out.rigid_offset() + 7 * body, 7 * bodies, r.dofs);
    append_run(joint_row, joint_rows, r.rows);
    append_run(driver_row, drivers, r.rows);
    append_run(motion_row, 6 * static_cast<int>(m.motions.size()), r.rows);
    append_run(attachment_row, attachment_rows, r.rows);
    append_run(normalization_row, bodies, r.rows);
    append_run(plane, static_cast<int>(m.contacts.planes.size()), r.rigid_contacts);
    append_run(clearance, static_cast<int>(m.contacts.clearance_joints.size()), r.rigid_contacts);
    plane += static_cast<int>(m.contacts.planes.size());
    clearance += static_cast<int>(m.contacts.clearance_joints.size());
    body += bodies;
    joint_row += joint_rows;
    driver_row += drivers;
    motion_row += 6 * static_cast<int>(m.motions.size());
    attachment_row += attachment_rows;
    normalization_row += bodies;
  }
  settle_contact_nodes(out.mechanism);
  // Every copy's element constants and length scale came with it: the batch is as finalized as
  // its copies.
  out.finalized = std::all_of(copies.begin(), copies.end(), [](const Model* m) { return m->finalized; });
  return out;
}

}  // namespace catenary
