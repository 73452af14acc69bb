#include "catenary/io/output_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "catenary/integrators/eigen_analysis.hpp"
#include "catenary/io/sensitivity_files.hpp"
#include "catenary/io/vtu_writer.hpp"
#include "catenary/model/contact_report.hpp"
#include "catenary/model/multibody_layout.hpp"
#include "catenary/model/results_columns.hpp"
#include "catenary/rigid/euler_angles.hpp"
#include "catenary/rigid/euler_parameters.hpp"
#include "earlier_outputs.hpp"
#include "output_file.hpp"
#include "text_output.hpp"
#include "vtu_format.hpp"

namespace catenary {

namespace fs = std::filesystem;

namespace {

std::string join(const std::string& directory, const std::string& name) {
  return (fs::path(directory) / name).string();
}

std::string frame_name(size_t index) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "frames/frame_%05zu.vtu", index);
  return buffer;
}

// The name an analysis gives itself in its summary (RunSummary::analysis).
std::string analysis_name(AnalysisSettings::Type type) {
  switch (type) {
    case AnalysisSettings::Type::Static: return "static";
    case AnalysisSettings::Type::Dynamic: return "dynamic";
    case AnalysisSettings::Type::Assembly: return "assembly";
    case AnalysisSettings::Type::Kinematic: return "kinematic";
    case AnalysisSettings::Type::Eigen: return "eigen";
  }
  return {};
}

void check_size(const Eigen::VectorXd* x, long expected, const char* what) {
  if (x && x->size() != expected)
    throw std::invalid_argument(std::string("output frame: ") + what + " has " +
                                std::to_string(x->size()) + " entries, expected " +
                                std::to_string(expected));
}

}  // namespace

OutputWriter::OutputWriter(const Case& c, const std::string& directory, const StateRecord* resume,
                           const std::string& prefix)
    : case_(c), directory_(directory), extremes_(c) {
  if (directory_.empty()) throw std::invalid_argument("output directory name is empty");
  const Model& m = case_.model;
  for (const auto* list : {&case_.output.nodes, &case_.output.tensions})
    for (const OutputNode& n : *list)
      if (n.node < 0 || n.node >= m.node_count)
        throw std::invalid_argument("output node '" + n.label + "' has index " + std::to_string(n.node) +
                                    ", the model has " + std::to_string(m.node_count) + " nodes");
  if (case_.output.vtu && case_.output.vtu_samples_per_element < 1)
    throw std::invalid_argument("VTU samples per element must be at least 1");
  for (const OutputNode& n : case_.output.tensions) tension_elements_.push_back(element_on_node(m, n.node));
  create_directory(directory_);
  if (resume) {
    resume_files(*resume, prefix);
    write_summary(starting_summary("running"));
    return;
  }
  clear_earlier_run(directory_);
  if (case_.output.vtu) create_directory(join(directory_, "frames"));
  write_summary(starting_summary("running"));
  csv_ = std::make_unique<OutputFile>(join(directory_, "results.csv"));
  write_csv_header();
  if (!m.mechanism.empty()) write_mechanism_headers();
  if (has_contacts(m)) write_contacts_header();
}

namespace {

}  // namespace

void OutputWriter::save(StateRecord& record, const std::string& prefix) const {
  record.set(prefix + "results_bytes", static_cast<double>(csv_->size()));
  if (bodies_csv_) {
    record.set(prefix + "rigid_bodies_bytes", static_cast<double>(bodies_csv_->size()));
    record.set(prefix + "joint_reactions_bytes", static_cast<double>(reactions_csv_->size()));
  }
  if (contacts_csv_) record.set(prefix + "contacts_bytes", static_cast<double>(contacts_csv_->size()));
  record.set(prefix + "vtu_frames", static_cast<double>(vtu_frames_));
  if (vtu_frames_ > 0)
    record.set(prefix + "pvd_bytes", static_cast<double>(fs::file_size(join(directory_, "results.pvd"))));
  record.set(prefix + "last_results_row", last_results_row_);
  extremes_.save(record, prefix);
}

