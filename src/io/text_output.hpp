#pragma once
// Text the output files share: numbers that read back as the same double, CSV fields, and files
// replaced whole.
#include <string>

namespace catenary {

// The shortest decimal that reads back as the same double (1e-05, 0.1, 12345.678); -0 as 0.
std::string number(double x);

// A CSV field, quoted (RFC 4180) when a user's name puts a comma or a quote into it.
std::string csv_field(const std::string& text);

// Writes the whole file next to its final place and renames it over the old one, so a reader
// (or a run that dies) never sees a half-written file.
void write_atomically(const std::string& path, const std::string& content);

}  // namespace catenary
