// The size and writing time of one VTU frame in each encoding (docs/performance.md, "Output
// frames"): a slack cable of n elements hanging between two points, its initial shape (an arc)
// with nonzero velocities, written `repeats` times per encoding into DIR; the median time.
//
//   catenary_vtu_frame_benchmark [--elements N] [--repeats R] [--samples S] [--dir DIR]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "catenary/io/vtu_writer.hpp"
#include "catenary/model/builders.hpp"
#include "catenary/model/model_operators.hpp"

using namespace catenary;

int main(int argc, char** argv) {
  int elements = 10000, repeats = 7, samples = 4;
  std::string dir = std::filesystem::temp_directory_path().string();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--elements") elements = std::atoi(argv[i + 1]);
    else if (option == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (option == "--samples") samples = std::atoi(argv[i + 1]);
    else if (option == "--dir") dir = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  Model m;
  m.dimension = 3;
  add_straight_line(m, "cable", {0, 0, 0}, {100, 0, 0}, elements, LineProperties{1e6, 10.0, 0.5, 0.0}, 110.0,
                    {0, 0, -1});
  finalize_model(m);
  const Eigen::VectorXd q = initial_coordinates(m);
  Eigen::VectorXd v(m.dof_count());
  for (int k = 0; k < v.size(); ++k) v[k] = std::sin(0.37 * k);
  std::printf("encoding,elements,points,bytes,median_ms\n");
  for (const auto& [name, encoding] : {std::pair{"ascii", VtuEncoding::ascii}, std::pair{"binary", VtuEncoding::binary},
                                       std::pair{"compressed", VtuEncoding::compressed}}) {
    const std::string path = dir + "/vtu_frame_benchmark_" + name + ".vtu";
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      write_vtu(path, m, q, v, samples, encoding);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%s,%d,%d,%ju,%.2f\n", name, elements, elements * samples + 1,
                static_cast<std::uintmax_t>(std::filesystem::file_size(path)), ms[ms.size() / 2]);
    std::filesystem::remove(path);
  }
  return 0;
}