void OutputWriter::resume_files(const StateRecord& record, const std::string& prefix) {
  const Model& m = case_.model;
  csv_ = std::make_unique<OutputFile>(join(directory_, "results.csv"), record.count(prefix + "results_bytes"));
  results_header_ = csv_header();
  last_results_row_ = record.text(prefix + "last_results_row");
  extremes_.restore(record, prefix);
  if (!m.mechanism.empty()) {
    const MultibodyLayout layout = multibody_layout(m);
    mechanism_dofs_ = layout.dofs;
    mechanism_first_row_ = layout.first_row;
    bodies_csv_ =
        std::make_unique<OutputFile>(join(directory_, "rigid_bodies.csv"), record.count(prefix + "rigid_bodies_bytes"));
    reactions_csv_ = std::make_unique<OutputFile>(join(directory_, "joint_reactions.csv"),
                                                  record.count(prefix + "joint_reactions_bytes"));
  }
  if (has_contacts(m))
    contacts_csv_ =
        std::make_unique<OutputFile>(join(directory_, "contacts.csv"), record.count(prefix + "contacts_bytes"));
  vtu_frames_ = static_cast<size_t>(record.count(prefix + "vtu_frames"));
  if (!case_.output.vtu) return;
  create_directory(join(directory_, "frames"));
  // Frames written after the checkpoint go; results.pvd is put back as it was then, its entries
  // after the checkpoint's cut off and its closing lines restored.
  std::error_code ignored;
  for (size_t k = vtu_frames_;; ++k) {
    const std::string frame = join(directory_, frame_name(k));
    fs::remove(frame + ".tmp", ignored);
    if (!fs::remove(frame, ignored)) break;
  }
  const std::string pvd = join(directory_, "results.pvd");
  if (vtu_frames_ == 0) {
    fs::remove(pvd, ignored);
    return;
  }
  const long keep = record.count(prefix + "pvd_bytes") - static_cast<long>(sizeof kPvdEnd - 1);
  std::ifstream in(pvd, std::ios::binary);
  std::string entries(static_cast<size_t>(std::max(keep, 0L)), '\0');
  if (keep <= 0 || !in.read(entries.data(), keep))
    throw CheckpointError(pvd + ": holds fewer bytes than when the checkpoint was written: the outputs are not "
                          "those the checkpoint was written with");
  write_atomically(pvd, entries + kPvdEnd);
}

namespace {

// Writes rows (each ending in a line end) to f in one write, so that a frame's rows are whole.
void write_rows(OutputFile& f, const std::string& rows) {
  f.add(rows);
  f.flush();
}

Vec<4> sub4(const Eigen::VectorXd& x, int at) { return vec4(x[at], x[at + 1], x[at + 2], x[at + 3]); }

}  // namespace

void OutputWriter::write_mechanism_headers() {
  const Model& m = case_.model;
  const Mechanism& mech = m.mechanism;
  const MultibodyLayout layout = multibody_layout(m);
  mechanism_dofs_ = layout.dofs;
  mechanism_first_row_ = layout.first_row;
  const bool accelerations = case_.analysis.type == AnalysisSettings::Type::Kinematic;
  bodies_csv_ = std::make_unique<OutputFile>(join(directory_, "rigid_bodies.csv"));
  std::string h = "time,body,x,y,z,e0,e1,e2,e3,vx,vy,vz,wx,wy,wz";
  if (accelerations) h += ",ax,ay,az,alpha_x,alpha_y,alpha_z";
  if (case_.output.euler_angles != EulerAngleColumns::none) h += ",euler_a,euler_b,euler_c";
  write_rows(*bodies_csv_, h + '\n');

  reactions_csv_ = std::make_unique<OutputFile>(join(directory_, "joint_reactions.csv"));
  h = "time";
  for (const Joint& j : mech.joints)
    for (const char* c : {"force_f", "force_g", "force_h", "torque_f", "torque_g", "torque_h"})
      h += ',' + csv_field(j.name + '.' + c);
  for (const Driver& d : mech.drivers) h += ',' + csv_field(d.name + ".effort");
  for (const BodyMotion& motion : mech.motions)
    for (const char* c : {"fx", "fy", "fz", "tx", "ty", "tz"}) h += ',' + csv_field(motion.name + ".motion." + c);
  for (const Attachment& a : mech.attachments)
    for (const char* c : {"fx", "fy", "fz"}) h += ',' + csv_field(a.name + '.' + c);
  for (const Tsda& e : mech.forces.tsda)
    for (const char* c : {"length", "rate", "force"}) h += ',' + csv_field(e.name + '.' + c);
  for (const Rsda& e : mech.forces.rsda)
    for (const char* c : {"angle", "rate", "torque"}) h += ',' + csv_field(e.name + '.' + c);
  write_rows(*reactions_csv_, h + '\n');
}

