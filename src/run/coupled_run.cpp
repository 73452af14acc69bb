#include "catenary/run/coupled_run.hpp"

#include <algorithm>
#include <stdexcept>

#include "catenary/core/errors.hpp"
#include "catenary/integrators/analyses.hpp"
#include "catenary/integrators/system.hpp"
#include "catenary/io/directory_lock.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/model/multibody_layout.hpp"

namespace catenary {

struct CoupledRun::Parts {
  Case c;
  SelectedBackend backend;
  std::unique_ptr<System> system;
  std::unique_ptr<DirectoryLock> lock;
  std::unique_ptr<OutputWriter> writer;
  MultibodyLayout layout;
};

namespace {

constexpr const char* kPathsKey = "coupling.paths";  // t0, t1, x0, x1, rate0, rate1 of each path
constexpr const char* kNextFrameKey = "coupling.next_frame";

}  // namespace

CoupledRun::CoupledRun(Case c, BackendChoice backend, const std::string& directory)
    : parts_(std::make_unique<Parts>()) {
  Parts& p = *parts_;
  p.c = std::move(c);
  if (p.c.analysis.type != AnalysisSettings::Type::Dynamic)
    throw InputError(p.c.source_file, "/analysis/type", "a coupled run advances a dynamic analysis");
  // The coupled bodies' six paths, shared with the mechanism that the system copies.
  for (BodyMotion& motion : p.c.model.mechanism.motions) {
    if (!motion.coupled) continue;
    names_.push_back(motion.name);
    bodies_.push_back(motion.body);
    for (int k = 0; k < 6; ++k) {
      paths_.push_back(std::make_shared<CoupledPath>());
      (k < 3 ? motion.translation[k] : motion.rotation[k - 3]) = TimeFunction::of_path(paths_.back());
    }
  }
  p.layout = multibody_layout(p.c.model);
  p.backend = make_backend(backend, p.c.model, p.c.analysis);
  p.system = std::make_unique<System>(p.c.model, *p.backend.backend);
  if (!directory.empty()) {
    try {
      p.lock = std::make_unique<DirectoryLock>(directory);
      p.writer = std::make_unique<OutputWriter>(p.c, directory);
    } catch (const OutputError&) {
      throw;
    } catch (const std::exception& e) {  // a directory that cannot be written or is in use: bad input
      throw InputError(p.c.source_file, "(output directory)", e.what());
    }
  }
}

CoupledRun::~CoupledRun() {
  if (parts_->writer && initialized_) {
    try {
      parts_->writer->write_summary(summary_);
    } catch (const OutputError&) {  // a destructor reports nothing; the frames written stay
    }
  }
}

void CoupledRun::store_paths(StateRecord& record) const {
  Eigen::VectorXd values(6 * static_cast<Eigen::Index>(paths_.size()));
  for (size_t k = 0; k < paths_.size(); ++k) {
    const CoupledPath& path = *paths_[k];
    const double v[] = {path.t0, path.t1, path.x0, path.x1, path.rate0, path.rate1};
    for (int i = 0; i < 6; ++i) values[6 * static_cast<Eigen::Index>(k) + i] = v[i];
  }
  record.set(kPathsKey, values);
  record.set(kNextFrameKey, next_frame_);
}

void CoupledRun::initialize(bool static_equilibrium) {
  if (initialized_) throw std::logic_error("the coupled run is initialized already");
  DynamicSettings s = parts_->c.analysis.dynamics;
  s.static_start = static_equilibrium;
  s.end_time = 0.0;
  advance_to(s, nullptr);
  initialized_ = true;
}

void CoupledRun::advance(double t_next, const double* motion, const double* rates) {
  if (!initialized_) throw std::logic_error("initialize the coupled run before advancing it");
  const double t = time();
  if (!(t_next > t)) throw std::invalid_argument("advance to " + std::to_string(t_next) + " s: not after the run's time, " +
                                                 std::to_string(t) + " s");
  for (size_t k = 0; k < paths_.size(); ++k) {
    CoupledPath& path = *paths_[k];
    path = {t, t_next, path.at(t, 0), motion[k], path.at(t, 1), rates[k]};
  }
  DynamicSettings s = parts_->c.analysis.dynamics;
  s.end_time = t_next;
  s.max_steps += summary_.steps;  // the case's limit counts an advance's steps
  advance_to(s, &state_);
}

void CoupledRun::advance_to(const DynamicSettings& s, const StateRecord* from) {
  Parts& p = *parts_;
  Checkpoints checkpoints;
  checkpoints.resume = from;
  checkpoints.at_end = true;
  StateRecord reached;
  checkpoints.write = [&](StateRecord& record) {
    if (p.writer) p.writer->save(record);
    store_paths(record);
    reached = record;
  };
  // Each advance ends on a frame (run_dynamic's last step): the outputs keep those at the case's
  // output interval alone, whatever the coupling step.
  const double interval = p.c.output.interval;
  const FrameSink sink = [&](const Frame& f) {
    if (!p.writer || f.time < next_frame_ - 1e-9 * std::max(interval, f.step)) return;
    p.writer->write_frame(f);
    while (interval > 0.0 && next_frame_ <= f.time + 1e-9 * std::max(interval, f.step)) next_frame_ += interval;
  };
  try {
    run_dynamic(*p.system, s, p.c.output.interval, sink, summary_, nullptr, checkpoints);
  } catch (const SimulationError& e) {
    summary_.status = "failed";
    summary_.message = e.what();
    throw;
  }
  summary_.status = "ok";
  state_ = std::move(reached);
}

double CoupledRun::time() const { return initialized_ ? state_.number("state.t") : 0.0; }

std::vector<double> CoupledRun::loads() const {
  if (!initialized_) throw std::logic_error("initialize the coupled run before reading its loads");
  const Parts& p = *parts_;
  const Eigen::VectorXd& q = state_.vector("state.q", p.c.model.dof_count());
  const Eigen::VectorXd& lambda = state_.vector("state.lambda", p.c.model.constraint_count());
  Eigen::VectorXd x(static_cast<Eigen::Index>(p.layout.dofs.size()));
  for (size_t k = 0; k < p.layout.dofs.size(); ++k) x[static_cast<Eigen::Index>(k)] = q[p.layout.dofs[k]];
  const Eigen::VectorXd mu = lambda.segment(p.layout.first_row, p.layout.rows);
  std::vector<double> out;
  for (int body : bodies_) {
    const JointReaction r = attachment_loads(p.c.model.mechanism, body, x, mu);
    out.insert(out.end(), r.force.v, r.force.v + 3);
    out.insert(out.end(), r.torque.v, r.torque.v + 3);
  }
  return out;
}

StateRecord CoupledRun::save() const {
  if (!initialized_) throw std::logic_error("initialize the coupled run before saving its state");
  return state_;
}

void CoupledRun::restore(const StateRecord& record) {
  Parts& p = *parts_;
  const Eigen::VectorXd& values = record.vector(kPathsKey, 6 * static_cast<Eigen::Index>(paths_.size()));
  record.vector("state.q", p.c.model.dof_count());  // a record of this run's model, else CheckpointError
  if (p.writer) {
    const std::string directory = p.writer->directory();
    p.writer.reset();
    p.writer = std::make_unique<OutputWriter>(p.c, directory, &record);
  }
  for (size_t k = 0; k < paths_.size(); ++k) {
    const double* v = values.data() + 6 * k;
    *paths_[k] = {v[0], v[1], v[2], v[3], v[4], v[5]};
  }
  next_frame_ = record.number(kNextFrameKey);
  state_ = record;
  initialized_ = true;
}

}  // namespace catenary
