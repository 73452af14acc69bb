// The C API of catenary/coupling.h over CoupledRun: each call catches what the library throws and
// turns it into the status `catenary run` would exit with, keeping the message for catenary_error.
#include "catenary/coupling.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/run/coupled_run.hpp"

struct catenary_run {
  std::unique_ptr<catenary::CoupledRun> run;
};

struct catenary_state {
  catenary::StateRecord record;
};

namespace {

thread_local std::string last_error;

// Runs `body`, returning CATENARY_OK, or the status of what it threw with its message kept.
template <class Body>
int guarded(const Body& body) {
  try {
    body();
    last_error.clear();
    return CATENARY_OK;
  } catch (const catenary::SimulationError& e) {
    last_error = e.what();
    return CATENARY_SIMULATION_FAILED;
  } catch (const catenary::OutputError& e) {
    last_error = e.what();
    return CATENARY_OUTPUT_FAILED;
  } catch (const catenary::InputError& e) {
    last_error = e.what();
  } catch (const catenary::ModelError& e) {
    last_error = e.what();
  } catch (const catenary::CheckpointError& e) {
    last_error = e.what();
  } catch (const catenary::BackendUnavailable& e) {
    last_error = e.what();
  } catch (const std::invalid_argument& e) {
    last_error = e.what();
  } catch (const std::logic_error& e) {
    last_error = e.what();
  } catch (const std::exception& e) {  // anything else ends a run as `catenary run` reports it
    last_error = e.what();
    return CATENARY_SIMULATION_FAILED;
  }
  return CATENARY_BAD_INPUT;
}

int missing(const char* what) {
  last_error = std::string(what) + " is NULL";
  return CATENARY_BAD_INPUT;
}

}  // namespace

extern "C" {

const char* catenary_error(void) { return last_error.c_str(); }

int catenary_create(const char* case_path, const char* backend, const char* output_directory, catenary_run** run) {
  if (!case_path) return missing("the case path");
  if (!run) return missing("the run's address");
  *run = nullptr;
  return guarded([&] {
    const catenary::BackendChoice choice = catenary::parse_backend_choice(backend ? backend : "cpu");
    auto made = std::make_unique<catenary_run>();
    made->run = std::make_unique<catenary::CoupledRun>(catenary::load_case(case_path), choice,
                                                       output_directory ? output_directory : "");
    *run = made.release();
  });
}

int catenary_coupled_body_count(const catenary_run* run) {
  return run ? static_cast<int>(run->run->coupled_bodies().size()) : 0;
}

const char* catenary_coupled_body_name(const catenary_run* run, int k) {
  if (!run || k < 0 || k >= catenary_coupled_body_count(run)) return nullptr;
  return run->run->coupled_bodies()[static_cast<size_t>(k)].c_str();
}

int catenary_initialize(catenary_run* run, int static_equilibrium) {
  if (!run) return missing("the run");
  return guarded([&] { run->run->initialize(static_equilibrium != 0); });
}

int catenary_advance(catenary_run* run, double t_next, const double* motion, const double* rates) {
  if (!run) return missing("the run");
  if (catenary_coupled_body_count(run) > 0 && (!motion || !rates)) return missing("the motion or its rates");
  return guarded([&] { run->run->advance(t_next, motion, rates); });
}

double catenary_time(const catenary_run* run) { return run ? run->run->time() : 0.0; }

int catenary_loads(const catenary_run* run, double* loads) {
  if (!run) return missing("the run");
  if (!loads && catenary_coupled_body_count(run) > 0) return missing("the loads' array");
  return guarded([&] {
    const std::vector<double> values = run->run->loads();
    std::copy(values.begin(), values.end(), loads);
  });
}

int catenary_save_state(const catenary_run* run, catenary_state** state) {
  if (!run) return missing("the run");
  if (!state) return missing("the state's address");
  *state = nullptr;
  return guarded([&] { *state = new catenary_state{run->run->save()}; });
}

int catenary_restore_state(catenary_run* run, const catenary_state* state) {
  if (!run) return missing("the run");
  if (!state) return missing("the state");
  return guarded([&] { run->run->restore(state->record); });
}

void catenary_free_state(catenary_state* state) { delete state; }

void catenary_destroy(catenary_run* run) { delete run; }

}  // extern "C"
