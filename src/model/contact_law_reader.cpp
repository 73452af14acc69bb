#include "contact_law_reader.hpp"

namespace catenary {

using namespace case_reading;

const std::vector<std::string>& continuous_contact_law_names() {
  static const std::vector<std::string> names = {"linear", "hertz", "hunt_crossley", "lankarani_nikravesh", "general"};
  return names;
}

// The law's K, e, C and m from n. Each named law is a case of
// F = K delta^e + C delta^m delta':
//   linear (Dubowsky's spring-damper):    e = 1, C = damping, m = 0;
//   hertz:                                K delta^e, no damping (e = 1.5 by default);
//   hunt_crossley:                        C = alpha K, m = e, alpha = 3 (1 - c_r) / (2 v_ref);
//   lankarani_nikravesh:                  C = alpha K, m = e, alpha = 3 (1 - c_r^2) / (4 v_ref);
//   general:                              all four given.
// The hysteresis laws' alpha comes from a restitution coefficient c_r at a reference impact speed
// v_ref: the formulas hold the impact speed of each contact, which a continuum of points along a
// cable has none of, so one stated speed stands for them (and for a rigid contact's every impact).
ContactLaw read_contact_law(const Node& n) {
  if (!n.v.is_object()) n.fail("must be an object" + n.got());
  const std::string type = get_choice(n.required("type"), continuous_contact_law_names(), "contact law");
  ContactLaw c{};
  const auto exponent = [&](const char* key, double fallback, double least) {
    if (!n.has(key)) return fallback;
    const Node x = n.child(key);
    const double value = get_number(x);
    if (!(value >= least))
      x.fail("must be at least " + format_number(least) + " (got " + format_number(value) + ")");
    return value;
  };
  c.stiffness = get_positive(n.required("stiffness"));
  c.damping = 0.0;
  c.damping_exponent = 0.0;
  if (type == "linear") {
    expect_object(n, {"type", "stiffness", "damping"});
    c.exponent = 1.0;
    if (n.has("damping")) c.damping = get_non_negative(n.child("damping"));
  } else if (type == "hertz") {
    expect_object(n, {"type", "stiffness", "exponent"});
    c.exponent = exponent("exponent", 1.5, 1.0);
  } else if (type == "general") {
    expect_object(n, {"type", "stiffness", "exponent", "damping", "damping_exponent"});
    c.exponent = exponent("exponent", 1.5, 1.0);
    c.damping = get_non_negative(n.required("damping"));
    c.damping_exponent = exponent("damping_exponent", 0.0, 0.0);
  } else {
    expect_object(n, {"type", "stiffness", "exponent", "restitution", "impact_velocity"});
    c.exponent = exponent("exponent", 1.5, 1.0);
    const Node rn = n.required("restitution");
    const double cr = get_number(rn);
    if (!(cr >= 0.0 && cr <= 1.0)) rn.fail("must lie in [0, 1] (got " + format_number(cr) + ")");
    const double v = get_positive(n.required("impact_velocity"));
    const double alpha = type == "hunt_crossley" ? 3.0 * (1.0 - cr) / (2.0 * v) : 3.0 * (1.0 - cr * cr) / (4.0 * v);
    c.damping = alpha * c.stiffness;
    c.damping_exponent = c.exponent;
  }
  return c;
}

}  // namespace catenary
