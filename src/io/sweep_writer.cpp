#include "catenary/io/sweep_writer.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "catenary/assembly/model_operators.hpp"

namespace catenary {

namespace {

// Each copy keeps its results.csv open: raise the soft limit on open files to what the copies
// need (up to the hard limit).
void allow_open_files(size_t needed) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed) return;
  limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, needed);
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

std::string SweepWriter::index_file_name(const std::vector<SweepCase>& cases) {
  if (cases.size() == cases.front().sweep_size) return "sweep.json";
  char name[64];
  std::snprintf(name, sizeof name, "sweep_copies_%04zu-%04zu.json", cases.front().index, cases.back().index);
  return name;
}

std::string SweepWriter::copy_directory_name(size_t k) {
  char name[32];
  std::snprintf(name, sizeof name, "copy_%04zu", k);
  return name;
}

SweepWriter::SweepWriter(const std::vector<SweepCase>& cases, const std::vector<CopyRange>& ranges,
                         const Model& batch, Backend& backend, const std::string& directory)
    : cases_(cases), ranges_(ranges), batch_(batch), backend_(backend), directory_(directory),
      gravity_(gravity_vector(batch)) {
  allow_open_files(cases.size() + 64);
  for (size_t k = 0; k < cases.size(); ++k) {
    writers_.push_back(std::make_unique<OutputWriter>(
        cases[k].c, (std::filesystem::path(directory) / copy_directory_name(cases[k].index)).string()));
    const Model& m = cases[k].c.model;
    mechanisms_.push_back(m.mechanism.empty() ? nullptr : std::make_unique<MultibodyBlock>(m));
  }
}


void SweepWriter::write_frame(const Frame& f) {
  // Per-copy energies from the batch frame's (emit_frame): the copies do not couple, so copy k's
  // kinetic energy is 1/2 v_k . (M v)_k, its strain energy the sum over its elements, and its
  // springs' potential (at v = 0, t = 0, as System::energies takes it) its own bodies'.
  if (!f.mass_times_v) throw std::logic_error("a sweep's frames carry M v (emit_frame)");
  std::vector<double> element_energy;
  backend_.element_energies(element_energy);
  for (size_t k = 0; k < writers_.size(); ++k) {
    const CopyRange& r = ranges_[k];
    const Eigen::VectorXd q = (*f.q)(r.dofs), v = (*f.v)(r.dofs);
    const Eigen::VectorXd lambda = f.lambda ? Eigen::VectorXd((*f.lambda)(r.rows)) : Eigen::VectorXd();
    Frame copy = f;
    copy.q = &q;
    copy.v = &v;
    copy.lambda = f.lambda ? &lambda : nullptr;
    copy.mass_times_v = nullptr;  // the batch's, not this copy's
    copy.kinetic_energy = 0.5 * v.dot((*f.mass_times_v)(r.dofs));
    copy.gravitational_energy = -q.dot(gravity_(r.dofs));
    copy.elastic_energy = 0.0;
    for (int e = r.first_element; e < r.first_element + r.element_count; ++e) copy.elastic_energy += element_energy[e];
    if (const MultibodyBlock* block = mechanisms_[k].get()) {
      const Eigen::VectorXd x = q(block->layout().dofs);
      Eigen::VectorXd fb;
      copy.elastic_energy += block->internal_force(x, Eigen::VectorXd::Zero(x.size()), 0.0, fb);
    }
    writers_[k]->write_frame(copy);
  }
}

void SweepWriter::write_summary(const RunSummary& s) {
  nlohmann::json index;
  index["copies"] = nlohmann::json::array();
  for (size_t k = 0; k < writers_.size(); ++k) {
    writers_[k]->write_summary(s);
    index["copies"].push_back({{"index", cases_[k].index},
                               {"directory", copy_directory_name(cases_[k].index)},
                               {"label", cases_[k].label},
                               {"values", cases_[k].values}});
  }
  index["status"] = s.status;
  index["batch_dof_count"] = batch_.dof_count();
  index["sweep_copies"] = cases_.front().sweep_size;
  std::ofstream out(std::filesystem::path(directory_) / index_file_name(cases_));
  out << index.dump(2) << "\n";
}

}  // namespace catenary
