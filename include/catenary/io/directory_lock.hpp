#pragma once
// An advisory lock (flock(2), without waiting) on a lock file in an output directory, held while a
// run writes there: a second run into the directory is refused before it writes anything, rather
// than mixing its files with the first's. The lock ends with the process however it ends; the
// lock file stays.
#include <string>

namespace catenary {

class DirectoryLock {
 public:
  // Shared: runs that write apart from each other into one directory (the parts of a sweep, each
  // also holding an exclusive lock of its own name) hold it together, refusing a run that needs
  // the directory alone.
  enum class Kind { Exclusive, Shared };
  static constexpr const char* kFileName = ".catenary.lock";
  // Creates the directory where missing and locks its file `name`. Throws std::runtime_error
  // naming the directory when another run holds the lock, or when the lock cannot be made.
  explicit DirectoryLock(const std::string& directory, Kind kind = Kind::Exclusive,
                         const std::string& name = kFileName);
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock();

 private:
  int fd_ = -1;
};

}  // namespace catenary
