#pragma once
// Running the built `catenary` command from the tests, in the foreground or in the background (to
// signal it while it runs).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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

// The program words[0] with arguments words[1..] started in the background, with the environment
// and `extra_environment` ("NAME=VALUE"), its stdout and stderr into log; its process id.
inline pid_t start_process(std::vector<std::string> words, const std::vector<std::string>& extra_environment,
                           const std::filesystem::path& log) {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::vector<std::string> variables = extra_environment;
  for (char** v = environ; *v; ++v) variables.emplace_back(*v);
  std::vector<char*> envp;
  for (std::string& v : variables) envp.push_back(v.data());
  envp.push_back(nullptr);
  const std::string log_path = log.string();
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

// `catenary ARGS` started in the background, its stdout and stderr into log; its process id.
inline pid_t start_catenary(const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::vector<std::string> words = {CATENARY_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  return start_process(std::move(words), {}, log);
}

// Whether `ready` came true, checked every 20 ms for at most 60 s.
inline bool wait_until(const std::function<bool()>& ready) {
  for (int k = 0; k < 3000; ++k) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// How the process ended: its exit code, or 1000 + the signal that killed it.
inline int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

inline int count_lines(const std::filesystem::path& p) {
  std::ifstream in(p);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace catenary::testing
