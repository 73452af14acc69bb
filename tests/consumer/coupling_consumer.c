/* A C program of another project that drives an installed catenary through its coupling library
 * (catenary::coupling): a coupled case initialized and advanced one step; exit 0 when every call
 * succeeds and the lines pull the body down. */
#include <stdio.h>

#include "catenary/coupling.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: coupling_consumer CASE.json\n");
    return 2;
  }
  catenary_run* run = NULL;
  double motion[6] = {0.1, 0, 0, 0, 0, 0}, rates[6] = {0}, loads[6] = {0};
  int status = catenary_create(argv[1], "cpu", NULL, &run);
  if (status == CATENARY_OK) status = catenary_initialize(run, 1);
  if (status == CATENARY_OK) status = catenary_advance(run, 0.1, motion, rates);
  if (status == CATENARY_OK) status = catenary_loads(run, loads);
  if (status != CATENARY_OK) {
    fprintf(stderr, "coupling_consumer: %s\n", catenary_error());
    catenary_destroy(run);
    return status;
  }
  printf("coupling_consumer: '%s' at t = %g s: force %g %g %g N\n", catenary_coupled_body_name(run, 0),
         catenary_time(run), loads[0], loads[1], loads[2]);
  catenary_destroy(run);
  return loads[2] < 0.0 ? 0 : 1;
}
