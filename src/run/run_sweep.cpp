#include "catenary/run/run_sweep.hpp"

#include <sys/resource.h>

#include <omp.h>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/io/checkpoint_file.hpp"
#include "catenary/io/directory_lock.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/io/sweep_writer.hpp"
#include "catenary/model/sweep.hpp"

namespace catenary {

namespace {

// Each copy's writer keeps its files open for the whole run: raise the soft limit on open files to
// what the batch's writers hold, with room for each thread's frame files and the rest of the
// process, or say which limit stops it (a cluster's default soft limit, 1,024, is below a
// 1,000-copy sweep of cranes' 3,000 files).
void allow_open_files(const std::vector<SweepCase>& cases, const std::vector<size_t>& positions,
                      const std::string& case_path) {
  size_t needed = 64 + 2 * static_cast<size_t>(omp_get_max_threads());
  for (size_t k : positions) needed += OutputWriter::files_held(cases[k].c);
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed) return;
  if (limit.rlim_max < needed)
    throw InputError(case_path, "/sweep",
                     "the " + std::to_string(positions.size()) + " copies keep " + std::to_string(needed) +
                         " files open at once, more than this process may open (" + std::to_string(limit.rlim_max) +
                         ", ulimit -Hn): run the sweep in parts (run --part K/N or --copies A-B)");
  limit.rlim_cur = needed;
  setrlimit(RLIMIT_NOFILE, &limit);
}

// The copies (their positions in the batch, ascending) that hold the failed run's coordinates: the
// one where it was furthest off and those it left unsettled.
std::vector<size_t> copies_holding(const std::vector<CopyRange>& ranges, const AnalysisRun& outcome, int dofs) {
  std::vector<int> owner(static_cast<size_t>(dofs), -1);
  for (size_t k = 0; k < ranges.size(); ++k)
    for (int d : ranges[k].dofs) owner[d] = static_cast<int>(k);
  std::vector<bool> held(ranges.size(), false);
  std::vector<int> failed = outcome.unsettled_dofs;
  failed.push_back(outcome.failed_dof);
  for (int d : failed)
    if (d >= 0 && d < dofs && owner[d] >= 0) held[owner[d]] = true;
  std::vector<size_t> copies;
  for (size_t k = 0; k < held.size(); ++k)
    if (held[k]) copies.push_back(k);
  return copies;
}

// What a batch came to: the run's outcome and, where it failed at coordinates of some of its
// copies, their places in the batch (empty: no such place).
struct BatchResult {
  AnalysisRun run;
  std::vector<size_t> culprits;
};

// A sweep's checkpoints: where they go, what they must match, and the sweep's own values (the
// batches, the index) that each adds to the batch's run and writers.
struct SweepCheckpoints {
  std::string path;
  CheckpointIdentity identity;
  std::function<void(StateRecord&)> add_sweep_state;
};

// A list of positions in cases, as a checkpoint keeps it.
Eigen::VectorXd positions_vector(const std::vector<size_t>& positions) {
  Eigen::VectorXd x(static_cast<Eigen::Index>(positions.size()));
  for (size_t k = 0; k < positions.size(); ++k) x[static_cast<Eigen::Index>(k)] = static_cast<double>(positions[k]);
  return x;
}

std::vector<size_t> positions_of(const Eigen::VectorXd& x, size_t copies, const std::string& key) {
  std::vector<size_t> positions;
  for (const double p : x) {
    if (!(p >= 0.0 && p < static_cast<double>(copies) && p == static_cast<double>(static_cast<size_t>(p))))
      throw CheckpointError("the checkpoint's '" + key + "' is not a list of this run's copies");
    positions.push_back(static_cast<size_t>(p));
  }
  return positions;
}

void save_batches(const std::vector<size_t>& running, const std::deque<std::vector<size_t>>& pending,
                  StateRecord& record) {
  record.set("sweep.batch", positions_vector(running));
  record.set("sweep.pending", static_cast<double>(pending.size()));
  for (size_t k = 0; k < pending.size(); ++k) record.set("sweep.pending." + std::to_string(k), positions_vector(pending[k]));
}

// The batches a resumed sweep runs: the checkpoint's running batch first, then those pending.
std::deque<std::vector<size_t>> restore_batches(const StateRecord& record, size_t copies) {
  std::deque<std::vector<size_t>> batches;
  batches.push_back(positions_of(record.vector("sweep.batch"), copies, "sweep.batch"));
  const long pending = record.count("sweep.pending");
  for (long k = 0; k < pending; ++k) {
    const std::string key = "sweep.pending." + std::to_string(k);
    batches.push_back(positions_of(record.vector(key), copies, key));
  }
  return batches;
}

// The copies at `positions` of cases merged into one batch, run on a backend of their own (a CUDA
// one on cuda_device) and written through `index`; from the checkpoint `resume` where given.
BatchResult run_batch(const std::vector<SweepCase>& cases, const std::vector<size_t>& positions,
                      const std::string& case_path, const std::string& dir, const std::string& dir_origin,
                      BackendChoice choice, SweepIndex& index, const std::string& files, SweepObserver& observer,
                      const Interruption* interruption, const SweepCheckpoints& sweep_checkpoints,
                      const StateRecord* resume, int cuda_device) {
  std::vector<size_t> numbers;
  for (size_t k : positions) numbers.push_back(cases[k].index);
  std::vector<CopyRange> ranges;
  const Model batch = merge_sweep_copies(cases, positions, case_path, ranges);
  const Case& first = cases.front().c;
  const std::string size = std::to_string(batch.dof_count()) + " coordinates, " +
                           std::to_string(batch.constraint_count()) + " constraint rows in the batch";
  observer.batch_planned(positions.size() < cases.front().sweep_size
                             ? copy_list(numbers) + " of the " + std::to_string(cases.front().sweep_size) +
                                   " of the sweep '" + first.name + "': " + size
                             : "sweep of " + std::to_string(cases.size()) + " copies of '" + first.name + "': " + size);
  const SelectedBackend selected = make_backend(choice, batch, first.analysis, cuda_device);
  allow_open_files(cases, positions, case_path);
  std::unique_ptr<SweepWriter> writer;
  try {
    writer = std::make_unique<SweepWriter>(cases, positions, ranges, batch, *selected.backend, dir, index, resume);
  } catch (const OutputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(case_path, dir_origin, e.what());
  }
  observer.backend_ready(*selected.backend, selected.notice);
  Checkpoints checkpoints;
  checkpoints.interval = first.output.checkpoint_interval;
  checkpoints.wall_interval = first.output.checkpoint_wall_interval;
  checkpoints.resume = resume;
  checkpoints.write = [&](StateRecord& record) {
    sweep_checkpoints.add_sweep_state(record);
    writer->save(record);
    record.set("run.backend", selected.backend->name());
    write_checkpoint(sweep_checkpoints.path, sweep_checkpoints.identity, record);
  };
  BatchResult result;
  result.run = run_analysis(first.analysis, first.output.interval, batch, *selected.backend,
                            [&](const Frame& f) { writer->write_frame(f); }, interruption, checkpoints);
  writer->write_summary(result.run.summary);
  observer.batch_finished(result.run, dir, files);
  if (result.run.failed_dof >= 0) result.culprits = copies_holding(ranges, result.run, batch.dof_count());
  return result;
}

}  // namespace

