#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "catenary/core/errors.hpp"
#include "catenary/core/state_record.hpp"

namespace catenary {

namespace {

constexpr size_t kGatherBytes = size_t(1) << 20;

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw OutputError(what + " " + path + ": " + std::strerror(error));
}

// Writes all of text at offset `at` (pwrite, repeated while the system takes part of it); the
// errno of a failure, else 0.
int write_all(int fd, const std::string& text, off_t at) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, at + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot open for writing", path_, errno);
}

OutputFile::OutputFile(std::string path, off_t keep) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0)
    throw CheckpointError(path_ + ": cannot be opened to resume its run (" + std::strerror(errno) +
                          "): the outputs are not those the checkpoint was written with");
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || st.st_size < keep) {
    ::close(fd_);
    throw CheckpointError(path_ + ": holds fewer bytes than when the checkpoint was written: the outputs are not "
                          "those the checkpoint was written with");
  }
  if (::ftruncate(fd_, keep) != 0) {
    const int error = errno;
    ::close(fd_);
    fail("cannot cut back", path_, error);
  }
  size_ = keep;
}

OutputFile::~OutputFile() { ::close(fd_); }

void OutputFile::add(std::string_view text) {
  pending_ += text;
  if (pending_.size() >= kGatherBytes) flush();
}

void OutputFile::flush() {
  if (pending_.empty()) return;
  if (const int error = write_all(fd_, pending_, size_)) {
    // A part written before the failure would leave the file ending inside a line: cut it off.
    // (A device such as /dev/full cannot be cut; it holds nothing to keep whole.)
    (void)::ftruncate(fd_, size_);
    pending_.clear();
    fail("error writing", path_, error);
  }
  size_ += static_cast<off_t>(pending_.size());
  pending_.clear();
}

void OutputFile::sync() {
  flush();
  if (::fsync(fd_) != 0) fail("error syncing", path_, errno);
}

void write_atomically(const std::string& path, const std::function<void(OutputFile&)>& fill) {
  const std::string temp = path + ".tmp";
  try {
    OutputFile f(temp);
    fill(f);
    f.flush();
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temp.c_str());
    fail("cannot rename " + temp + " to", path, error);
  }
}

void write_atomically(const std::string& path, const std::string& content) {
  write_atomically(path, [&](OutputFile& f) { f.add(content); });
}

void replace_tail(const std::string& path, const std::string& tail, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open for writing", path, errno);
  struct stat st {};
  int error = ::fstat(fd, &st) != 0 ? errno : 0;
  const off_t at = st.st_size - static_cast<off_t>(tail.size());
  if (!error && at < 0) error = EINVAL;
  if (!error && (error = write_all(fd, text, at)) != 0) {
    (void)write_all(fd, tail, at);  // within the file's old size: needs no new space
    (void)::ftruncate(fd, st.st_size);
  }
  ::close(fd);
  if (error) fail("error writing", path, error);
}

void create_directory(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path))
    throw std::runtime_error("cannot create output directory " + path +
                             (ec ? ": " + ec.message() : std::string(": not a directory")));
}

}  // namespace catenary
