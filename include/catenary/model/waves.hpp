#pragma once
// Airy wave components for the water's kinematics (elements/fluid_kinematics.hpp): a regular wave
// and irregular sea states drawn from a JONSWAP or Pierson-Moskowitz spectrum.
#include <cstdint>
#include <vector>

#include "catenary/elements/fluid_kinematics.hpp"

namespace catenary {

// The wavenumber k of circular frequency w in water of depth h under gravity g: the root of the
// finite-depth dispersion relation w^2 = g k tanh(k h), by Newton's method from the deep- or
// shallow-water value (whichever is larger), to round-off.
double dispersion_wavenumber(double frequency, double depth, double gravity);

// A regular wave: height H (crest to trough), period T, heading (radians from the +x axis
// towards +y) and phase.
struct RegularWave {
  double height = 0.0, period = 0.0, heading = 0.0, phase = 0.0;
};
WaveComponent regular_wave_component(const RegularWave& w, double depth, double gravity);

// An irregular sea state: the JONSWAP spectrum (gamma = 1: Pierson-Moskowitz) of significant
// height Hs and peak period Tp, as components at frequencies spread over [min, max] (rad/s): bin
// j of width dw = (max - min) / n holds one component at a frequency drawn uniformly in the bin,
// amplitude sqrt(2 S(w_j) dw) and a phase drawn uniformly in [0, 2 pi), from the seed (a 64-bit
// Mersenne twister, whose sequence the C++ standard fixes: the same sea on every machine). Drawn
// frequencies keep the sea from repeating with the period 2 pi / dw of an even grid.
struct WaveSpectrum {
  double significant_height = 0.0, peak_period = 0.0, gamma = 1.0, heading = 0.0;
  double min_frequency = 0.0, max_frequency = 0.0;
  int components = 0;
  std::uint64_t seed = 0;
};
std::vector<WaveComponent> spectrum_components(const WaveSpectrum& s, double depth, double gravity);

// The JONSWAP spectral density S(w) (m^2 s) of Hs, Tp and gamma, as DNV-RP-C205 writes it:
//   S(w) = (1 - 0.287 ln gamma) 5/16 Hs^2 wp^4 w^-5 exp(-5/4 (w / wp)^-4) gamma^exp(-(w - wp)^2 / (2 sigma^2 wp^2)),
// wp = 2 pi / Tp, sigma = 0.07 for w <= wp and 0.09 above.
double jonswap_density(double frequency, double significant_height, double peak_period, double gamma);

}  // namespace catenary
