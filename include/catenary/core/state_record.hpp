#pragma once
// A run's state as named numbers, vectors and texts, kept bit for bit: what a checkpoint holds
// (io/checkpoint_file.hpp writes and reads it). Each part of a run (the step control, the time
// integrator, the output writer) puts its values under names of its own and reads them back when
// the run resumes.
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

namespace catenary {

// A checkpoint that cannot be resumed: not a checkpoint, another case's or version's, or one that
// lacks a value the run needs. Exit code 2, like bad input.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class StateRecord {
 public:
  void set(const std::string& key, double x) { numbers_[key] = x; }
  void set(const std::string& key, const Eigen::VectorXd& x) { vectors_[key] = x; }
  void set(const std::string& key, const std::string& x) { texts_[key] = x; }

  double number(const std::string& key) const { return find(numbers_, key, "number"); }
  // A count stored as a number: whole and within [0, 2^53].
  long count(const std::string& key) const {
    const double x = number(key);
    if (!(x >= 0.0 && x <= 9007199254740992.0 && std::floor(x) == x))
      throw CheckpointError("the checkpoint's '" + key + "' is not a count");
    return static_cast<long>(x);
  }
  // A vector of `size` entries.
  const Eigen::VectorXd& vector(const std::string& key, Eigen::Index size) const {
    const Eigen::VectorXd& x = find(vectors_, key, "vector");
    if (x.size() != size)
      throw CheckpointError("the checkpoint's '" + key + "' has " + std::to_string(x.size()) + " entries; this run has " +
                            std::to_string(size));
    return x;
  }
  // A vector of any size.
  const Eigen::VectorXd& vector(const std::string& key) const { return find(vectors_, key, "vector"); }
  const std::string& text(const std::string& key) const { return find(texts_, key, "text"); }

  const std::map<std::string, double>& numbers() const { return numbers_; }
  const std::map<std::string, Eigen::VectorXd>& vectors() const { return vectors_; }
  const std::map<std::string, std::string>& texts() const { return texts_; }

 private:
  template <class T>
  static const T& find(const std::map<std::string, T>& values, const std::string& key, const char* kind) {
    const auto it = values.find(key);
    if (it == values.end()) throw CheckpointError(std::string("the checkpoint has no ") + kind + " '" + key + "'");
    return it->second;
  }

  std::map<std::string, double> numbers_;
  std::map<std::string, Eigen::VectorXd> vectors_;
  std::map<std::string, std::string> texts_;
};

}  // namespace catenary
