#pragma once
// Reading back what the VTU writer wrote, for the output tests: text arrays (format="ascii") and
// arrays appended as raw bytes, plain or in zlib-compressed blocks, after VTK's XML file format
// (a UInt64 byte count before a plain array; a compressed one's UInt64 header of the block count,
// the block size, the last block's size (0: whole) and each block's compressed size).
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace catenary::testing {

// The value of `attribute` in the XML element that begins at or before `at`.
inline std::string vtu_tag_attribute(const std::string& text, size_t at, const std::string& attribute) {
  const size_t begin = text.rfind('<', at), end = text.find('>', at);
  const std::string tag = text.substr(begin, end - begin);
  const size_t found = tag.find(' ' + attribute + "=\"");
  if (found == std::string::npos) return "";
  const size_t value = found + attribute.size() + 3;
  return tag.substr(value, tag.find('"', value) - value);
}

inline std::uint64_t vtu_uint64(const std::string& text, size_t at) {
  REQUIRE(at + 8 <= text.size());
  std::uint64_t x;
  std::memcpy(&x, text.data() + at, 8);
  return x;
}

// The bytes of an appended array that starts at `at` (its header's first byte).
inline std::string vtu_appended_bytes(const std::string& text, size_t at, bool compressed) {
  if (!compressed) {
    const std::uint64_t size = vtu_uint64(text, at);
    REQUIRE(at + 8 + size <= text.size());
    return text.substr(at + 8, size);
  }
  const std::uint64_t blocks = vtu_uint64(text, at), block_size = vtu_uint64(text, at + 8),
                      last_size = vtu_uint64(text, at + 16);
  size_t data = at + 24 + 8 * blocks;
  std::string bytes;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t stored = vtu_uint64(text, at + 24 + 8 * b);
    uLongf size = b + 1 == blocks && last_size != 0 ? last_size : block_size;
    std::string block(size, '\0');
    REQUIRE(data + stored <= text.size());
    REQUIRE(uncompress(reinterpret_cast<Bytef*>(block.data()), &size,
                       reinterpret_cast<const Bytef*>(text.data() + data), stored) == Z_OK);
    bytes.append(block.data(), size);
    data += stored;
  }
  return bytes;
}

template <class T>
std::vector<double> vtu_values_of(const std::string& bytes) {
  REQUIRE(bytes.size() % sizeof(T) == 0);
  std::vector<double> values(bytes.size() / sizeof(T));
  for (size_t i = 0; i < values.size(); ++i) {
    T x;
    std::memcpy(&x, bytes.data() + i * sizeof(T), sizeof(T));
    values[i] = static_cast<double>(x);
  }
  return values;
}

// Numbers of the DataArray named `name` in a VTU text, in whichever of the writer's encodings.
inline std::vector<double> vtu_array(const std::string& text, const std::string& name) {
  const size_t tag = text.find("Name=\"" + name + "\"");
  REQUIRE(tag != std::string::npos);
  const std::string format = vtu_tag_attribute(text, tag, "format");
  if (format == "appended") {
    const size_t file = text.find("<VTKFile");
    REQUIRE(vtu_tag_attribute(text, file, "header_type") == "UInt64");
    REQUIRE(vtu_tag_attribute(text, file, "byte_order") == "LittleEndian");
    const std::string compressor = vtu_tag_attribute(text, file, "compressor");
    REQUIRE((compressor.empty() || compressor == "vtkZLibDataCompressor"));
    const size_t appended = text.find("<AppendedData encoding=\"raw\">");
    REQUIRE(appended != std::string::npos);
    const size_t base = text.find('_', appended) + 1;
    const size_t at = base + std::stoull(vtu_tag_attribute(text, tag, "offset"));
    const std::string bytes = vtu_appended_bytes(text, at, !compressor.empty());
    const std::string type = vtu_tag_attribute(text, tag, "type");
    if (type == "Float64") return vtu_values_of<double>(bytes);
    if (type == "Int32") return vtu_values_of<std::int32_t>(bytes);
    REQUIRE(type == "UInt8");
    return vtu_values_of<std::uint8_t>(bytes);
  }
  REQUIRE(format == "ascii");
  const size_t begin = text.find('>', tag) + 1;
  const size_t end = text.find("</DataArray>", begin);
  REQUIRE(end != std::string::npos);
  std::istringstream s(text.substr(begin, end - begin));
  std::vector<double> values;
  std::string token;
  while (s >> token) values.push_back(std::strtod(token.c_str(), nullptr));
  return values;
}

inline int vtu_attribute(const std::string& text, const std::string& attribute) {
  const size_t at = text.find(attribute + "=\"");
  REQUIRE(at != std::string::npos);
  return std::atoi(text.c_str() + at + attribute.size() + 2);
}

}  // namespace catenary::testing
