#include "case_fingerprint.hpp"

#include "catenary/model/case_loader.hpp"

#include <cstdint>
#include <cstdio>

namespace catenary {

namespace {

class Fnv1a {
 public:
  void add(const std::string& text) {
    for (const char c : text) {
      hash_ ^= static_cast<unsigned char>(c);
      hash_ *= 0x100000001b3ULL;
    }
  }
  std::string hex() const {
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash_));
    return buffer;
  }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

bool checkpoint_setting(const std::string& key) {
  return key == "checkpoint_interval" || key == "checkpoint_wall_interval";
}

}  // namespace

std::string case_fingerprint(const nlohmann::json& document) {
  Fnv1a hash;
  if (!document.is_object()) {
    hash.add(document.dump());
    return hash.hex();
  }
  // The members in key order (nlohmann::json's objects are sorted), each as "key=value;", the
  // output object's without the checkpoint settings.
  for (const auto& [key, value] : document.items()) {
    hash.add(key + "=");
    if (key == "output" && value.is_object()) {
      for (const auto& [output_key, output_value] : value.items())
        if (!checkpoint_setting(output_key)) hash.add(output_key + "=" + output_value.dump() + ";");
    } else {
      hash.add(value.dump());
    }
    hash.add(";");
  }
  return hash.hex();
}

std::string copies_fingerprint(const std::vector<SweepCase>& cases) {
  Fnv1a hash;
  for (const SweepCase& copy : cases) hash.add(std::to_string(copy.index) + ":" + copy.c.fingerprint + ";");
  return hash.hex();
}

}  // namespace catenary
