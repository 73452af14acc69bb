/* A floating platform integrated by a program of its own and moored by catenary lines through the
 * coupling API (catenary/coupling.h): the pattern of a platform solver (OpenFAST's HydroDyn and
 * ElastoDyn, a ship simulator) coupling a mooring code. The spar is a rigid body of six degrees of
 * freedom with linear hydrostatics, added mass and damping (illustrative values after the OC3-Hywind
 * definition, Jonkman, NREL/TP-500-47535), pushed by a steady current force along x and a regular
 * wave force; every coupling step dt the program
 *   1. takes the lines' loads on the spar at t (catenary_loads),
 *   2. steps its own equations to t + dt (semi-implicit Euler, loads held over the step),
 *   3. advances catenary to t + dt with the spar's new position and velocity (catenary_advance).
 * The lines' loads at the static equilibrium are balanced by the spar's excess buoyancy: only their
 * change moves it.
 *
 *   catenary_coupled_platform CASE.json [END_TIME [CURRENT_FORCE [WAVE_FORCE [OUT_DIR]]]]
 *
 * CASE.json has one coupled body (cases/oc3_coupled_platform.json). Prints the spar's motion and
 * the lines' loads every 5 s, and exits with catenary's status where a call fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "catenary/coupling.h"

enum { kDofs = 6 };

/* Mass with added mass (kg, kg m^2), linear damping, hydrostatic and yaw restoring: x, y, z,
 * roll, pitch, yaw. */
static const double kMass[kDofs] = {7.466e6 + 7.9e6, 7.466e6 + 7.9e6, 7.466e6 + 2.3e5,
                                    4.229e9 + 4.5e9, 4.229e9 + 4.5e9, 1.642e8};
static const double kDamping[kDofs] = {1.0e5, 1.0e5, 1.3e5, 5.0e7, 5.0e7, 1.3e7};
static const double kStiffness[kDofs] = {0.0, 0.0, 3.32941e5, 1.4e9, 1.4e9, 9.834e7};

static int fail(const char* call, int status) {
  fprintf(stderr, "coupled_platform: %s: %s\n", call, catenary_error());
  return status;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CASE.json [END_TIME [CURRENT_FORCE [WAVE_FORCE [OUT_DIR]]]]\n", argv[0]);
    return 2;
  }
  const double end_time = argc > 2 ? atof(argv[2]) : 60.0;
  const double current_force = argc > 3 ? atof(argv[3]) : 2.0e5;
  const double wave_force = argc > 4 ? atof(argv[4]) : 1.0e6;
  const char* out = argc > 5 ? argv[5] : NULL;
  const double dt = 0.1, wave_period = 10.0, wave_lever = 40.0; /* the wave force acts 40 m below the centre of mass */

  catenary_run* run = NULL;
  int status = catenary_create(argv[1], "cpu", out, &run);
  if (status != CATENARY_OK) return fail("create", status);
  if (catenary_coupled_body_count(run) != 1) {
    fprintf(stderr, "coupled_platform: %s has %d coupled bodies, not one\n", argv[1], catenary_coupled_body_count(run));
    catenary_destroy(run);
    return 2;
  }
  status = catenary_initialize(run, 1);
  if (status != CATENARY_OK) return fail("initialize", status);

  double x[kDofs] = {0}, v[kDofs] = {0}, loads[kDofs], initial[kDofs];
  catenary_loads(run, initial);
  printf("%8s %9s %9s %9s %12s %12s\n", "t (s)", "surge (m)", "heave (m)", "pitch (deg)", "lines Fx (N)",
         "lines Fz (N)");
  for (long step = 0; catenary_time(run) < end_time - 1e-9; ++step) {
    const double t = catenary_time(run);
    catenary_loads(run, loads);
    if (step % 50 == 0)
      printf("%8.1f %9.4f %9.4f %9.4f %12.5g %12.5g\n", t, x[0], x[2], x[4] * 180.0 / M_PI, loads[0], loads[2]);
    const double wave = wave_force * sin(2.0 * M_PI * t / wave_period);
    double force[kDofs];
    for (int k = 0; k < kDofs; ++k) force[k] = loads[k] - initial[k] - kDamping[k] * v[k] - kStiffness[k] * x[k];
    force[0] += current_force + wave;
    force[4] += -wave_lever * wave; /* below the centre of mass, a push along +x pitches the spar about -y */
    for (int k = 0; k < kDofs; ++k) {
      v[k] += dt * force[k] / kMass[k];
      x[k] += dt * v[k];
    }
    status = catenary_advance(run, t + dt, x, v);
    if (status != CATENARY_OK) return fail("advance", status);
  }
  catenary_loads(run, loads);
  printf("%8.1f %9.4f %9.4f %9.4f %12.5g %12.5g\n", catenary_time(run), x[0], x[2], x[4] * 180.0 / M_PI, loads[0],
         loads[2]);
  catenary_destroy(run);
  return 0;
}
