#pragma once
// Text the output files share: numbers that read back as the same double, and CSV fields.
#include <string>

namespace catenary {

// The shortest decimal that reads back as the same double (1e-05, 0.1, 12345.678); -0 as 0.
std::string number(double x);

// A CSV field, quoted (RFC 4180) when a user's name puts a comma or a quote into it.
std::string csv_field(const std::string& text);

}  // namespace catenary
