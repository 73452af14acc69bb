/* The coupling API from a C program (catenary/coupling.h): its statuses and messages, the OC3 spar's
 * mooring loads at rest (symmetric: no horizontal force, no torque) and after a surge (the lines pull
 * the spar back), a saved state returned to and advanced again to the same bits, and the outputs it
 * writes. Run by ctest: coupling_api_test CASE_DIR SCRATCH_DIR; exit 0 when every check holds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catenary/coupling.h"

static int failures = 0;

#define CHECK(condition)                                                        \
  do {                                                                          \
    if (!(condition)) {                                                         \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

/* Advances `steps` coupling steps of 0.1 s from the run's time, the spar moved along x to `surge`
 * at the last (a straight path, at rest at the end). */
static int advance_surge(catenary_run* run, int steps, double surge) {
  double motion[6] = {0}, rates[6] = {0};
  const double start = catenary_time(run);
  for (int k = 1; k <= steps; ++k) {
    motion[0] = surge * k / steps;
    const int status = catenary_advance(run, start + 0.1 * k, motion, rates);
    if (status != CATENARY_OK) return status;
  }
  return CATENARY_OK;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: coupling_api_test CASE_DIR SCRATCH_DIR\n");
    return 2;
  }
  char path[4096], out[4096];
  catenary_run* run = NULL;

  /* Bad input: a missing file, a static case; each says why. */
  snprintf(path, sizeof path, "%s/no_such_case.json", argv[1]);
  CHECK(catenary_create(path, "cpu", NULL, &run) == CATENARY_BAD_INPUT);
  CHECK(run == NULL);
  CHECK(strstr(catenary_error(), "no_such_case.json") != NULL);
  snprintf(path, sizeof path, "%s/cantilever_static.json", argv[1]);
  CHECK(catenary_create(path, "cpu", NULL, &run) == CATENARY_BAD_INPUT);
  CHECK(strstr(catenary_error(), "/analysis/type") != NULL);
  snprintf(path, sizeof path, "%s/oc3_coupled_platform.json", argv[1]);
  CHECK(catenary_create(path, "no_such_backend", NULL, &run) == CATENARY_BAD_INPUT);
  CHECK(catenary_create(path, "cpu", argv[0], &run) == CATENARY_BAD_INPUT); /* a file, not a directory */
  CHECK(strstr(catenary_error(), "output directory") != NULL);

  snprintf(out, sizeof out, "%s/coupling_api_test.out", argv[2]);
  CHECK(catenary_create(path, "cpu", out, &run) == CATENARY_OK);
  if (!run) return 1;
  CHECK(catenary_coupled_body_count(run) == 1);
  CHECK(strcmp(catenary_coupled_body_name(run, 0), "spar") == 0);
  CHECK(catenary_coupled_body_name(run, 1) == NULL);
  double motion[6] = {0}, rates[6] = {0};
  CHECK(catenary_advance(run, 0.1, motion, rates) == CATENARY_BAD_INPUT); /* not initialized */
  CHECK(strstr(catenary_error(), "initialize") != NULL);

  /* At rest in the static equilibrium: three lines 120 degrees apart pull the spar straight down. */
  CHECK(catenary_initialize(run, 1) == CATENARY_OK);
  CHECK(catenary_time(run) == 0.0);
  double rest[6], loads[6];
  CHECK(catenary_loads(run, rest) == CATENARY_OK);
  printf("at rest: force %.6g %.6g %.6g N, torque %.6g %.6g %.6g N m\n", rest[0], rest[1], rest[2], rest[3], rest[4],
         rest[5]);
  CHECK(rest[2] < -1.0e6); /* about 1.7 MN: three lines' suspended weight in water, plus their pull */
  CHECK(fabs(rest[0]) < 1e-6 * fabs(rest[2]));
  CHECK(fabs(rest[1]) < 1e-6 * fabs(rest[2]));
  CHECK(fabs(rest[5]) < 1e-6 * fabs(rest[2]));
  CHECK(catenary_initialize(run, 1) == CATENARY_BAD_INPUT); /* once */

  /* Moved 2 m along x over 2 s: the line at -x straightens, the lines pull the spar back. */
  CHECK(advance_surge(run, 20, 2.0) == CATENARY_OK);
  CHECK(fabs(catenary_time(run) - 2.0) < 1e-12);
  CHECK(catenary_loads(run, loads) == CATENARY_OK);
  printf("after 2 m of surge: force %.6g %.6g %.6g N\n", loads[0], loads[1], loads[2]);
  CHECK(loads[0] < -1.0e4);
  CHECK(fabs(loads[1]) < 1e-3 * fabs(loads[0]));
  CHECK(catenary_advance(run, 2.0, motion, rates) == CATENARY_BAD_INPUT); /* not after the run's time */
  CHECK(strstr(catenary_error(), "not after") != NULL);

  /* Saved, advanced, returned to and advanced again along the same path: the same bits. */
  catenary_state* saved = NULL;
  CHECK(catenary_save_state(run, &saved) == CATENARY_OK);
  double first[6], second[6];
  CHECK(advance_surge(run, 5, 3.0) == CATENARY_OK);
  CHECK(catenary_loads(run, first) == CATENARY_OK);
  CHECK(catenary_restore_state(run, saved) == CATENARY_OK);
  CHECK(fabs(catenary_time(run) - 2.0) < 1e-12);
  CHECK(advance_surge(run, 5, 3.0) == CATENARY_OK);
  CHECK(catenary_loads(run, second) == CATENARY_OK);
  CHECK(memcmp(first, second, sizeof first) == 0);
  catenary_free_state(saved);
  catenary_destroy(run);

  /* The outputs: a frame a second (output.interval), not one each coupling step: t = 0, 1, 2 and,
   * after the return to t = 2, none more before 3; and a summary that says the run ended well. */
  snprintf(path, sizeof path, "%s/results.csv", out);
  FILE* results = fopen(path, "r");
  CHECK(results != NULL);
  if (results) {
    int lines = 0;
    for (int c; (c = fgetc(results)) != EOF;) lines += c == '\n';
    fclose(results);
    CHECK(lines == 4); /* the header and three frames */
  }
  snprintf(path, sizeof path, "%s/summary.json", out);
  FILE* summary = fopen(path, "r");
  CHECK(summary != NULL);
  if (summary) {
    char text[1 << 16];
    const size_t n = fread(text, 1, sizeof text - 1, summary);
    text[n] = '\0';
    fclose(summary);
    CHECK(strstr(text, "\"status\": \"ok\"") != NULL);
  }
  if (failures) fprintf(stderr, "coupling_api_test: %d checks failed\n", failures);
  return failures ? 1 : 0;
}
