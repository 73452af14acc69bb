#pragma once
// Running the built `catenary` command from the tests.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace catenary::testing {

// Runs `catenary ARGS` with stdout and stderr into `log`; returns the exit code (-1 if it did not
// exit).
inline int run_catenary(const std::string& args, const std::filesystem::path& log) {
  const std::string cmd = std::string(CATENARY_BINARY) + " " + args + " > " + log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace catenary::testing