void OutputWriter::write_mechanism_rows(const Frame& f) {
  const Mechanism& mech = case_.model.mechanism;
  const int n = static_cast<int>(mechanism_dofs_.size());
  Eigen::VectorXd x(n), v = Eigen::VectorXd::Zero(n), a = Eigen::VectorXd::Zero(n);
  for (int k = 0; k < n; ++k) {
    x[k] = (*f.q)[mechanism_dofs_[k]];
    if (f.v) v[k] = (*f.v)[mechanism_dofs_[k]];
    if (f.a) a[k] = (*f.a)[mechanism_dofs_[k]];
  }
  const bool accelerations = case_.analysis.type == AnalysisSettings::Type::Kinematic;
  const std::string time = number(f.time);
  std::string body_rows;
  for (size_t b = 0; b < mech.bodies.size(); ++b) {
    const int at = 7 * static_cast<int>(b);
    const Vec<4> p = sub4(x, at + 3), pd = sub4(v, at + 3);
    const Vec<3> omega = rigid::angular_velocity(p, pd);
    std::string row = time + ',' + csv_field(mech.bodies[b].name);
    for (int k = 0; k < 7; ++k) row += ',' + number(x[at + k]);
    for (int k = 0; k < 3; ++k) row += ',' + number(v[at + k]);
    for (int k = 0; k < 3; ++k) row += ',' + number(omega[k]);
    if (accelerations) {
      // omega' = 2 E(p) p'' (E(p') p' = 0)
      const Vec<3> alpha = rigid::angular_velocity(p, sub4(a, at + 3));
      for (int k = 0; k < 3; ++k) row += ',' + number(a[at + k]);
      for (int k = 0; k < 3; ++k) row += ',' + number(alpha[k]);
    }
    if (case_.output.euler_angles != EulerAngleColumns::none) {
      const Vec<3> angles = rigid::euler_angles(p, case_.output.euler_angles == EulerAngleColumns::z_x_z
                                                      ? rigid::EulerConvention::z_x_z
                                                      : rigid::EulerConvention::x_y_z);
      for (int k = 0; k < 3; ++k) row += ',' + number(angles[k]);
    }
    body_rows += row + '\n';
  }
  write_rows(*bodies_csv_, body_rows);

  const int rows = mech.row_count();
  Eigen::VectorXd lambda = Eigen::VectorXd::Zero(rows);
  if (f.lambda) lambda = f.lambda->segment(mechanism_first_row_, rows);
  std::string row = time;
  for (size_t j = 0; j < mech.joints.size(); ++j) {
    const Joint& joint = mech.joints[j];
    const JointReaction r = joint_reaction(mech, static_cast<int>(j), x, lambda);
    // The joint frame: marker i's triad in the ground frame, A_i [f' g' h'].
    const Vec<4> pi = joint.body_i == kGround ? vec4(1, 0, 0, 0) : sub4(x, 7 * joint.body_i + 3);
    const Vec<3> axes[3] = {rigid::rotate(pi, joint.marker_i.f), rigid::rotate(pi, joint.marker_i.g),
                            rigid::rotate(pi, joint.marker_i.h)};
    for (const Vec<3>* w : {&r.force, &r.torque})
      for (const Vec<3>& e : axes) row += ',' + number(vec_norm(e) > 0.0 ? dot(e, *w) / vec_norm(e) : 0.0);
  }
  for (size_t d = 0; d < mech.drivers.size(); ++d) row += ',' + number(-lambda[mech.driver_row(static_cast<int>(d))]);
  for (size_t k = 0; k < mech.motions.size(); ++k) {
    const JointReaction r = motion_reaction(mech, static_cast<int>(k), x, lambda, f.time);
    for (const Vec<3>* w : {&r.force, &r.torque})
      for (int c = 0; c < 3; ++c) row += ',' + number((*w)[c]);
  }
  for (size_t k = 0; k < mech.attachments.size(); ++k)
    for (int c = 0; c < 3; ++c) row += ',' + number(-lambda[mech.attachment_row(static_cast<int>(k)) + c]);
  for (const Tsda& e : mech.forces.tsda) {
    const TsdaState s = tsda_state(e, x.data(), v.data(), f.time);
    row += ',' + number(s.length) + ',' + number(s.rate) + ',' + number(s.force);
  }
  for (const Rsda& e : mech.forces.rsda) {
    const RsdaState s = rsda_state(e, x.data(), v.data(), f.time);
    row += ',' + number(s.angle) + ',' + number(s.rate) + ',' + number(s.torque);
  }
  write_rows(*reactions_csv_, row + '\n');
}

