#include "catenary/io/sweep_writer.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>

#include "catenary/model/model_operators.hpp"
#include "earlier_outputs.hpp"
#include "output_file.hpp"
#include "text_output.hpp"

namespace catenary {

namespace {

// How many columns a parameter takes in the table: n where every copy's value is an array of n
// numbers (a vector, one column a component), else 0 (one column: a number, or the value's JSON).
size_t parameter_width(const std::vector<SweepCase>& cases, const std::string& path) {
  const nlohmann::json& first = cases.front().values.at(path);
  if (!first.is_array() || first.empty()) return 0;
  for (const SweepCase& c : cases) {
    const nlohmann::json& v = c.values.at(path);
    if (!v.is_array() || v.size() != first.size()) return 0;
    for (const nlohmann::json& x : v)
      if (!x.is_number()) return 0;
  }
  return first.size();
}

// body(k) for each copy k < n on all OpenMP threads: each copy writes files of its own, and with
// thousands of copies the formatting and the system calls are most of a frame's host time. The
// first exception thrown is rethrown once all are done.
template <class Body>
void for_each_copy(size_t n, const Body& body) {
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(n); ++k) {
    try {
      body(static_cast<size_t>(k));
    } catch (...) {
#pragma omp critical(sweep_writer_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace

SweepIndex::SweepIndex(const std::vector<SweepCase>& cases, std::string directory)
    : cases_(cases), directory_(std::move(directory)), outcomes_(cases.size()) {}

void SweepIndex::record(size_t position, const RunSummary& s, const OutputWriter& w) {
  Outcome& o = outcomes_.at(position);
  o.status = s.status;
  o.message = s.message;
  o.results_header = w.results_header();
  o.last_results_row = w.last_results_row();
  o.extras_header = w.extremes().table_header();
  o.extras_row = w.extremes().table_row();
}

std::vector<size_t> SweepIndex::failed_copies() const {
  std::vector<size_t> failed;
  for (size_t k = 0; k < outcomes_.size(); ++k)
    if (outcomes_[k].status != "ok") failed.push_back(cases_[k].index);
  return failed;
}

void SweepIndex::save(StateRecord& record) const {
  for (size_t k = 0; k < outcomes_.size(); ++k) {
    const Outcome& o = outcomes_[k];
    if (o.status == "not run") continue;
    const std::string at = "sweep.copy." + std::to_string(cases_[k].index) + ".";
    record.set(at + "status", o.status);
    record.set(at + "message", o.message);
    record.set(at + "results_header", o.results_header);
    record.set(at + "last_results_row", o.last_results_row);
    record.set(at + "extras_header", o.extras_header);
    record.set(at + "extras_row", o.extras_row);
  }
}

void SweepIndex::restore(const StateRecord& record) {
  for (size_t k = 0; k < outcomes_.size(); ++k) {
    const std::string at = "sweep.copy." + std::to_string(cases_[k].index) + ".";
    if (!record.texts().count(at + "status")) continue;  // not run at the checkpoint
    Outcome& o = outcomes_[k];
    o.status = record.text(at + "status");
    o.message = record.text(at + "message");
    o.results_header = record.text(at + "results_header");
    o.last_results_row = record.text(at + "last_results_row");
    o.extras_header = record.text(at + "extras_header");
    o.extras_row = record.text(at + "extras_row");
  }
}

std::string SweepIndex::checkpoint_file(const std::vector<SweepCase>& cases, const std::string& directory) {
  return (std::filesystem::path(directory) / (stem(cases) + ".checkpoint.bin")).string();
}

std::string SweepIndex::stem(const std::vector<SweepCase>& cases) {
  if (cases.size() == cases.front().sweep_size) return "sweep";
  char name[64];
  std::snprintf(name, sizeof name, "sweep_copies_%04zu-%04zu", cases.front().index, cases.back().index);
  return name;
}

void SweepIndex::start() const {
  std::set<std::string> taken;
  for (const SweepCase& c : cases_) taken.insert(SweepWriter::copy_directory_name(c.index));
  clear_earlier_copies(directory_, stem(cases_), taken);
  std::error_code ignored;
  const std::string checkpoint = checkpoint_file(cases_, directory_);
  for (const std::string& name : {checkpoint, checkpoint + ".tmp"}) std::filesystem::remove(name, ignored);
  write("running");
}

void SweepIndex::write(const std::string& status) const {
  nlohmann::json index;
  index["copies"] = nlohmann::json::array();
  for (size_t k = 0; k < cases_.size(); ++k) {
    nlohmann::json copy = {{"index", cases_[k].index},
                           {"directory", SweepWriter::copy_directory_name(cases_[k].index)},
                           {"label", cases_[k].label},
                           {"values", cases_[k].values},
                           {"status", outcomes_[k].status}};
    if (!outcomes_[k].message.empty()) copy["message"] = outcomes_[k].message;
    index["copies"].push_back(copy);
  }
  index["status"] = status;
  index["sweep_copies"] = cases_.front().sweep_size;
  const std::filesystem::path at = std::filesystem::path(directory_) / stem(cases_);
  write_atomically(at.string() + ".json", index.dump(2) + "\n");
  write_atomically(at.string() + ".csv", table());
}

// The copy's number, its parameters, its status, then its last frame of results.csv and what else
// it reports over the run (RunExtremes: the lines' extremes, output.statistics), each where every
// copy has the same columns.
std::string SweepIndex::table() const {
  std::vector<std::pair<std::string, size_t>> parameters;  // path, width
  for (const auto& item : cases_.front().values.items())
    parameters.emplace_back(item.key(), parameter_width(cases_, item.key()));
  const std::string& results_header = outcomes_.front().results_header;
  bool same_columns = !results_header.empty();
  const std::string& extras_header = outcomes_.front().extras_header;
  bool same_extras = !extras_header.empty();
  for (const Outcome& o : outcomes_) {
    same_columns = same_columns && o.results_header == results_header;
    same_extras = same_extras && o.extras_header == extras_header;
  }
  std::string table = "copy";
  for (const auto& [path, width] : parameters) {
    if (width == 0) table += ',' + csv_field(path);
    for (size_t i = 0; i < width; ++i) table += ',' + csv_field(path + '/' + std::to_string(i));
  }
  table += ",status";
  if (same_columns) table += ',' + results_header;
  if (same_extras) table += ',' + extras_header;
  table += '\n';
  const std::string no_frame(std::count(results_header.begin(), results_header.end(), ','), ',');
  const std::string no_extras(std::count(extras_header.begin(), extras_header.end(), ','), ',');
  for (size_t k = 0; k < cases_.size(); ++k) {
    table += std::to_string(cases_[k].index);
    for (const auto& [path, width] : parameters) {
      const nlohmann::json& v = cases_[k].values.at(path);
      if (width == 0) table += ',' + (v.is_number() ? number(v.get<double>()) : csv_field(v.dump()));
      for (size_t i = 0; i < width; ++i) table += ',' + number(v[i].get<double>());
    }
    table += ',' + outcomes_[k].status;
    if (same_columns) table += ',' + (outcomes_[k].last_results_row.empty() ? no_frame : outcomes_[k].last_results_row);
    if (same_extras) table += ',' + (outcomes_[k].extras_row.empty() ? no_extras : outcomes_[k].extras_row);
    table += '\n';
  }
  return table;
}

std::string SweepWriter::copy_directory_name(size_t k) {
  char name[32];
  std::snprintf(name, sizeof name, "copy_%04zu", k);
  return name;
}

SweepWriter::SweepWriter(const std::vector<SweepCase>& cases, std::vector<size_t> positions,
                         const std::vector<CopyRange>& ranges, const Model& batch, Backend& backend,
                         const std::string& directory, SweepIndex& index, const StateRecord* resume)
    : cases_(cases), positions_(std::move(positions)), ranges_(ranges), backend_(backend),
      index_(index), gravity_(gravity_vector(batch)) {
  // The copies' common parent first, so that their threads do not race to make it (a failure
  // here is reported by the copies' own, with its reason).
  std::error_code ignored;
  std::filesystem::create_directories(directory, ignored);
  writers_.resize(positions_.size());
  mechanisms_.resize(positions_.size());
  for_each_copy(positions_.size(), [&](size_t k) {
    const SweepCase& copy = cases[positions_[k]];
    writers_[k] = std::make_unique<OutputWriter>(
        copy.c, (std::filesystem::path(directory) / copy_directory_name(copy.index)).string(), resume,
        record_prefix(copy.index));
    if (!copy.c.model.mechanism.empty()) mechanisms_[k] = std::make_unique<MultibodyBlock>(copy.c.model);
  });
}

std::string SweepWriter::record_prefix(size_t k) { return "copy." + std::to_string(k) + ".output."; }

void SweepWriter::save(StateRecord& record) const {
  for (size_t k = 0; k < writers_.size(); ++k) writers_[k]->save(record, record_prefix(cases_[positions_[k]].index));
}

void SweepWriter::write_frame(const Frame& f) {
  // Per-copy energies from the batch frame's (emit_frame): the copies do not couple, so copy k's
  // kinetic energy is 1/2 v_k . (M v)_k, its strain energy the sum over its elements, and its
  // springs' potential (at v = 0, t = 0, as System::energies takes it) its own bodies'.
  if (!f.mass_times_v) throw std::logic_error("a sweep's frames carry M v (emit_frame)");
  backend_.element_energies(element_energy_);
  for_each_copy(writers_.size(), [&](size_t k) {
    const CopyRange& r = ranges_[k];
    const Eigen::VectorXd q = (*f.q)(r.dofs), v = (*f.v)(r.dofs);
    const Eigen::VectorXd lambda = f.lambda ? Eigen::VectorXd((*f.lambda)(r.rows)) : Eigen::VectorXd();
    const Eigen::VectorXd impulses =
        f.contact_impulses ? Eigen::VectorXd((*f.contact_impulses)(r.rigid_contacts)) : Eigen::VectorXd();
    Frame copy = f;
    copy.q = &q;
    copy.v = &v;
    copy.contact_impulses = f.contact_impulses ? &impulses : nullptr;
    copy.lambda = f.lambda ? &lambda : nullptr;
    copy.mass_times_v = nullptr;  // the batch's, not this copy's
    copy.kinetic_energy = 0.5 * v.dot((*f.mass_times_v)(r.dofs));
    copy.gravitational_energy = -q.dot(gravity_(r.dofs));
    copy.elastic_energy = 0.0;
    for (int e = r.first_element; e < r.first_element + r.element_count; ++e) copy.elastic_energy += element_energy_[e];
    if (const MultibodyBlock* block = mechanisms_[k].get()) {
      const Eigen::VectorXd x = q(block->layout().dofs);
      Eigen::VectorXd fb;
      copy.elastic_energy += block->internal_force(x, Eigen::VectorXd::Zero(x.size()), 0.0, fb);
    }
    writers_[k]->write_frame(copy);
  });
}

void SweepWriter::write_summary(const RunSummary& s) {
  for_each_copy(writers_.size(), [&](size_t k) {
    writers_[k]->write_summary(s);
    index_.record(positions_[k], s, *writers_[k]);  // each copy its own outcome
  });
}

}  // namespace catenary
