// The device element pass alone (kernels/backend_functors.cuh's ElementPass, the CUDA backend's
// element stage) on an n-element falling cable, launched through Thrust's for_each (CUB's
// 256-thread blocks; ptxas gives the 3D pass 220 registers a thread with the Jacobian and 152
// without: one block, 8 warps, per SM) and with registers capped (memory_space.cuh's
// item_loop<256, B>: __launch_bounds__(256, B) makes ptxas fit B blocks per SM, 128 registers at
// B = 2, and spill the rest: 56 / 56 bytes a thread for the forces-only pass, 764 / 872 with the
// Jacobian, sm_90), to measure what bounds it; and the Jacobian pass with its matrix rows staged in
// shared memory and copied out coalesced (memory_space.cuh's for_each_staged), and the Jacobian
// block pass (jacobian_block_pass.cuh: a quadrature point per thread, then two blocks per thread).
// The backend launches the forces-only pass at B = 2, the damped Jacobian pass staged and the
// undamped one as the block pass: each the fastest of these launches as measured on an H100 or an H200
// (docs/performance.md, "Element passes"), which this program measures again on any device. The
// forces pass runs twice: alone, and with the mass term M w that the integrator's residuals add in
// the same pass (16 more doubles an element read). The passes read one element record
// (properties, reference quadrature, scalar mass) an element, field-major (core/record_array.hpp),
// and write the local forces and row sums entry-major (LocalEntryLayout). The backend reads this
// cable's records shared (model/element_records.hpp: the cable's elements hold a few records, read
// through a record number an element); the forces pass at two blocks an SM and the block pass also
// run with the records shared, and with records and outputs element-major, to measure what each
// layout saves. Last, the residual's pass that sums each node's rows itself (`chain Mw`,
// chain_forces_pass.cuh: the backend's for modified Newton's evaluations), capped at 2 blocks an
// SM and uncapped, against the forces+Mw rows summed on the host. This prints, per
// launch, the median time of a pass, the bandwidth it reaches (element_pass_bytes, as the
// benchmark's "el GB/s") and its fraction of the device's peak, and checks that its forces,
// matrices and energies equal the Thrust launch's bit for bit (the same code; anything else is a
// launch bug; the block pass, whose compiled arithmetic may contract differently, also prints
// how far it differs).
//
//   catenary_element_pass_benchmark [n ...]     (default 100000 1000000)
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../kernels/backend_functors.cuh"
#include "../kernels/chain_forces_pass.cuh"
#include "../kernels/jacobian_block_pass.cuh"
#include "../kernels/memory_space.cuh"
#include "catenary/kernels/cuda_backend.hpp"
#include "catenary/model/element_records.hpp"
#include "catenary/model/model_operators.hpp"
#include "catenary/model/reference_models.hpp"

using namespace catenary;
using catenary::cuda::ElementPass;
using catenary::cuda::item_loop;
using catenary::cuda::raw;

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

// How a pass reads the element records and writes its local forces and row sums: one record an
// element, field-major and entry-major; element-major (Model's own layout); or the records shared
// and field-major (the backend's layout for this cable).
enum class Layout { FieldMajor, ByElement, Shared };

// The cable's element arrays on the device and the pass's outputs, as the backend holds them.
struct DeviceCable {
  int elements;
  SharedElementRecords shared;
  // The element records field-major (the backend's layout), element-major (Model's), and shared.
  thrust::device_vector<double> properties, quadrature, scalar_mass;
  thrust::device_vector<double> properties_by_element, quadrature_by_element, scalar_mass_by_element;
  thrust::device_vector<double> shared_properties, shared_quadrature, shared_scalar_mass;
  thrust::device_vector<int> record_of;
  thrust::device_vector<double> q, v, w, forces, matrices, row_sums, energy;
  thrust::device_vector<int> node_a, node_b;

