#include "catenary/model/waves.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace catenary {

namespace {
constexpr double kTwoPi = 6.283185307179586476925286766559;

// A uniform draw in [0, 1) from the engine's raw 64 bits (the standard's distributions are not
// specified bit for bit; the engine is).
double unit_draw(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

WaveComponent component(double amplitude, double frequency, double heading, double phase, double depth,
                        double gravity) {
  return {amplitude, dispersion_wavenumber(frequency, depth, gravity), frequency, {std::cos(heading), std::sin(heading)},
          phase};
}
}  // namespace

double dispersion_wavenumber(double frequency, double depth, double gravity) {
  const double w2 = frequency * frequency;
  // f(k) = g k tanh(k h) - w^2 is increasing and concave in k: Newton's method from above (the
  // larger of the deep-water w^2 / g and the shallow-water w / sqrt(g h), both >= the root)
  // decreases monotonically to the root.
  double k = std::max(w2 / gravity, frequency / std::sqrt(gravity * depth));
  for (int it = 0; it < 100; ++it) {
    const double th = std::tanh(k * depth);
    const double f = gravity * k * th - w2, df = gravity * (th + k * depth * (1.0 - th * th));
    const double step = f / df;
    k -= step;
    if (std::fabs(step) <= 4e-16 * k) break;
  }
  return k;
}

WaveComponent regular_wave_component(const RegularWave& w, double depth, double gravity) {
  return component(0.5 * w.height, kTwoPi / w.period, w.heading, w.phase, depth, gravity);
}

double jonswap_density(double frequency, double significant_height, double peak_period, double gamma) {
  const double wp = kTwoPi / peak_period, x = frequency / wp;
  const double pm = 5.0 / 16.0 * significant_height * significant_height * std::pow(wp, 4.0) * std::pow(frequency, -5.0) *
                    std::exp(-1.25 / (x * x * x * x));
  const double sigma = frequency <= wp ? 0.07 : 0.09;
  const double peak = std::exp(-(frequency - wp) * (frequency - wp) / (2.0 * sigma * sigma * wp * wp));
  return (1.0 - 0.287 * std::log(gamma)) * pm * std::pow(gamma, peak);
}

std::vector<WaveComponent> spectrum_components(const WaveSpectrum& s, double depth, double gravity) {
  std::mt19937_64 engine(s.seed);
  const double dw = (s.max_frequency - s.min_frequency) / s.components;
  std::vector<WaveComponent> out;
  out.reserve(s.components);
  for (int j = 0; j < s.components; ++j) {
    const double w = s.min_frequency + (j + unit_draw(engine)) * dw;
    const double phase = kTwoPi * unit_draw(engine);
    const double amplitude = std::sqrt(2.0 * jonswap_density(w, s.significant_height, s.peak_period, s.gamma) * dw);
    out.push_back(component(amplitude, w, s.heading, phase, depth, gravity));
  }
  return out;
}

}  // namespace catenary
