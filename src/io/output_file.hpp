#pragma once
// Result files written through POSIX calls: a failure names the file and the system's reason
// (strerror(errno)) in an OutputError, and a frame's text reaches its file in one write(2), so that
// a run killed between two frames leaves whole lines and a file cut short by a full disk is cut
// back to its last whole frame.
#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>

namespace catenary {

class OutputFile {
 public:
  // Opens path for writing, emptied (created where missing).
  explicit OutputFile(std::string path);
  // Opens the existing file at path to write on after its first `keep` bytes, cutting off the rest
  // (a resumed run's outputs, back to its checkpoint); CheckpointError where the file is missing or
  // holds fewer bytes.
  OutputFile(std::string path, off_t keep);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();
  // Adds text to what flush() writes (written on its own once a megabyte has gathered).
  void add(std::string_view text);
  // Writes what was added, in one write(2) unless the system takes part of it at a time. Where it
  // fails, the file is cut back to what it held before and OutputError is thrown.
  void flush();
  // Flushes, then waits until the system has the file on its disk (fsync).
  void sync();
  const std::string& path() const { return path_; }
  // Bytes written (flushed) so far.
  off_t size() const { return size_; }

 private:
  int fd_ = -1;
  std::string path_, pending_;
  off_t size_ = 0;  // bytes in the file, all whole
};

// Writes the whole file under path + ".tmp" by `fill`, then renames it to path, so that a reader,
// or a run that dies, never sees part of it at path. A failure removes the temporary file.
void write_atomically(const std::string& path, const std::function<void(OutputFile&)>& fill);
void write_atomically(const std::string& path, const std::string& content);

// Replaces the last tail.size() bytes of the existing file path, which must be `tail`, by `text`;
// where the write fails, puts tail back and throws OutputError (the file stays as it was).
void replace_tail(const std::string& path, const std::string& tail, const std::string& text);

// Creates the directory and its parents where missing; std::runtime_error naming it where it cannot.
void create_directory(const std::string& path);

}  // namespace catenary