  explicit DeviceCable(const Model& m)
      : elements(m.elements.size()),
        shared(shared_element_records(m.elements)),
        properties(device(to_field_major(m.elements.properties))),
        quadrature(device(to_field_major(m.elements.quadrature))),
        scalar_mass(device(to_field_major(m.elements.scalar_mass.data(), elements, 16))),
        properties_by_element(device(element_major_values(m.elements.properties))),
        quadrature_by_element(device(element_major_values(m.elements.quadrature))),
        scalar_mass_by_element(device(m.elements.scalar_mass)),
        shared_properties(device(to_field_major(shared.properties))),
        shared_quadrature(device(to_field_major(shared.quadrature))),
        shared_scalar_mass(device(to_field_major(shared.scalar_mass.data(), shared.count(), 16))),
        record_of(shared.record_of.begin(), shared.record_of.end()),
        forces(static_cast<size_t>(elements) * 12),
        matrices(static_cast<size_t>(elements) * 144),
        row_sums(static_cast<size_t>(elements) * 12),
        energy(elements),
        node_a(m.elements.node_a.begin(), m.elements.node_a.end()),
        node_b(m.elements.node_b.begin(), m.elements.node_b.end()) {
    // Coordinates 1 mm around the reference, so that every term of the element math is non-zero.
    Eigen::VectorXd q0 = initial_coordinates(m);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(-1e-3, 1e-3);
    for (int i = 0; i < q0.size(); ++i) q0[i] += U(rng);
    q.assign(q0.data(), q0.data() + q0.size());
    v.assign(q0.size(), 0.0);
    std::vector<double> accelerations(q0.size());
    for (double& a : accelerations) a = U(rng) * 1e4;  // about 10 m/s^2
    w.assign(accelerations.begin(), accelerations.end());
  }

  static thrust::device_vector<double> device(const std::vector<double>& host) {
    return thrust::device_vector<double>(host.begin(), host.end());
  }

  // mass_term: the forces with M w added (ForceTerms' vector), as the integrator's residuals ask.
  template <bool Jacobian>
  ElementPass<3, false, Jacobian> pass(bool mass_term = false, Layout layout = Layout::FieldMajor) {
    const NewtonMatrixCoefficients c{1.0, 2.5e-7, 5e-4, 1.0};
    const bool by_element = layout == Layout::ByElement;
    const auto records = [&](thrust::device_vector<double>& field_major_values,
                             thrust::device_vector<double>& element_major_values,
                             thrust::device_vector<double>& shared_values, int fields) {
      if (layout == Layout::Shared) return field_major(raw<double>(shared_values), shared.count(), raw<int>(record_of));
      return by_element ? element_major(raw<double>(element_major_values), fields)
                        : field_major(raw<double>(field_major_values), elements);
    };
    return {records(properties, properties_by_element, shared_properties, sizeof(ElementProperties) / sizeof(double)),
            records(quadrature, quadrature_by_element, shared_quadrature, sizeof(ReferenceQuadrature) / sizeof(double)),
            records(scalar_mass, scalar_mass_by_element, shared_scalar_mass, 16),
            raw<int>(node_a),
            raw<int>(node_b),
            raw<double>(q),
            raw<double>(v),
            mass_term ? raw<double>(w) : nullptr,  // M (q - w), as the integrator's M (q1 - qhat)
            1.0,
            mass_term ? 1.0 : 0.0,
            c,
            raw<double>(forces),
            raw<double>(matrices),
            raw<double>(row_sums),
            raw<double>(energy),
            LocalEntryLayout<12>{by_element ? 0 : elements}};
  }
  // Copied through host_vector: one transfer each (a std::vector built from device iterators
  // reads element by element, a transfer per double: minutes at 100,000 elements).
  // by_element: the local forces and row sums were written element-major; they come back in the
  // backend's entry-major order, to compare. with_matrices: false for a forces-only pass, whose
  // matrices are untouched (at 1,000,000 elements they are 1.15 GB to copy and compare a row).
  std::vector<double> outputs(bool with_matrices, bool by_element = false) const {
    std::vector<double> out;
    for (const auto* part : {&forces, &matrices, &row_sums, &energy}) {
      if (part == &matrices && !with_matrices) continue;
      thrust::host_vector<double> host = *part;
      if (by_element && part != &matrices && part != &energy)
        host = to_field_major(host.data(), elements, 12);  // records of 12, field by field
      out.insert(out.end(), host.begin(), host.end());
    }
    return out;
  }
  void clear() {
    thrust::fill(forces.begin(), forces.end(), 0.0);
    thrust::fill(matrices.begin(), matrices.end(), 0.0);
    thrust::fill(row_sums.begin(), row_sums.end(), 0.0);
    thrust::fill(energy.begin(), energy.end(), 0.0);
  }
};

