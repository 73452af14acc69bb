#include "catenary/io/checkpoint_file.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <nlohmann/json.hpp>

#include "output_file.hpp"

namespace catenary {

namespace {

using json = nlohmann::json;

constexpr char kFormat[] = "catenary checkpoint";
constexpr int kFormatVersion = 1;

// The doubles are stored in the machine's byte order; a machine of the other order refuses them.
std::string byte_order() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1 ? "little-endian" : "big-endian";
}

std::vector<std::uint8_t> bytes_of(const Eigen::VectorXd& x) {
  std::vector<std::uint8_t> b(static_cast<size_t>(x.size()) * sizeof(double));
  if (x.size() > 0) std::memcpy(b.data(), x.data(), b.size());
  return b;
}

}  // namespace

std::string checkpoint_path(const std::string& directory) {
  return (std::filesystem::path(directory) / "checkpoint.bin").string();
}

void write_checkpoint(const std::string& path, const CheckpointIdentity& identity, const StateRecord& record) {
  json j;
  j["format"] = kFormat;
  j["format_version"] = kFormatVersion;
  j["catenary_version"] = CATENARY_VERSION;
  j["byte_order"] = byte_order();
  j["case_fingerprint"] = identity.case_fingerprint;
  j["dofs"] = identity.dofs;
  j["constraints"] = identity.constraints;
  json& numbers = j["numbers"] = json::object();
  for (const auto& [key, x] : record.numbers()) numbers[key] = x;
  json& vectors = j["vectors"] = json::object();
  for (const auto& [key, x] : record.vectors()) vectors[key] = json::binary(bytes_of(x));
  json& texts = j["texts"] = json::object();
  for (const auto& [key, x] : record.texts()) texts[key] = x;
  const std::vector<std::uint8_t> cbor = json::to_cbor(j);
  j = json();  // the vectors' second copy
  write_atomically(path, [&](OutputFile& f) {
    f.add(std::string_view(reinterpret_cast<const char*>(cbor.data()), cbor.size()));
    f.sync();
  });
}

StateRecord read_checkpoint(const std::string& path, const CheckpointIdentity& expected) {
  const auto fail = [&](const std::string& why) -> CheckpointError {
    return CheckpointError(path + ": " + why);
  };
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw fail("no checkpoint here (a run writes one where its case sets output.checkpoint_interval or "
               "output.checkpoint_wall_interval)");
  std::ifstream in(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) throw fail("cannot be read");
  json j;
  try {
    j = json::from_cbor(bytes);
  } catch (const json::exception&) {
    throw fail("not a catenary checkpoint (it does not decode)");
  }
  const auto field = [&](const char* key, json::value_t type) -> const json& {
    if (!j.is_object() || !j.contains(key) || j[key].type() != type) throw fail("not a catenary checkpoint (no '" + std::string(key) + "')");
    return j[key];
  };
  if (field("format", json::value_t::string) != kFormat) throw fail("not a catenary checkpoint");
  const json& version = field("format_version", json::value_t::number_unsigned);
  if (version != kFormatVersion)
    throw fail("a checkpoint of format " + version.dump() + "; this catenary reads format " +
               std::to_string(kFormatVersion));
  const std::string written_by = field("catenary_version", json::value_t::string).get<std::string>();
  if (written_by != CATENARY_VERSION)
    throw fail("written by catenary " + written_by + "; this is catenary " + CATENARY_VERSION +
               ", whose results could differ: rerun the case from its start");
  if (field("byte_order", json::value_t::string) != byte_order())
    throw fail("written on a " + j["byte_order"].get<std::string>() + " machine; this one is " + byte_order());
  if (field("case_fingerprint", json::value_t::string) != expected.case_fingerprint)
    throw fail("written for another case (its fingerprint " + j["case_fingerprint"].get<std::string>() +
               ", this case's " + expected.case_fingerprint +
               "): a checkpoint resumes the case it was written for, unchanged but for its checkpoint settings");
  const json& dofs = field("dofs", json::value_t::number_unsigned);
  const json& constraints = field("constraints", json::value_t::number_unsigned);
  if (dofs != expected.dofs || constraints != expected.constraints)
    throw fail("written for a model of " + dofs.dump() + " coordinates and " + constraints.dump() +
               " constraint rows; this one has " + std::to_string(expected.dofs) + " and " +
               std::to_string(expected.constraints));

  StateRecord record;
  for (const auto& [key, x] : field("numbers", json::value_t::object).items()) {
    if (!x.is_number()) throw fail("its number '" + key + "' is not a number");
    record.set(key, x.get<double>());
  }
  for (const auto& [key, x] : field("vectors", json::value_t::object).items()) {
    if (!x.is_binary() || x.get_binary().size() % sizeof(double) != 0)
      throw fail("its vector '" + key + "' is not a vector of doubles");
    const json::binary_t& b = x.get_binary();
    Eigen::VectorXd v(static_cast<Eigen::Index>(b.size() / sizeof(double)));
    if (v.size() > 0) std::memcpy(v.data(), b.data(), b.size());
    record.set(key, v);
  }
  for (const auto& [key, x] : field("texts", json::value_t::object).items()) {
    if (!x.is_string()) throw fail("its text '" + key + "' is not a string");
    record.set(key, x.get<std::string>());
  }
  return record;
}

}  // namespace catenary
