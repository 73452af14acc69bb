#pragma once
// Reading back what the VTU writer wrote, for the output tests.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace catenary::testing {

// Numbers of the DataArray named `name` in a VTU text.
inline std::vector<double> vtu_array(const std::string& text, const std::string& name) {
  const size_t tag = text.find("Name=\"" + name + "\"");
  REQUIRE(tag != std::string::npos);
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
