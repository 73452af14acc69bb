/* catenary's C API for coupling: a program (a floating platform's solver, a co-simulation
 * master, a Fortran or Python tool) creates a run from a case file, initializes it, and then, step
 * by step, advances it to t + dt with the kinematics of the case's coupled bodies (rigid bodies
 * whose "motion" is "coupled") and reads back the forces and moments the cables put on them. The
 * state can be saved and restored (a co-simulation's step taken again). Every function returns a
 * status: CATENARY_OK, or the code `catenary run` would exit with, and catenary_error() says why.
 * Units are SI; vectors are in the ground frame. The C++ class behind it is
 * catenary::CoupledRun (catenary/run/coupled_run.hpp). */
#ifndef CATENARY_COUPLING_H
#define CATENARY_COUPLING_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's exported functions (it hides everything else). */
#define CATENARY_API __attribute__((visibility("default")))

enum catenary_status {
  CATENARY_OK = 0,
  CATENARY_BAD_INPUT = 2,         /* a case, argument or state that cannot be used, a backend that cannot run */
  CATENARY_SIMULATION_FAILED = 3, /* the analysis failed: the run stays at its last good state */
  CATENARY_OUTPUT_FAILED = 4      /* a result file could not be written */
};

typedef struct catenary_run catenary_run;     /* a coupled run */
typedef struct catenary_state catenary_state; /* a saved state of one */

/* Why the last call in this thread that did not return CATENARY_OK failed ("" if none did). */
CATENARY_API const char* catenary_error(void);

/* Creates a run of the case file `case_path` (a dynamic analysis) on `backend` ("cpu", "cuda" or
 * "auto"), writing its outputs to `output_directory` as `catenary run` does (NULL or "": none). */
CATENARY_API int catenary_create(const char* case_path, const char* backend, const char* output_directory, catenary_run** run);
/* The number of coupled bodies and the name of body k (valid while the run lives). */
CATENARY_API int catenary_coupled_body_count(const catenary_run* run);
CATENARY_API const char* catenary_coupled_body_name(const catenary_run* run, int k);
/* The state at t = 0: the static equilibrium (static_equilibrium != 0) or the case's initial
 * state made consistent. Once, before the first advance. */
CATENARY_API int catenary_initialize(catenary_run* run, int static_equilibrium);
/* Advances to t_next > the run's time: coupled body k at t_next is at motion[6k .. 6k + 5]
 * (x, y, z: its centre of mass's displacement from its case position, m; roll, pitch, yaw: its
 * rotation from its case orientation, rad, R = Rz(yaw) Ry(pitch) Rx(roll) about the ground axes),
 * moving at rates[6k .. 6k + 5]; between the run's time and t_next each coordinate follows the
 * cubic through both ends' values and rates. */
CATENARY_API int catenary_advance(catenary_run* run, double t_next, const double* motion, const double* rates);
/* The run's time, s. */
CATENARY_API double catenary_time(const catenary_run* run);
/* loads[6k .. 6k + 5]: the force (N) and the torque about the centre of mass (N m) with which the
 * cables attached to coupled body k pull it, at the run's time. */
CATENARY_API int catenary_loads(const catenary_run* run, double* loads);
/* Saves the whole state at the run's time into a new state, and returns the run to a state it
 * saved (its outputs are cut back to that time). */
CATENARY_API int catenary_save_state(const catenary_run* run, catenary_state** state);
CATENARY_API int catenary_restore_state(catenary_run* run, const catenary_state* state);
CATENARY_API void catenary_free_state(catenary_state* state);
/* Ends the run: its summary.json written where it writes outputs. NULL is ignored. */
CATENARY_API void catenary_destroy(catenary_run* run);

#ifdef __cplusplus
}
#endif

#endif
