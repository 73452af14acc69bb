#include "text_output.hpp"

#include <charconv>

namespace catenary {

std::string number(double x) {
  // The shortest digits that read back as x (std::to_chars without a precision): as exact as
  // %.17g, shorter (0.1, not 0.10000000000000001), and about ten times faster, which a sweep's
  // thousands of copies' rows a frame feel.
  char buffer[32];
  const std::to_chars_result written = std::to_chars(buffer, buffer + sizeof buffer, x + 0.0);
  return std::string(buffer, written.ptr);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace catenary
