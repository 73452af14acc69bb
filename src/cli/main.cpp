// The catenary command: run, check, compare, gather (the subcommands are in run.cpp, compare.cpp
// and sweep_run.cpp; a sweep run over the ranks of an MPI job in sweep_over_ranks.cpp).
// Exit codes: 0 success, 1 compare found differences, 2 bad input, an unavailable backend or an
// output directory another run holds, 3 simulation failed, 4 a result file could not be written
// (a full disk), 130 / 143 run or compare stopped by SIGINT / SIGTERM (128 + the signal).
#include <CLI/CLI.hpp>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/core/state_record.hpp"
#include "catenary/core/thread_budget.hpp"
#include "catenary/run/backend_factory.hpp"
#include "commands.hpp"
#ifdef CATENARY_WITH_MPI
#include "sweep_over_ranks.hpp"
#endif

namespace {

using namespace catenary::cli;

// What SIGINT and SIGTERM ask for: the run stops between two steps and writes its outputs
// (core/interruption.hpp).
catenary::Interruption interruption;

void request_stop(int signal) { interruption.request(signal); }

// Only the first signal is caught (SA_RESETHAND): a second one ends the process at once.
void stop_on_signals() {
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

// Whether `name` is one of app's subcommands.
bool is_command(CLI::App& app, const std::string& name) {
  return !app.get_subcommands([&](CLI::App* sub) { return sub->get_name() == name; }).empty();
}

// CLI11 validator of --out: an empty name is refused as the case file's output.directory is.
std::string check_directory_name(const std::string& name) { return name.empty() ? "must not be empty" : ""; }

// CLI11 validator: the factory's own parser decides which names exist, so the two never disagree.
std::string check_backend_name(const std::string& name) {
  try {
    catenary::parse_backend_choice(name);
    return {};
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

// CLI11's own range check prints the largest double in full; this says what is wanted.
std::string check_tolerance(const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(x >= 0.0)) return "expected a number >= 0, got '" + text + "'";
  return {};
}

// CLI11 validator of --copies / --part: the sweep's own parser, which the run uses again.
template <catenary::CopySelection (*parse)(const std::string&)>
std::string check_selection(const std::string& text) {
  try {
    parse(text);
    return {};
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

struct Options {
  std::string case_path, out_dir, resume_dir, backend = "cpu", copies, part, directory;
  bool cuda_on_host = false;  // compare: the CUDA side by the CUDA backend's code on the host
  int threads = 0;            // --threads (0: what the environment grants)
  catenary::ComparisonTolerance tolerance;
  catenary::CopySelection selection() const {
    if (!copies.empty()) return catenary::parse_copy_range(copies);
    if (!part.empty()) return catenary::parse_copy_part(part);
    return {};
  }
};

void add_case_argument(CLI::App* command, Options& o) {
  command->add_option("case", o.case_path, "case file (JSON)")->required();
}

// --threads, on every command.
void add_threads_option(CLI::App* command, Options& o) {
  command
      ->add_option("--threads", o.threads,
                   "OpenMP threads (default: what the environment grants: OMP_NUM_THREADS, else the smallest of "
                   "SLURM_CPUS_PER_TASK, the CPU affinity and the cgroup's CPU quota; one for a small model)")
      ->check(CLI::PositiveNumber.description(""), "N");
}

// --copies / --part: some copies of a sweep (a sweep split over the jobs of an array).
void add_copy_selection(CLI::App* command, Options& o) {
  auto* copies = command->add_option("--copies", o.copies,
                                     "of a sweep, only copies FIRST-LAST (or one copy), numbered from 0 as copy_NNNN")
                     ->check(check_selection<catenary::parse_copy_range>, "FIRST-LAST");
  command->add_option("--part", o.part,
                      "of a sweep, only part K of N nearly equal parts of its copies (K from 0: an array job's task)")
      ->check(check_selection<catenary::parse_copy_part>, "K/N")
      ->excludes(copies);
}

CLI::App* add_run(CLI::App& app, Options& o) {
  auto* run = app.add_subcommand("run", "run the analysis of a case and write its results");
  add_case_argument(run, o);
  auto* out = run->add_option("--out", o.out_dir,
                              "output directory (default: the case's output.directory, else results/NAME)")
                  ->check(check_directory_name, "DIR");
  run->add_option("--resume", o.resume_dir,
                  "continue the run whose outputs are in DIR from its last checkpoint, writing on them (the case, and "
                  "a sweep's --copies or --part, must be those it ran; the checkpoint settings may change)")
      ->check(check_directory_name, "DIR")
      ->excludes(out);
  run->add_option("--backend", o.backend,
                  "cpu (default, the validated path), cuda, or auto: the GPU when one is usable, else the CPU "
                  "(cuda-host, for tests: the CUDA backend's code on the host)")
      ->check(check_backend_name, "cpu|cuda|auto");
  add_copy_selection(run, o);
  add_threads_option(run, o);
  return run;
}

CLI::App* add_compare(CLI::App& app, Options& o) {
  auto* compare = app.add_subcommand(
      "compare", "run a case on the CPU and the CUDA backend and compare their results.csv column by column");
  add_case_argument(compare, o);
  compare->add_option("--out", o.out_dir, "output directory: DIR/cpu and DIR/cuda (default: results/NAME-compare)")
      ->check(check_directory_name, "DIR");
  compare->add_option("--rtol", o.tolerance.rtol, "relative tolerance: max|cuda - cpu| / max|cpu|")
      ->capture_default_str()
      ->check(check_tolerance, "NONNEGATIVE");
  compare->add_option("--atol", o.tolerance.atol, "absolute tolerance: max|cuda - cpu|")
      ->capture_default_str()
      ->check(check_tolerance, "NONNEGATIVE");
  compare->add_flag("--cuda-on-host", o.cuda_on_host,
                    "for tests: the CUDA side runs the CUDA backend's code on the host (no GPU needed; slow)");
  add_copy_selection(compare, o);
  add_threads_option(compare, o);
  return compare;
}

// --threads and the environment's grant, whose count the threads take until a command knows its
// model's size (set_run_threads).
ThreadRequest start_threads(const Options& o) {
  const ThreadRequest threads{o.threads, catenary::read_thread_environment()};
  catenary::use_threads(
      catenary::choose_threads(threads.requested, threads.environment, LONG_MAX, [] { return -1.0; }).threads);
  return threads;
}

#ifdef CATENARY_WITH_MPI
// On more than one rank of an MPI job `run` splits a sweep over the ranks; the other commands are refused.
int dispatch_over_ranks(const MpiRanks& ranks, const CLI::App& app, const CLI::App* run, const Options& o) {
  if (!app.got_subcommand(run)) return refuse_command_over_ranks(ranks, app.get_subcommands().front()->get_name());
  const ThreadRequest threads = start_threads(o);
  stop_on_signals();
  return run_sweep_over_ranks(ranks, o.case_path, o.out_dir, o.resume_dir, o.backend, o.selection(), threads,
                              interruption);
}
#endif

int dispatch(const CLI::App& app, const CLI::App* run, const CLI::App* compare, const CLI::App* gather,
             const Options& o) {
  const ThreadRequest threads = start_threads(o);
  if (app.got_subcommand(run)) {
    stop_on_signals();
    return run_command(o.case_path, o.out_dir, o.resume_dir, o.backend, o.selection(), threads, interruption);
  }
  if (app.got_subcommand(compare)) {
    stop_on_signals();
    return compare_command(o.case_path, o.out_dir, o.tolerance, o.selection(),
                           o.cuda_on_host ? catenary::BackendChoice::CudaOnHost : catenary::BackendChoice::Cuda,
                           threads, interruption);
  }
  if (app.got_subcommand(gather)) return gather_command(o.directory);
  return check_command(o.case_path, threads);
}

}  // namespace

int catenary::cli::report_exception(const std::string& who) {
  const auto say = [&](const std::exception& e, int code) {
    std::fprintf(stderr, "catenary: %serror: %s\n", who.c_str(), e.what());
    return code;
  };
  try {
    throw;
  } catch (const catenary::InputError& e) {
    return say(e, kExitBadInput);
  } catch (const catenary::CheckpointError& e) {  // a checkpoint that does not hold what the run needs
    return say(e, kExitBadInput);
  } catch (const catenary::BackendUnavailable& e) {  // asked for, cannot be had: like bad input
    return say(e, kExitBadInput);
  } catch (const catenary::OutputError& e) {
    return say(e, kExitOutputFailed);
  } catch (const std::exception& e) {
    return say(e, kExitSimulationFailed);
  }
}

int main(int argc, char** argv) {
#ifdef CATENARY_WITH_MPI
  const MpiRanks ranks(argc, argv);  // MPI_Finalize as main returns
#endif
  CLI::App app{"catenary: ANCF cables and beams, statics and implicit HHT dynamics"};
  app.require_subcommand(1);
  Options options;
  CLI::App* run = add_run(app, options);
  CLI::App* compare = add_compare(app, options);
  auto* check = app.add_subcommand("check", "validate a case file without running it");
  add_case_argument(check, options);
  add_threads_option(check, options);
  auto* gather = app.add_subcommand(
      "gather", "join the indexes of a sweep's parts (run --part K/N into one directory) into sweep.json and sweep.csv");
  gather->add_option("directory", options.directory, "the parts' output directory")->required();
  add_threads_option(gather, options);
  // CLI11 says only that a subcommand is required: name the word that is none.
  if (argc > 1 && argv[1][0] != '-' && !is_command(app, argv[1])) {
    std::fprintf(stderr, "catenary: error: unknown command '%s' (commands: run, compare, check, gather; see --help)\n",
                 argv[1]);
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  try {
#ifdef CATENARY_WITH_MPI
    if (ranks.ranks() > 1) return dispatch_over_ranks(ranks, app, run, options);
#endif
    return dispatch(app, run, compare, gather, options);
  } catch (const std::exception&) {
    return report_exception();
  }
}
