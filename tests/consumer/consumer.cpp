// A program linked against an installed catenary (find_package(catenary)): loads a case, runs its
// dynamic analysis for a tenth of a second on the CPU backend, and checks that the energy did not
// grow (HHT-alpha with alpha <= 0 dissipates; it never adds energy) and that the run moved.
#include <cmath>
#include <cstdio>

#include "catenary/model/case_loader.hpp"
#include "catenary/run/backend_factory.hpp"
#include "catenary/run/run_case.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer CASE.json\n");
    return 2;
  }
  catenary::Case c = catenary::load_case(argv[1]);
  c.analysis.dynamics.end_time = 0.1;
  catenary::SelectedBackend selected = catenary::make_backend(catenary::BackendChoice::Cpu, c.model, c.analysis);
  double first = NAN, last = NAN, largest = -INFINITY;
  int frames = 0;
  const catenary::FrameSink sink = [&](const catenary::Frame& f) {
    const double total = f.kinetic_energy + f.gravitational_energy + f.elastic_energy;
    if (frames++ == 0) first = total;
    last = total;
    largest = std::fmax(largest, f.kinetic_energy);
  };
  const catenary::AnalysisRun run = catenary::run_analysis(c.analysis, 0.0, c.model, *selected.backend, sink);
  if (run.failed()) {
    std::fprintf(stderr, "consumer: the run failed: %s\n", run.summary.message.c_str());
    return 1;
  }
  const double scale = std::fmax(largest, 1e-12);
  std::printf("consumer: %d frames, energy %g -> %g J, largest kinetic energy %g J\n", frames, first, last, largest);
  const bool ok = frames > 10 && largest > 0.0 && last <= first + 1e-6 * scale;
  return ok ? 0 : 1;
}
