// Catch's own main, with doubles printed to 17 decimals instead of 10: a check such as
// "difference < 1e-12" that fails then shows the difference (10 decimals print it as 0.0). The
// precision is set while the program starts, before Catch's main runs the tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

namespace {
const bool doubles_in_full = (Catch::StringMaker<double>::precision = 17, true);
}  // namespace
