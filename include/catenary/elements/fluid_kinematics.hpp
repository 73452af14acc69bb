#pragma once
// The water a line lies in: its surface, a current and linear (Airy) waves, and the kinematics of
// the water at a point, host and device code. The up axis is the model's last coordinate (z in a
// spatial model, y in a planar one); the horizontal ones are the others.
//
// Waves are a sum of Airy components j (amplitude a, wavenumber k, circular frequency w, unit
// horizontal direction c, phase p; k from the finite-depth dispersion relation w^2 = g k tanh(k h),
// model/waves.hpp), each ramped in by R(t), the quintic ramp (core/quintic_ramp.hpp):
//   elevation   eta = R sum a cos(theta),   theta = k c.x_h - w t + p,
//   velocity    u_h = R sum a w C(z') cos(theta) c,      u_up = R sum a w S(z') sin(theta),
//   acceleration    R sum a w^2 C(z') sin(theta) c,          - R sum a w^2 S(z') cos(theta),
// with C = cosh(k (z' + h)) / sinh(k h), S = sinh(k (z' + h)) / sinh(k h), h the water depth and z'
// the height above the mean level stretched to the mean water column (Wheeler stretching):
//   z' = (z - eta) h / (h + eta),
// so that the kinematics of the still-water theory reach the wave's crest and trough. Above the
// instantaneous surface (z > eta) the point is dry. C and S are evaluated as e^(k z') (1 +- e^(-2 k
// (z' + h))) / (1 - e^(-2 k h)), which neither overflows in deep water nor loses digits.
// The current is steady: a uniform velocity, or a profile of velocities at heights (on the up
// axis, absolute), linear between them and constant beyond the ends; it adds to the waves'
// velocity and is not ramped (a static start includes it).
#include <math.h>

#include "catenary/core/quintic_ramp.hpp"
#include "catenary/core/small_matrix.hpp"

