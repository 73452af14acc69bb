// libFuzzer target: any bytes as a case file. The loader must load them or refuse them with an
// InputError; anything else (a crash, a sanitizer report, another exception, a hang, more memory
// than the limit below) is a defect, and the input that caused it becomes a file of
// tests/bad_cases or a test of its own. scripts/fuzz.sh builds and runs it.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/model/case_loader.hpp"

namespace {

// The case in an anonymous in-memory file, read through /proc like any other file.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : fd_(memfd_create("case.json", 0)) {
    for (std::size_t written = 0; fd_ >= 0 && written < size;) {
      const ssize_t n = write(fd_, data + written, size - written);
      if (n <= 0) break;
      written += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() {
    if (fd_ >= 0) close(fd_);
  }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const MemoryFile file(data, size);
  // Models and sweeps are held to 512 MiB, within the fuzzer's memory limit (scripts/fuzz.sh):
  // a large model is a valid case, and its refusal is what is fuzzed here.
  catenary::CaseLimits limits;
  limits.memory_bytes = 512.0 * (1 << 20);
  try {
    catenary::check_cases(file.path(), {}, limits);
  } catch (const catenary::InputError&) {
  }
  return 0;
}
