#include "catenary/io/sweep_parts.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "catenary/core/errors.hpp"
#include "catenary/model/sweep.hpp"
#include "output_file.hpp"
#include "text_output.hpp"

namespace catenary {

namespace {

namespace fs = std::filesystem;

constexpr char kPartFiles[] = "sweep_copies_*.json";

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string(), "", "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One part: its index's copies and its table's header and rows (each row's copy number first).
struct Part {
  fs::path index_file;
  nlohmann::json index;
  std::string header;
  std::vector<std::pair<size_t, std::string>> rows;
};

Part read_part(const fs::path& index_file) {
  Part p;
  p.index_file = index_file;
  try {
    p.index = nlohmann::json::parse(read_text(index_file));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(index_file.string(), "", std::string("not a sweep index: ") + e.what());
  }
  if (!p.index.contains("sweep_copies") || !p.index["sweep_copies"].is_number_unsigned())
    throw InputError(index_file.string(), "/sweep_copies", "missing: not a sweep index");
  if (!p.index.contains("copies") || !p.index["copies"].is_array())
    throw InputError(index_file.string(), "/copies", "missing: not a sweep index");
  fs::path table_file = index_file;
  table_file.replace_extension(".csv");
  std::istringstream table(read_text(table_file));
  std::getline(table, p.header);
  for (std::string row; std::getline(table, row);) {
    if (row.empty()) continue;
    p.rows.emplace_back(std::stoul(row.substr(0, row.find(','))), row);
  }
  return p;
}

}  // namespace

GatheredSweep gather_sweep_parts(const std::string& directory) {
  const std::regex part_name(R"(sweep_copies_\d+-\d+\.json)");
  std::vector<fs::path> files;  // in name order, so that messages do not depend on the directory's
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, ec))
    if (std::regex_match(entry.path().filename().string(), part_name)) files.push_back(entry.path());
  if (ec) throw InputError(directory, "", "cannot be read: " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<Part> parts;
  for (const fs::path& file : files) parts.push_back(read_part(file));
  if (parts.empty())
    throw InputError(directory, kPartFiles,
                     "no part of a sweep here: run its parts with --part K/N or --copies A-B and --out this directory");

  const size_t copies = parts.front().index["sweep_copies"].get<size_t>();
  std::vector<const Part*> holder(copies, nullptr);
  std::map<size_t, nlohmann::json> entries;  // by copy number
  for (const Part& p : parts) {
    if (p.index["sweep_copies"].get<size_t>() != copies)
      throw InputError(p.index_file.string(), "/sweep_copies",
                       "a part of a sweep of " + std::to_string(p.index["sweep_copies"].get<size_t>()) + " copies, " +
                           parts.front().index_file.filename().string() + " of one of " + std::to_string(copies));
    if (p.header != parts.front().header)
      throw InputError(p.index_file.string(), "", "its table's columns differ from " +
                                                      parts.front().index_file.filename().string() + "'s");
    for (const nlohmann::json& copy : p.index["copies"]) {
      const size_t n = copy.at("index").get<size_t>();
      if (n >= copies)
        throw InputError(p.index_file.string(), "/copies", "copy " + std::to_string(n) + " of a sweep of " +
                                                               std::to_string(copies));
      if (holder[n])
        throw InputError(p.index_file.string(), "/copies",
                         "copy " + std::to_string(n) + " is in " + holder[n]->index_file.filename().string() +
                             " too: the parts overlap (one run of each part, or remove the other's files)");
      holder[n] = &p;
      entries[n] = copy;
    }
  }
  std::vector<size_t> missing;
  for (size_t n = 0; n < copies; ++n)
    if (!holder[n]) missing.push_back(n);
  if (!missing.empty())
    throw InputError(directory, kPartFiles,
                     copy_list(missing) + " of the " + std::to_string(copies) + " are in no part: run them first");

  GatheredSweep gathered;
  gathered.copies = copies;
  nlohmann::json index;
  index["copies"] = nlohmann::json::array();
  for (auto& [n, copy] : entries) {
    const std::string status = copy.value("status", "");
    if (status == "interrupted" || status == "not run")
      gathered.unfinished.push_back(n);
    else if (status != "ok")
      gathered.failed.push_back(n);
    index["copies"].push_back(std::move(copy));
  }
  for (size_t n = 0; n < copies; ++n)
    if (n == 0 || holder[n] != holder[n - 1]) gathered.parts.push_back(holder[n]->index_file.filename().string());
  index["status"] = !gathered.failed.empty() ? "failed" : !gathered.unfinished.empty() ? "interrupted" : "ok";
  index["sweep_copies"] = copies;
  index["gathered_from"] = gathered.parts;

  std::vector<const std::pair<size_t, std::string>*> rows;
  for (const Part& p : parts)
    for (const auto& row : p.rows) rows.push_back(&row);
  std::sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string table = parts.front().header + '\n';
  for (const auto* row : rows) table += row->second + '\n';

  const fs::path at = fs::path(directory) / "sweep";
  write_atomically(at.string() + ".json", index.dump(2) + "\n");
  write_atomically(at.string() + ".csv", table);
  return gathered;
}

}  // namespace catenary
