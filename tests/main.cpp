// Catch's runner, with doubles printed to 17 decimals instead of 10: a check such as
// "difference < 1e-12" that fails then shows the difference (10 decimals print it as 0.0).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
  Catch::StringMaker<double>::precision = 17;
  return Catch::Session().run(argc, argv);
}