// Rows were written whole as they came: closing loses nothing.
OutputWriter::~OutputWriter() = default;

void OutputWriter::write_csv_header() {
  results_header_ = csv_header();
  write_rows(*csv_, results_header_ + '\n');
}

std::string OutputWriter::csv_header() const {
  std::string h;
  for (const std::string& column : results_columns(case_.model, case_.output)) h += ',' + csv_field(column);
  return h.substr(1);
}

void OutputWriter::write_frame(const Frame& f) {
  const Model& m = case_.model;
  const int D = m.dimension, n = m.coordinates_per_node();
  if (!f.q) throw std::invalid_argument("output frame has no coordinates");
  check_size(f.q, m.dof_count(), "q");
  check_size(f.v, m.dof_count(), "v");
  check_size(f.lambda, m.constraint_count(), "lambda");
  const Eigen::VectorXd zero_v = f.v ? Eigen::VectorXd() : Eigen::VectorXd::Zero(m.dof_count());
  const Eigen::VectorXd& q = *f.q;
  const Eigen::VectorXd& v = f.v ? *f.v : zero_v;

  std::string row = number(f.time) + ',' + number(f.step) + ',' +
                    std::to_string(f.newton_iterations) + ',' + number(f.kinetic_energy) + ',' +
                    number(f.gravitational_energy) + ',' + number(f.elastic_energy) + ',' +
                    number(f.kinetic_energy + f.gravitational_energy + f.elastic_energy);
  for (const OutputNode& node : case_.output.nodes) {
    for (int k = 0; k < D; ++k) row += ',' + number(q[node.node * n + k]);
    for (int k = 0; k < D; ++k) row += ',' + number(v[node.node * n + k]);
  }
  for (const NodeOnElement& at : tension_elements_) row += ',' + number(node_tension(m, at, q, v));
  std::vector<Touchdown> touchdowns;
  for (int b : case_.output.touchdowns) {
    const Touchdown t = line_touchdown(m, m.bodies[b], q);
    touchdowns.push_back(t);
    const double none = std::numeric_limits<double>::quiet_NaN();  // "nan": no touchdown
    row += ',' + number(t.found ? t.arc_length : none);
    for (int k = 0; k < D; ++k) row += ',' + number(t.found ? t.position[k] : none);
  }
  for (const ConstraintGroup& g : m.constraint_groups)
    for (int i = 0; i < g.row_count; ++i)
      row += ',' + number(f.lambda ? -(*f.lambda)[g.first_row + i] : 0.0);
  write_rows(*csv_, row + '\n');
  extremes_.add_frame(f.time, q, v, touchdowns, row);
  last_results_row_ = std::move(row);
  if (!m.mechanism.empty()) write_mechanism_rows(f);
  if (contacts_csv_) write_contact_rows(f, q, v);

  if (case_.output.vtu) {
    const std::string name = frame_name(vtu_frames_);
    write_vtu(join(directory_, name), m, q, v, case_.output.vtu_samples_per_element, case_.output.vtu_encoding);
    ++vtu_frames_;
    add_pvd_entry(f.time, name);
  }
}