namespace catenary {

// One Airy wave component, its kWaveValues values in a FluidLoad's values (in this order).
struct WaveComponent {
  double amplitude, wavenumber, frequency, direction[2], phase;
};
constexpr int kWaveValues = sizeof(WaveComponent) / sizeof(double);

// A line body's hydrodynamic section and the water it is in. Doubles only (a device array of them
// is a plain copy); the current profile and the wave components lie in the list's values.
struct FluidLoad {
  double diameter;                        // outer (hydrodynamic) diameter d (m)
  double drag_normal, drag_tangential;    // C_dn, C_dt
  double added_mass_normal, added_mass_tangential;  // C_an, C_at
  double density;                         // water density (kg/m^3)
  double surface;                         // the mean water level on the up axis (m)
  double depth;                           // water depth h below the mean level (m); waves only
  double current[3];                      // a uniform current (m/s), without a profile
  double profile_offset, profile_count;   // a current profile: profile_count heights, then 3
                                          // velocity components each, from values[profile_offset]
  double wave_offset, wave_count;         // wave components (WaveComponent) from values[wave_offset]
  double wave_reach;                      // the sum of the components' amplitudes: |eta| <= it
  double ramp;                            // the waves' ramp-in time (s); 0: none
};

// The fluid loads of a model where a pass reads them (host or device memory), with the time of
// the evaluation and the model's gravity (buoyancy is -rho_w A g).
struct FluidLoadList {
  const FluidLoad* loads = nullptr;
  int count = 0;
  const double* values = nullptr;
  double time = 0.0;
  double gravity[3] = {0.0, 0.0, 0.0};
};

// The water's kinematics at a point.
template <int D>
struct FluidPoint {
  bool wet;                // below the instantaneous surface
  double elevation;        // eta at the point's horizontal position
  Vec<D> elevation_slope;  // d eta / d x_h in the horizontal entries, 0 on the up axis
  Vec<D> velocity, acceleration;
  Mat<D, D> velocity_gradient, acceleration_gradient;  // d/dr
};

namespace detail {

CATENARY_HD const WaveComponent& wave_component(const FluidLoad& f, const double* values, int j) {
  return *reinterpret_cast<const WaveComponent*>(values + static_cast<int>(f.wave_offset) + kWaveValues * j);
}

// theta of component c at horizontal position r (its first D - 1 entries) and time t.
template <int D>
CATENARY_HD double wave_phase(const WaveComponent& c, const Vec<D>& r, double t) {
  double along = c.direction[0] * r[0];
  if constexpr (D == 3) along += c.direction[1] * r[1];
  return c.wavenumber * along - c.frequency * t + c.phase;
}

}  // namespace detail

// eta at r's horizontal position and time t, and d eta / d x_h (slope; 0 on the up axis).
template <int D>
CATENARY_HD double wave_elevation(const FluidLoad& f, const double* values, const Vec<D>& r, double t, Vec<D>& slope) {
  slope = Vec<D>::zero();
  const double R = quintic_ramp(t, f.ramp);
  double eta = 0.0;
  if (R == 0.0) return 0.0;
  for (int j = 0; j < static_cast<int>(f.wave_count); ++j) {
    const WaveComponent& c = detail::wave_component(f, values, j);
    double sn, cs;
    sincos(detail::wave_phase<D>(c, r, t), &sn, &cs);
    eta += c.amplitude * cs;
    for (int i = 0; i < D - 1; ++i) slope[i] -= c.amplitude * c.wavenumber * c.direction[i] * sn;
  }
  for (int i = 0; i < D - 1; ++i) slope[i] *= R;
  return R * eta;
}

// The water's kinematics at r and time t: current plus waves, with their gradients.
template <int D>
CATENARY_HD FluidPoint<D> fluid_kinematics(const FluidLoad& f, const double* values, const Vec<D>& r, double t) {
  constexpr int up = D - 1;
  FluidPoint<D> out;
  out.velocity = Vec<D>::zero();
  out.acceleration = Vec<D>::zero();
  out.velocity_gradient = Mat<D, D>::zero();
  out.acceleration_gradient = Mat<D, D>::zero();
  out.elevation = wave_elevation<D>(f, values, r, t, out.elevation_slope);
  const double z = r[up] - f.surface;
  out.wet = z < out.elevation;
  if (!out.wet) return out;
  // The current.
  const int np = static_cast<int>(f.profile_count);
  if (np == 0) {
    for (int i = 0; i < D; ++i) out.velocity[i] = f.current[i];
  } else {
    const double* heights = values + static_cast<int>(f.profile_offset);
    const double* velocities = heights + np;
    int k = 0;  // the segment [heights[k], heights[k + 1]] that holds r_up, or an end
    while (k + 2 < np && r[up] > heights[k + 1]) ++k;
    double x = np == 1 ? 0.0 : (r[up] - heights[k]) / (heights[k + 1] - heights[k]);
    const bool beyond = x < 0.0 || x > 1.0;
    x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
    for (int i = 0; i < D; ++i) {
      const double v0 = velocities[3 * k + i], v1 = np == 1 ? v0 : velocities[3 * (k + 1) + i];
      out.velocity[i] = v0 + (v1 - v0) * x;
      if (np > 1 && !beyond) out.velocity_gradient(i, up) = (v1 - v0) / (heights[k + 1] - heights[k]);
    }
  }
  const double R = quintic_ramp(t, f.ramp);
  if (R == 0.0 || f.wave_count == 0.0) return out;
  // Wheeler stretching: z' and its derivatives in z and in eta.
  const double h = f.depth, eta = out.elevation, span = h + eta;
  const double zs = (z - eta) * h / span, dzs_dz = h / span, dzs_deta = -h * (h + z) / (span * span);
  Vec<D> dzs_dr;  // d z' / d r
  for (int i = 0; i < D - 1; ++i) dzs_dr[i] = dzs_deta * out.elevation_slope[i];
  dzs_dr[up] = dzs_dz;
  for (int j = 0; j < static_cast<int>(f.wave_count); ++j) {
    const WaveComponent& c = detail::wave_component(f, values, j);
    const double k = c.wavenumber, av = R * c.amplitude * c.frequency, aa = av * c.frequency;
    const double lift = exp(k * zs), far = exp(-2.0 * k * (zs + h)), scale = lift / (1.0 - exp(-2.0 * k * h));
    const double C = scale * (1.0 + far), S = scale * (1.0 - far);
    double sn, cs;
    sincos(detail::wave_phase<D>(c, r, t), &sn, &cs);
    // Each entry's value and its derivatives along the horizontal (at fixed z') and in z'.
    Vec<D> dir = Vec<D>::zero();
    for (int i = 0; i < D - 1; ++i) dir[i] = c.direction[i];
    for (int i = 0; i < D - 1; ++i) {
      out.velocity[i] += av * C * cs * dir[i];
      out.acceleration[i] += aa * C * sn * dir[i];
      for (int m = 0; m < D - 1; ++m) {
        out.velocity_gradient(i, m) += -av * C * k * sn * dir[i] * dir[m] + av * k * S * cs * dir[i] * dzs_dr[m];
        out.acceleration_gradient(i, m) += aa * C * k * cs * dir[i] * dir[m] + aa * k * S * sn * dir[i] * dzs_dr[m];
      }
      out.velocity_gradient(i, up) += av * k * S * cs * dir[i] * dzs_dr[up];
      out.acceleration_gradient(i, up) += aa * k * S * sn * dir[i] * dzs_dr[up];
    }
    out.velocity[up] += av * S * sn;
    out.acceleration[up] += -aa * S * cs;
    for (int m = 0; m < D - 1; ++m) {
      out.velocity_gradient(up, m) += av * S * k * cs * dir[m] + av * k * C * sn * dzs_dr[m];
      out.acceleration_gradient(up, m) += aa * S * k * sn * dir[m] - aa * k * C * cs * dzs_dr[m];
    }
    out.velocity_gradient(up, up) += av * k * C * sn * dzs_dr[up];
    out.acceleration_gradient(up, up) += -aa * k * C * cs * dzs_dr[up];
  }
  return out;
}

}  // namespace catenary
