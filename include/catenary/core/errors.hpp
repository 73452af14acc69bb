#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace catenary {

// Bad input: the file, the JSON path and the rule broken. Exit code 2.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string json_path, const std::string& rule)
      : std::runtime_error(file + ": " + (json_path.empty() ? std::string("(document)") : json_path) +
                           ": " + rule),
        file_(std::move(file)), json_path_(std::move(json_path)), rule_(rule) {}
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string file_, json_path_, rule_;
};

// A model that cannot be built as asked (raised by the builders, re-thrown as InputError with the
// JSON path by the loader).
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A simulation that failed (Newton divergence, singular matrix, NaN). Exit code 3.
class SimulationError : public std::runtime_error {
 public:
  explicit SimulationError(const std::string& what, int dof = -1, std::vector<int> unsettled_dofs = {})
      : std::runtime_error(what), dof_(dof), unsettled_dofs_(std::move(unsettled_dofs)) {}
  // The coordinate where a failed Newton iteration was furthest off (its last update's largest
  // weighted entry, or the residual's first entry that is not finite); -1 where the failure has
  // no place (a singular matrix, a static analysis, the initial state, a device fault).
  int dof() const { return dof_; }
  // Every coordinate the failed iteration left unsettled: its last update's entries above the
  // tolerance (or not finite), or the residual's entries that are not finite. A sweep's batch
  // takes the copies holding them out at once (src/cli/sweep_run.cpp). Empty where dof() is -1.
  const std::vector<int>& unsettled_dofs() const { return unsettled_dofs_; }

 private:
  int dof_;
  std::vector<int> unsettled_dofs_;
};

// A result file that could not be written (a full disk, a file that cannot be opened): the message
// names the file and the system's reason. Exit code 4.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A backend that was asked for and cannot be used (no CUDA driver or device, not enough device
// memory, a build without CUDA). Exit code 2, like bad input: the request cannot be met.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace catenary