void OutputWriter::write_contacts_header() {
  contacts_csv_ = std::make_unique<OutputFile>(join(directory_, "contacts.csv"));
  std::string h = "time";
  for (const std::string& name : case_.model.elements.contact_names)
    for (const char* c : {"points", "normal_force", "friction_force", "penetration"})
      h += ',' + csv_field(name + '.' + c);
  for (const CableShapeContact& c : case_.model.mechanism.cable_contacts)
    for (const char* column : {"points", "normal_force", "friction_force", "penetration"})
      h += ',' + csv_field(c.name + '.' + column);
  const RigidContacts& rigid = case_.model.mechanism.contacts;
  for (int k = 0; k < rigid.count(); ++k)
    for (const char* c :
         {"points", "normal_force", "friction_force", "penetration", "gap", "slip_velocity", "state", "impulse"})
      h += ',' + csv_field(rigid.name(k) + '.' + c);
  write_rows(*contacts_csv_, h + '\n');
}

void OutputWriter::write_contact_rows(const Frame& f, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  std::string row = number(f.time);
  const auto add = [&](const std::vector<ContactReport>& reports) {
    for (const ContactReport& r : reports)
      row += ',' + std::to_string(r.points) + ',' + number(r.normal_force) + ',' + number(r.friction_force) + ',' +
             number(r.penetration);
  };
  add(contact_reports(case_.model, q, v));
  add(cable_shape_contact_reports(case_.model, q, v));
  const std::vector<RigidContactReport> rigid = rigid_contact_reports(case_.model, q, v);
  for (size_t k = 0; k < rigid.size(); ++k) {
    const RigidContactReport& r = rigid[k];
    // An impact since the last frame makes the contact's state 3 (impact) for this frame.
    const double impulse = f.contact_impulses ? (*f.contact_impulses)[static_cast<Eigen::Index>(k)] : 0.0;
    row += ',' + std::to_string(r.points) + ',' + number(r.normal_force) + ',' + number(r.friction_force) + ',' +
           number(r.penetration) + ',' + number(r.gap) + ',' + number(r.slip_velocity) + ',' +
           std::to_string(impulse > 0.0 ? 3 : r.state) + ',' + number(impulse);
  }
  write_rows(*contacts_csv_, row + '\n');
}

// Each frame's entry is written over the collection's closing lines and they follow it, so the
// file is whole after every frame, and a frame writes one entry, not the list again (which made a
// run of 10,000 frames spend 98 % of its time rewriting results.pvd). The entry is added once its
// frame file is whole under its own name.
void OutputWriter::add_pvd_entry(double time, const std::string& file) {
  const std::string path = join(directory_, "results.pvd");
  const std::string entry = pvd_entry(time, file) + kPvdEnd;
  if (vtu_frames_ == 1) {
    write_atomically(path, pvd_start() + entry);
    return;
  }
  // Opened for each frame, not held: a sweep's thousands of copies would each hold one more file.
  replace_tail(path, kPvdEnd, entry);
}

RunSummary OutputWriter::starting_summary(const std::string& status, const std::string& message) const {
  RunSummary s;
  s.analysis = analysis_name(case_.analysis.type);
  s.status = status;
  s.message = message;
  return s;
}

