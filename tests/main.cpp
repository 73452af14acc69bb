// Catch's own main, with doubles printed to 17 decimals instead of 10: a check such as
// "difference < 1e-12" that fails then shows the difference (10 decimals print it as 0.0). The
// precision is set while the program starts, before Catch's main runs the tests.
//
// Each test program also works in a temporary directory of its own: the tests name their files
// under std::filesystem::temp_directory_path() with fixed names, which two suites run at once
// (two build directories) would otherwise share. TMPDIR points there for the tests and the
// catenary processes they start; the directory is removed after a run whose assertions all
// passed, and kept (and named) after a failure.
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

namespace {

const bool doubles_in_full = (Catch::StringMaker<double>::precision = 17, true);

class OwnTemporaryDirectory : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;

  void testRunStarting(const Catch::TestRunInfo& info) override {
    directory_ = std::filesystem::temp_directory_path() / ("catenary_tests_" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
    ::setenv("TMPDIR", directory_.c_str(), 1);
    TestEventListenerBase::testRunStarting(info);
  }

  void testRunEnded(const Catch::TestRunStats& stats) override {
    std::error_code ignored;
    if (stats.totals.assertions.failed == 0)
      std::filesystem::remove_all(directory_, ignored);
    else
      std::fprintf(stderr, "the tests' files are kept in %s\n", directory_.c_str());
    TestEventListenerBase::testRunEnded(stats);
  }

 private:
  std::filesystem::path directory_;
};

}  // namespace

CATCH_REGISTER_LISTENER(OwnTemporaryDirectory)
