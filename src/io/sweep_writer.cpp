#include "catenary/io/sweep_writer.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

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
        cases[k].c, (std::filesystem::path(directory) / copy_directory_name(k)).string()));
    const Model& m = cases[k].c.model;
    mechanisms_.push_back(m.mechanism.empty() ? nullptr : std::make_unique<MultibodyBlock>(m));
  }
}

namespace {

Eigen::VectorXd pick(const Eigen::VectorXd& x, const std::vector<int>& index) {
  Eigen::VectorXd out(index.size());
  for (size_t i = 0; i < index.size(); ++i) out[i] = x[index[i]];
  return out;
}

}  // namespace

void SweepWriter::write_frame(const Frame& f) {
  // Per-copy energies from the batch state, as System::energies computes a single run's: the
  // elements' mass is block diagonal, so copy k's share of 1/2 v.Mv is 1/2 v_k.(Mv)_k; strain
  // energies are summed over its elements; a copy's rigid bodies add their own kinetic energy
  // and spring potential (at v = 0, t = 0, like System::energies).
  Eigen::VectorXd Mv, force;
  backend_.mass_product(*f.v, Mv);
  backend_.internal_force(*f.q, Eigen::VectorXd::Zero(f.q->size()), force);
  std::vector<double> element_energy;
  backend_.element_energies(element_energy);
  for (size_t k = 0; k < writers_.size(); ++k) {
    const CopyRange& r = ranges_[k];
    const Eigen::VectorXd q = pick(*f.q, r.dofs), v = pick(*f.v, r.dofs);
    const Eigen::VectorXd lambda = f.lambda ? pick(*f.lambda, r.rows) : Eigen::VectorXd();
    Frame copy = f;
    copy.q = &q;
    copy.v = &v;
    copy.lambda = f.lambda ? &lambda : nullptr;
    copy.kinetic_energy = 0.5 * v.dot(pick(Mv, r.dofs));
    copy.gravitational_energy = -q.dot(pick(gravity_, r.dofs));
    copy.elastic_energy = 0.0;
    for (int e = r.first_element; e < r.first_element + r.element_count; ++e) copy.elastic_energy += element_energy[e];
    if (const MultibodyBlock* block = mechanisms_[k].get()) {
      const Eigen::VectorXd x = pick(q, block->layout().dofs), w = pick(v, block->layout().dofs);
      Eigen::VectorXd Mw, fb;
      block->mass_product(x, w, Mw);
      copy.kinetic_energy += 0.5 * w.dot(Mw);
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
    index["copies"].push_back({{"index", k},
                               {"directory", copy_directory_name(k)},
                               {"label", cases_[k].label},
                               {"values", cases_[k].values}});
  }
  index["status"] = s.status;
  index["batch_dof_count"] = batch_.dof_count();
  std::ofstream out(std::filesystem::path(directory_) / "sweep.json");
  out << index.dump(2) << "\n";
}

}  // namespace catenary