void OutputWriter::write_summary(const RunSummary& s) {
  const Model& m = case_.model;
  nlohmann::json files;
  files["directory"] = directory_;
  files["csv"] = "results.csv";
  if (case_.output.vtu) {
    files["pvd"] = "results.pvd";
    files["vtu_frames"] = vtu_frames_;
  }
  files["summary"] = "summary.json";
  if (fs::exists(join(directory_, "checkpoint.bin"))) files["checkpoint"] = "checkpoint.bin";
  if (!m.mechanism.empty()) {
    files["rigid_bodies"] = "rigid_bodies.csv";
    files["joint_reactions"] = "joint_reactions.csv";
  }
  if (has_contacts(m)) files["contacts"] = "contacts.csv";
  if (!s.eigenvalues.empty()) {
    files["modes"] = "modes.csv";
    files["mode_shapes"] = "mode_shapes.csv";
    if (case_.output.vtu) files["mode_frames"] = "modes";
  }
  if (case_.sensitivity.active() && s.status == "ok") {
    files["sensitivities"] = kSensitivitiesJson;
    files["sensitivities_csv"] = kSensitivitiesCsv;
  }
  nlohmann::json j;
  j["analysis"] = s.analysis;
  j["status"] = s.status;
  j["message"] = s.message;
  j["steps"] = s.steps;
  j["rejected_steps"] = s.rejected_steps;
  j["newton_iterations"] = s.newton_iterations;
  j["end_time"] = s.end_time;
  j["wall_seconds"] = s.wall_seconds;
  j["last_residual"] = s.last_residual;  // NaN / inf are written as null
  if (s.analysis == "dynamic") {
    j["largest_error_estimate"] = s.largest_error_estimate;
    j["largest_error_time"] = s.largest_error_time;
    j["largest_rejected_error_estimate"] = s.largest_rejected_error_estimate;
    if (!m.mechanism.contacts.empty()) {
      j["contact_events"] = s.contact_events;
      j["impacts"] = s.impacts;
      j["event_retries"] = s.event_retries;
    }
    j["stepping_wall_seconds"] = s.stepping_seconds;
    j["initial_state_wall_seconds"] = s.initial_state_seconds;
    j["output_wall_seconds"] = s.output_seconds;
    j["output_writing_wall_seconds"] = s.output_writing_seconds;
  }
  if (s.resumed_at >= 0.0) j["resumed_at"] = s.resumed_at;
  extremes_.add_to_summary(j);
  j["warnings"] = s.warnings;
  if (s.analysis == "assembly") {
    nlohmann::json moved = nlohmann::json::array();
    for (const MovedPart& p : s.moved) {
      nlohmann::json e;
      e["kind"] = p.kind;
      e["name"] = p.name;
      e["translation"] = p.translation;
      if (p.kind == "rigid_body") e["rotation"] = p.rotation;
      moved.push_back(e);
    }
    j["moved"] = moved;
    j["constraint_violation"] = s.constraint_violation;
  }
  if (s.analysis == "eigen") {
    nlohmann::json modes = nlohmann::json::array();
    for (const std::complex<double>& eigenvalue : s.eigenvalues) {
      const ModeFrequencies f = mode_frequencies(eigenvalue);
      modes.push_back({{"natural_frequency_hz", f.natural_hz},
                       {"damped_frequency_hz", f.damped_hz},
                       {"damping_ratio", f.damping_ratio},
                       {"eigenvalue", {eigenvalue.real(), eigenvalue.imag()}}});
    }
    j["modes"] = modes;
  }
  j["case"] = case_.name;
  j["source_file"] = case_.source_file;
  j["dof_count"] = m.dof_count();
  j["element_count"] = m.elements.size();
  j["constraint_rows"] = m.constraint_count();
  j["output_files"] = files;
  write_atomically(join(directory_, "summary.json"), j.dump(2) + "\n");
}

}  // namespace catenary