// Median milliseconds of 7 timed launches after one untimed.
template <class Launch>
double median_ms(Launch launch) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  launch();
  std::vector<float> times;
  for (int round = 0; round < 7; ++round) {
    check(cudaEventRecord(start), "cudaEventRecord");
    launch();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  check(cudaGetLastError(), "launch");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void print_row(int n, const char* pass, const std::string& launch, double ms, double bytes, double peak, bool same) {
  const double gbs = bytes / (ms * 1e-3) / 1e9;
  std::printf("%9d  %-9s  %-24s %9.3f %9.1f %7.1f  %s\n", n, pass, launch.c_str(), ms, gbs,
              peak > 0 ? 100.0 * gbs * 1e9 / peak : 0.0, same ? "same" : "DIFFERENT");
}

template <bool Jacobian>
void run_pass(DeviceCable& cable, int n, int dofs, double peak, bool mass_term = false) {
  using Pass = ElementPass<3, false, Jacobian>;
  const int threads = Pass::kThreadsPerElement * cable.elements;
  const Pass pass = cable.template pass<Jacobian>(mass_term);
  const double bytes = element_pass_bytes<3>(cable.elements, dofs, Jacobian, mass_term, cable.elements);
  // The bytes of the passes that read the shared records.
  const double shared_bytes = element_pass_bytes<3>(cable.elements, dofs, Jacobian, mass_term, cable.shared.count());
  const char* name = Jacobian ? "jacobian" : mass_term ? "forces+Mw" : "forces";
  const thrust::counting_iterator<int> first(0);
  const auto thrust_launch = [&] { thrust::for_each(thrust::cuda::par_nosync, first, first + threads, pass); };
  cable.clear();
  const double backend_ms = median_ms(thrust_launch);
  const std::vector<double> reference = cable.outputs(Jacobian);
  print_row(n, name, "thrust for_each", backend_ms, bytes, peak, true);
  const auto capped = [&](auto kernel, int min_blocks) {
    const int blocks = (threads + 255) / 256;
    cable.clear();
    const double ms = median_ms([&] { kernel<<<blocks, 256>>>(pass, threads); });
    print_row(n, name, "256 x " + std::to_string(min_blocks) + " blocks/SM bound", ms, bytes, peak,
              cable.outputs(Jacobian) == reference);
  };
  capped(item_loop<256, 1, Pass>, 1);
  capped(item_loop<256, 2, Pass>, 2);
  capped(item_loop<256, 3, Pass>, 3);
  capped(item_loop<256, 4, Pass>, 4);
  if constexpr (!Jacobian) {  // the backend's forces launch with the records element-major, and shared
    const Pass by_element = cable.template pass<Jacobian>(mass_term, Layout::ByElement);
    cable.clear();
    const double ms = median_ms([&] { item_loop<256, 2, Pass><<<(threads + 255) / 256, 256>>>(by_element, threads); });
    print_row(n, name, "2 blocks/SM, elem.-major", ms, bytes, peak, cable.outputs(Jacobian, true) == reference);
    const Pass shared = cable.template pass<Jacobian>(mass_term, Layout::Shared);
    cable.clear();
    const double shared_ms = median_ms([&] { item_loop<256, 2, Pass><<<(threads + 255) / 256, 256>>>(shared, threads); });
    print_row(n, name, "2 blocks/SM, shared rec.", shared_ms, shared_bytes, peak, cable.outputs(Jacobian) == reference);
  }
  if constexpr (Jacobian) {  // the backend's launch: matrix rows staged in shared memory
    cable.clear();
    const double ms = median_ms([&] {
      catenary::cuda::for_each_staged<catenary::cuda::DeviceSpace, Pass::kRowValues>(threads, pass,
                                                                                     raw<double>(cable.matrices));
    });
    print_row(n, name, "rows staged (shared)", ms, bytes, peak, cable.outputs(Jacobian) == reference);
    {  // the backend's launch for undamped models: points shared, two blocks a thread
      const catenary::cuda::JacobianBlockPass<3> blocks{pass};
      cable.clear();
      const double block_ms = median_ms(
          [&] { catenary::cuda::launch_jacobian_blocks<catenary::cuda::DeviceSpace, 3>(cable.elements, blocks); });
      const std::vector<double> out = cable.outputs(Jacobian);
      // Not bit for bit: the row pass keeps a point's derivatives in registers, where the compiler
      // may fuse them into the sums' multiply-adds; here they pass through shared memory first.
      double largest = 0.0, difference = 0.0;
      for (size_t i = 0; i < out.size(); ++i) {
        largest = std::max(largest, std::abs(reference[i]));
        difference = std::max(difference, std::abs(out[i] - reference[i]));
      }
      print_row(n, name, "blocks (points shared)", block_ms, bytes, peak, difference <= 1e-13 * largest);
      if (out != reference)
        std::printf("# the block pass's outputs differ by up to %.3g (largest output %.3g)\n", difference, largest);
      // Its points phase by element instead: an element's eight points in one warp.
      cable.clear();
      const double by_element_ms = median_ms([&] {
        catenary::cuda::launch_jacobian_blocks<catenary::cuda::DeviceSpace, 3, true>(cable.elements, blocks);
      });
      print_row(n, name, "blocks, points by elem.", by_element_ms, bytes, peak, cable.outputs(Jacobian) == out);
      // The block pass with the element records and local forces element-major.
      const catenary::cuda::JacobianBlockPass<3> records_by_element{cable.template pass<Jacobian>(false, Layout::ByElement)};
      cable.clear();
      const double records_ms = median_ms([&] {
        catenary::cuda::launch_jacobian_blocks<catenary::cuda::DeviceSpace, 3>(cable.elements, records_by_element);
      });
      print_row(n, name, "blocks, elem.-major", records_ms, bytes, peak, cable.outputs(Jacobian, true) == out);
      // And with the records shared.
      const catenary::cuda::JacobianBlockPass<3> shared{cable.template pass<Jacobian>(false, Layout::Shared)};
      cable.clear();
      const double shared_ms = median_ms(
          [&] { catenary::cuda::launch_jacobian_blocks<catenary::cuda::DeviceSpace, 3>(cable.elements, shared); });
      print_row(n, name, "blocks, shared rec.", shared_ms, shared_bytes, peak, cable.outputs(Jacobian) == out);
    }
  }
}

// The residual's forces pass that sums each node's rows itself (chain_forces_pass.cuh, the
// backend's for modified Newton's evaluations) against the plain
// forces+Mw pass, whose rows the backend then gathers: r = from - (the rows summed per node), with
// the records shared, capped at 2 blocks an SM (the backend's launch) and uncapped. `same`: r
// equals the one summed on the host from the plain pass's rows (`reference`), bit for bit.
void run_chain_forces(DeviceCable& cable, int n, int dofs, double peak, const std::vector<double>& reference) {
  using Chain = catenary::cuda::ChainForcesPass<3, false>;
  const int blocks = Chain::blocks(cable.elements);
  std::vector<double> from_host(dofs);
  for (int d = 0; d < dofs; ++d) from_host[d] = std::sin(0.1 * d);
  // The plain pass's rows summed per node, in the backend's layout (forces entry-major first).
  std::vector<double> expected(from_host);
  const auto row = [&](int e, int i) { return reference[static_cast<size_t>(i) * cable.elements + e]; };
  for (int node = 0; node <= cable.elements; ++node)
    for (int i = 0; i < 6; ++i) {
      double sum = 0.0;
      if (node < cable.elements) sum += row(node, i);
      if (node > 0) sum += row(node - 1, 6 + i);
      expected[6 * node + i] -= sum;
    }
  thrust::device_vector<double> from(from_host.begin(), from_host.end()), r(dofs),
      carry_first(static_cast<size_t>(blocks) * 6), carry_last(static_cast<size_t>(blocks) * 6);
  const Chain chain{cable.template pass<false>(true, Layout::Shared), cable.elements, raw<double>(from), raw<double>(r),
                    raw<double>(carry_first), raw<double>(carry_last)};
  const catenary::cuda::ChainForceSeams seams{raw<int>(cable.node_a), raw<int>(cable.node_b), 6, Chain::kThreads,
                                              raw<double>(from), raw<double>(r), raw<double>(carry_first),
                                              raw<double>(carry_last)};
  const double bytes = element_pass_bytes<3>(cable.elements, dofs, false, true, cable.shared.count());
  const auto run = [&](auto kernel, const char* launch) {
    thrust::fill(r.begin(), r.end(), 0.0);
    const double ms = median_ms([&] {
      kernel<<<blocks, Chain::kThreads>>>(chain);
      const thrust::counting_iterator<int> first(0);
      thrust::for_each(thrust::cuda::par_nosync, first + 1, first + blocks, seams);
    });
    const thrust::host_vector<double> out = r;
    const bool same = std::equal(out.begin(), out.end(), expected.begin());
    print_row(n, "chain Mw", launch, ms, bytes, peak, same);
    if (same) return;
    // The element math inlined into another kernel may contract differently (as the block pass's).
    double largest = 0.0, difference = 0.0;
    for (int d = 0; d < dofs; ++d) {
      largest = std::max(largest, std::abs(expected[d]));
      difference = std::max(difference, std::abs(out[d] - expected[d]));
    }
    std::printf("# %s: r differs from the host's sums by up to %.3g (largest %.3g)\n", launch, difference, largest);
  };
  run(catenary::cuda::shared_block_loop<Chain::kThreads, Chain::kSharedValues, 2, Chain>, "summed, 2 blocks/SM");
  run(catenary::cuda::shared_block_loop<Chain::kThreads, Chain::kSharedValues, 0, Chain>, "summed, uncapped");
}

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (!catenary::cuda::device_available(why)) {
    std::fprintf(stderr, "no usable CUDA device: %s\n", why.c_str());
    return 2;
  }
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {100000, 1000000};
  const double peak = catenary::cuda::peak_memory_bandwidth();
  std::printf("# device %s, peak memory bandwidth %.0f GB/s; the 3D cable's undamped element pass\n",
              catenary::cuda::device_name().c_str(), peak / 1e9);
  std::printf(
      "# ms: median of 7 launches; GB/s: element_pass_bytes / time; same: outputs equal the Thrust "
      "launch's bit for bit (the block pass: to 1e-13 of the largest)\n");
  std::printf("%9s  %-9s  %-24s %9s %9s %7s  %s\n", "n", "pass", "launch", "ms", "GB/s", "%peak", "outputs");
  for (const int n : sizes) {
    const Model m = falling_cable_pendulum(n);
    DeviceCable cable(m);
    std::printf("# n = %d: %d shared element record(s)\n", n, cable.shared.count());
    run_pass<false>(cable, n, m.dof_count(), peak);
    run_pass<false>(cable, n, m.dof_count(), peak, true);  // the residuals' pass: the forces with M w
    {  // the plain forces+Mw pass's rows, for the pass that sums them itself
      cable.clear();
      const auto plain = cable.template pass<false>(true);
      const thrust::counting_iterator<int> first(0);
      thrust::for_each(first, first + cable.elements, plain);
      run_chain_forces(cable, n, m.dof_count(), peak, cable.outputs(false));
    }
    run_pass<true>(cable, n, m.dof_count(), peak);
  }
  return 0;
}