Model merge_sweep_copies(const std::vector<SweepCase>& cases, const std::vector<size_t>& positions,
                         const std::string& case_path, std::vector<CopyRange>& ranges) {
  std::vector<const Model*> models;
  std::vector<size_t> numbers;
  for (size_t k : positions) models.push_back(&cases[k].c.model), numbers.push_back(cases[k].index);
  try {
    return merge_models(models, ranges, numbers);
  } catch (const ModelError& e) {
    throw InputError(case_path, "/sweep", e.what());
  }
}

SweepRun run_sweep(const std::vector<SweepCase>& cases, const std::string& case_path, const std::string& dir,
                   const std::string& dir_origin, BackendChoice choice, SweepObserver& observer,
                   const Interruption* interruption, bool resume, int cuda_device) {
  const std::string stem = SweepIndex::stem(cases);
  // A whole sweep needs the directory alone; the parts of one share it, each its own copies.
  std::unique_ptr<DirectoryLock> lock, part_lock;
  try {
    if (resume) require_run_directory(dir);
    const bool part = stem != "sweep";
    lock = std::make_unique<DirectoryLock>(dir, part ? DirectoryLock::Kind::Shared : DirectoryLock::Kind::Exclusive);
    if (part) part_lock = std::make_unique<DirectoryLock>(dir, DirectoryLock::Kind::Exclusive, ".catenary-" + stem + ".lock");
  } catch (const std::exception& e) {
    throw InputError(case_path, dir_origin, e.what());
  }
  SweepIndex index(cases, dir);
  // Batches still to run, each a list of positions in cases, and the one running.
  std::deque<std::vector<size_t>> batches;
  std::vector<size_t> positions;
  SweepCheckpoints sweep_checkpoints;
  sweep_checkpoints.path = SweepIndex::checkpoint_file(cases, dir);
  sweep_checkpoints.identity.case_fingerprint = copies_fingerprint(cases);
  for (const SweepCase& copy : cases) {
    sweep_checkpoints.identity.dofs += copy.c.model.dof_count();
    sweep_checkpoints.identity.constraints += copy.c.model.constraint_count();
  }
  sweep_checkpoints.add_sweep_state = [&](StateRecord& record) {
    save_batches(positions, batches, record);
    index.save(record);
  };
  std::unique_ptr<StateRecord> checkpoint;
  if (resume) {
    try {
      checkpoint = std::make_unique<StateRecord>(read_checkpoint(sweep_checkpoints.path, sweep_checkpoints.identity));
      batches = restore_batches(*checkpoint, cases.size());
    } catch (const CheckpointError& e) {
      throw InputError(case_path, dir_origin, e.what());
    }
    index.restore(*checkpoint);
    index.write("running");
  } else {
    batches.emplace_back();
    for (size_t k = 0; k < cases.size(); ++k) batches.front().push_back(k);
    index.start();
  }
  const std::string files = "one directory per copy, " + stem + ".json, " + stem + ".csv";
  SweepRun outcome;
  try {
    // A stop asked for during a batch or between two leaves that batch's copies and those not run
    // yet unfinished.
    while (!batches.empty()) {
      if (stop_requested(interruption)) {
        outcome.interrupted = true;
        break;
      }
      positions = std::move(batches.front());
      batches.pop_front();
      const BatchResult result = run_batch(cases, positions, case_path, dir, dir_origin, choice, index, files, observer,
                                           interruption, sweep_checkpoints, checkpoint.get(), cuda_device);
      checkpoint.reset();  // only the first batch resumes
      if (result.run.interrupted()) {
        outcome.interrupted = true;
        break;
      }
      if (!result.run.failed()) continue;
      // A batch of one is that copy's own single run: its failure stands. Otherwise each copy the
      // failed iteration left unsettled runs alone and the others again without them, from the
      // start (no copy then waits on another's step): copies that diverge at the same step cost
      // one rerun of the rest, not one each. A failure with no place stops the sweep, as it would
      // stop every batch again.
      if (positions.size() == 1 || result.culprits.empty()) continue;
      std::vector<size_t> others, culprit_numbers;
      for (size_t i = 0, c = 0; i < positions.size(); ++i) {
        if (c < result.culprits.size() && result.culprits[c] == i) {
          ++c;
          culprit_numbers.push_back(cases[positions[i]].index);
          batches.push_back({positions[i]});
        } else {
          others.push_back(positions[i]);
        }
      }
      const bool one = culprit_numbers.size() == 1;
      const std::string rest = others.empty() ? std::string()
                                              : std::string(", and ") + (others.size() == 1 ? "the other copy" : "the others") +
                                                    " again without " + (one ? "it" : "them");
      observer.note(copy_list(culprit_numbers) + " failed the batch: running " + (one ? "it" : "each") + " alone" + rest);
      if (!others.empty()) batches.push_back(std::move(others));
    }
  } catch (...) {  // a rerun that cannot start (a backend, a file): the copies run so far are kept
    index.write("failed");
    throw;
  }
  outcome.failed = index.failed_copies();
  const std::vector<size_t>& failed = outcome.failed;
  index.write(outcome.interrupted ? "interrupted" : failed.empty() ? "ok" : "failed");
  if (outcome.interrupted)
    observer.note("interrupted: " + copy_list(failed) + " of " + std::to_string(cases.size()) +
                  " did not run to their end (" + stem + ".json)");
  else if (failed.size() == cases.size())
    observer.note("every copy failed (" + stem + ".json)");
  else if (!failed.empty())
    observer.note(copy_list(failed) + " of " + std::to_string(cases.size()) + " failed; the others ran to their end (" +
                  stem + ".json)");
  return outcome;
}

}  // namespace catenary
