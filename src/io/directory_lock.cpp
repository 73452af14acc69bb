#include "catenary/io/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "output_file.hpp"

namespace catenary {

DirectoryLock::DirectoryLock(const std::string& directory, Kind kind, const std::string& name) {
  create_directory(directory);
  const std::string path = (std::filesystem::path(directory) / name).string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot make the lock file " + path + ": " + std::strerror(errno));
  if (::flock(fd_, (kind == Kind::Exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) return;
  const int error = errno;
  ::close(fd_);
  if (error == EWOULDBLOCK)
    throw std::runtime_error("the output directory " + directory + " is in use by another catenary run (it holds " +
                             path + "); wait for it to end, or write elsewhere");
  throw std::runtime_error("cannot lock " + path + ": " + std::strerror(error));
}

DirectoryLock::~DirectoryLock() { ::close(fd_); }

}  // namespace catenary
