#include "earlier_outputs.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <system_error>

#include <nlohmann/json.hpp>

namespace catenary {

namespace fs = std::filesystem;

namespace {

// The JSON document at path, or null where there is none or it does not parse.
nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

// value as a file name inside a directory: a string without a directory part, else "".
std::string bare_name(const nlohmann::json& value) {
  if (!value.is_string()) return {};
  const std::string name = value.get<std::string>();
  const fs::path p(name);
  return !name.empty() && p.filename() == p && name != "." && name != ".." ? name : std::string();
}

// prefix, digits (with one underscore between digits where `parts` is 2), then one of the
// endings or its temporary name (+ ".tmp"): OutputWriter's frame files (frame_NNNNN.vtu) and the
// mode files (mode_NNN.pvd, mode_NNN_FF.vtu).
bool numbered_file(const std::string& name, const std::string& prefix, int parts,
                   std::initializer_list<const char*> endings) {
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  size_t end = prefix.size();
  for (int part = 0; part < parts; ++part) {
    if (part > 0 && (end >= name.size() || name[end++] != '_')) return false;
    const size_t start = end;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (end == start) return false;
  }
  const std::string rest = name.substr(end);
  for (const char* ending : endings)
    if (rest == ending || rest == std::string(ending) + ".tmp") return true;
  return false;
}

// Removes the files of `directory` that `is_output` names, then the directory where that emptied it.
void clear_numbered_files(const fs::path& directory, const std::function<bool(const std::string&)>& is_output) {
  std::error_code ignored;
  if (!fs::is_directory(directory, ignored)) return;
  for (const fs::directory_entry& e : fs::directory_iterator(directory, ignored))
    if (is_output(e.path().filename().string())) fs::remove(e.path(), ignored);
  fs::remove(directory, ignored);  // only where that emptied it
}

}  // namespace

void clear_earlier_run(const std::string& directory) {
  const fs::path dir(directory);
  const nlohmann::json summary = read_json(dir / "summary.json");
  std::error_code ignored;
  if (!summary.is_object() || !summary.contains("output_files") || !summary["output_files"].is_object()) return;
  const nlohmann::json& files = summary["output_files"];
  // A checkpoint of the earlier run goes whether or not its summary lists it (a run killed before
  // its end lists none): the new run's outputs are not those it recorded.
  for (const char* name : {"checkpoint.bin", "checkpoint.bin.tmp"}) fs::remove(dir / name, ignored);
  for (const char* key : {"csv", "pvd", "rigid_bodies", "joint_reactions", "modes", "mode_shapes", "sensitivities",
                          "sensitivities_csv", "summary"}) {
    const std::string name = files.contains(key) ? bare_name(files[key]) : std::string();
    if (name.empty()) continue;
    fs::remove(dir / name, ignored);
    fs::remove(dir / (name + ".tmp"), ignored);
  }
  if (files.contains("pvd"))
    clear_numbered_files(dir / "frames", [](const std::string& name) { return numbered_file(name, "frame_", 1, {".vtu"}); });
  if (files.contains("mode_frames"))
    clear_numbered_files(dir / "modes", [](const std::string& name) {
      return numbered_file(name, "mode_", 1, {".pvd"}) || numbered_file(name, "mode_", 2, {".vtu"});
    });
}

void clear_earlier_copies(const std::string& directory, const std::string& stem, const std::set<std::string>& keep) {
  const nlohmann::json index = read_json(fs::path(directory) / (stem + ".json"));
  if (!index.is_object() || !index.contains("copies") || !index["copies"].is_array()) return;
  for (const nlohmann::json& copy : index["copies"]) {
    const std::string name = copy.is_object() && copy.contains("directory") ? bare_name(copy["directory"]) : "";
    if (name.empty() || keep.count(name)) continue;
    const fs::path at = fs::path(directory) / name;
    clear_earlier_run(at.string());
    std::error_code ignored;
    fs::remove(at, ignored);  // only where that emptied it
  }
}

}  // namespace catenary
