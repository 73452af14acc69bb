#include "catenary/io/mode_files.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "catenary/io/vtu_writer.hpp"
#include "catenary/model/model_operators.hpp"
#include "output_file.hpp"
#include "text_output.hpp"
#include "vtu_format.hpp"

namespace catenary {

namespace {

constexpr double kTwoPi = 6.283185307179586;
// The drawn shape's largest displacement without mode_amplitude: this fraction of the model's
// characteristic length.
constexpr double kDefaultAmplitudeFraction = 0.1;

std::string join(const std::string& directory, const std::string& name) {
  return (std::filesystem::path(directory) / name).string();
}

std::string mode_name(size_t mode, const char* suffix) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "mode_%03zu%s", mode + 1, suffix);
  return buffer;
}

void write_modes_csv(const std::string& path, const LinearModes& modes) {
  write_atomically(path, [&](OutputFile& f) {
    f.add("mode,natural_frequency_hz,damped_frequency_hz,damping_ratio,eigenvalue_real,eigenvalue_imag\n");
    for (size_t k = 0; k < modes.modes.size(); ++k) {
      const std::complex<double> s = modes.modes[k].eigenvalue;
      const ModeFrequencies fr = mode_frequencies(s);
      f.add(std::to_string(k + 1) + ',' + number(fr.natural_hz) + ',' + number(fr.damped_hz) + ',' +
            number(fr.damping_ratio) + ',' + number(s.real()) + ',' + number(s.imag()) + '\n');
    }
  });
}

void write_shapes_csv(const std::string& path, const Model& m, const LinearModes& modes) {
  write_atomically(path, [&](OutputFile& f) {
    std::string header = "coordinate,description,equilibrium";
    for (size_t k = 0; k < modes.modes.size(); ++k)
      header += ",mode_" + std::to_string(k + 1) + "_real,mode_" + std::to_string(k + 1) + "_imag";
    f.add(header + '\n');
    for (int i = 0; i < m.dof_count(); ++i) {
      std::string row = std::to_string(i) + ',' + csv_field(describe_coordinate(m, i)) + ',' + number(modes.q[i]);
      for (const LinearMode& mode : modes.modes)
        row += ',' + number(mode.shape[i].real()) + ',' + number(mode.shape[i].imag());
      f.add(row + '\n');
    }
  });
}

}  // namespace

void mode_state(const Model& m, const Eigen::VectorXd& q, const LinearMode& mode, double amplitude, double theta,
                Eigen::VectorXd& q_drawn, Eigen::VectorXd& v_drawn) {
  const std::complex<double> turn = amplitude * std::polar(1.0, theta);
  q_drawn = q + (turn * mode.shape).real();
  v_drawn = (turn * mode.eigenvalue * mode.shape).real();
  for (int b = 0; b < static_cast<int>(m.mechanism.bodies.size()); ++b)
    q_drawn.segment<4>(m.rigid_offset() + 7 * b + 3).normalize();
}

void write_mode_files(const Case& c, const std::string& directory, const LinearModes& modes) {
  const Model& m = c.model;
  write_modes_csv(join(directory, "modes.csv"), modes);
  write_shapes_csv(join(directory, "mode_shapes.csv"), m, modes);
  if (!c.output.vtu) return;
  const std::string folder = join(directory, "modes");
  create_directory(folder);
  const double amplitude =
      c.analysis.eigen.amplitude > 0.0 ? c.analysis.eigen.amplitude : kDefaultAmplitudeFraction * m.characteristic_length;
  const int frames = c.analysis.eigen.mode_frames;
  Eigen::VectorXd q_drawn, v_drawn;
  for (size_t k = 0; k < modes.modes.size(); ++k) {
    std::string collection = pvd_start();
    for (int j = 0; j < frames; ++j) {
      char suffix[24];
      std::snprintf(suffix, sizeof suffix, "_%02d.vtu", j);
      const std::string file = mode_name(k, suffix);
      mode_state(m, modes.q, modes.modes[k], amplitude, kTwoPi * j / frames, q_drawn, v_drawn);
      write_vtu(join(folder, file), m, q_drawn, v_drawn, c.output.vtu_samples_per_element, c.output.vtu_encoding);
      // ParaView's time: the phase as a fraction of the period.
      collection += pvd_entry(static_cast<double>(j) / frames, file);
    }
    write_atomically(join(folder, mode_name(k, ".pvd")), collection + kPvdEnd);
  }
}

}  // namespace catenary
