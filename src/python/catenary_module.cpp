// The compiled part of the Python module (python/catenary): a case's text checked and run by the
// same library calls as the command line, its frames handed to Python as numpy arrays, and the
// coupled run. Errors become the module's exceptions with the command line's messages
// (python/catenary/__init__.py defines them and the Python-side API).
#include <pybind11/complex.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <climits>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "catenary/core/errors.hpp"
#include "catenary/core/thread_budget.hpp"
#include "catenary/io/directory_lock.hpp"
#include "catenary/io/output_writer.hpp"
#include "catenary/model/case_loader.hpp"
#include "catenary/run/coupled_run.hpp"
#include "catenary/run/run_case.hpp"
#include "catenary/run/run_sweep.hpp"

namespace py = pybind11;
using namespace catenary;

namespace {

// The run's threads: `threads` > 0 as given, else the environment's grant for a model of this size
// (core/thread_budget.hpp), as the command line chooses them.
void set_threads(int threads, const std::vector<SweepCase>& cases) {
  long unknowns = 0;
  for (const SweepCase& copy : cases) unknowns += copy.c.model.dof_count() + copy.c.model.constraint_count();
  use_threads(choose_threads(threads, read_thread_environment(), unknowns, [] { return idle_cpus(50); }).threads);
}

// What Python needs to find a body's coordinates in a frame.
py::dict layout_of(const Case& c) {
  py::dict out;
  const Model& m = c.model;
  out["dimension"] = m.dimension;
  out["dof_count"] = m.dof_count();
  out["constraint_count"] = m.constraint_count();
  out["element_count"] = m.elements.size();
  py::list bodies;
  for (const Body& b : m.bodies) bodies.append(py::dict(py::arg("name") = b.name, py::arg("first_node") = b.first_node,
                                                        py::arg("node_count") = b.node_count));
  out["bodies"] = bodies;
  py::list rigid;
  for (size_t k = 0; k < m.mechanism.bodies.size(); ++k)
    rigid.append(py::dict(py::arg("name") = m.mechanism.bodies[k].name,
                          py::arg("first_coordinate") = m.rigid_offset() + 7 * static_cast<int>(k)));
  out["rigid_bodies"] = rigid;
  return out;
}

py::dict check(const std::string& text, const std::string& path) {
  const std::vector<SweepCase> cases = load_cases_from_text(text, path);
  py::dict out = layout_of(cases.front().c);
  out["copies"] = cases.size();
  return out;
}

// A frame's rows as numpy: rows of F frames by n values.
py::array_t<double> stacked(const std::vector<Eigen::VectorXd>& rows) {
  const py::ssize_t n = rows.empty() ? 0 : rows.front().size();
  py::array_t<double> out({static_cast<py::ssize_t>(rows.size()), n});
  auto view = out.mutable_unchecked<2>();
  for (size_t f = 0; f < rows.size(); ++f)
    for (py::ssize_t i = 0; i < n; ++i) view(static_cast<py::ssize_t>(f), i) = rows[f][i];
  return out;
}

// Runs a case (no sweep) into `directory` and returns its frames: time, q, v, lambda, the energies,
// and results.csv's header and rows as the writer wrote them (the columns computed once, there).
py::dict run(const std::string& text, const std::string& path, const std::string& directory, const std::string& backend,
             int threads) {
  const std::vector<SweepCase> cases = load_cases_from_text(text, path);
  if (cases.front().sweep_size > 1) throw std::logic_error("run: a sweep runs with run_sweep");
  set_threads(threads, cases);
  const Case& c = cases.front().c;
  const SelectedBackend selected = make_backend(parse_backend_choice(backend), c.model, c.analysis);
  std::vector<double> time, kinetic, gravitational, elastic;
  std::vector<Eigen::VectorXd> q, v, lambda;
  std::vector<std::string> rows;
  std::string header;
  AnalysisRun outcome;
  {
    py::gil_scoped_release release;
    const DirectoryLock lock(directory);
    OutputWriter writer(c, directory);
    const FrameSink sink = [&](const Frame& f) {
      time.push_back(f.time);
      q.push_back(*f.q);
      v.push_back(f.v ? *f.v : Eigen::VectorXd::Zero(f.q->size()));
      lambda.push_back(f.lambda ? *f.lambda : Eigen::VectorXd::Zero(c.model.constraint_count()));
      kinetic.push_back(f.kinetic_energy);
      gravitational.push_back(f.gravitational_energy);
      elastic.push_back(f.elastic_energy);
      rows.push_back(writer.last_results_row());
    };
    outcome = run_case(c, *selected.backend, writer, nullptr, nullptr, &sink);
    header = writer.results_header();
  }
  py::dict out = layout_of(c);
  out["backend"] = selected.backend->name();
  out["notice"] = selected.notice;
  out["status"] = outcome.summary.status;
  out["message"] = outcome.summary.message;
  out["time"] = py::array_t<double>(static_cast<py::ssize_t>(time.size()), time.data());
  out["q"] = stacked(q);
  out["v"] = stacked(v);
  out["lambda"] = stacked(lambda);
  out["kinetic"] = py::array_t<double>(static_cast<py::ssize_t>(kinetic.size()), kinetic.data());
  out["gravitational"] = py::array_t<double>(static_cast<py::ssize_t>(gravitational.size()), gravitational.data());
  out["elastic"] = py::array_t<double>(static_cast<py::ssize_t>(elastic.size()), elastic.data());
  out["header"] = header;
  out["rows"] = rows;
  // An eigen analysis's modes: eigenvalues (1/s) and shapes (modes by coordinates), complex.
  const std::vector<LinearMode>& modes = outcome.modes.modes;
  py::array_t<std::complex<double>> eigenvalues(static_cast<py::ssize_t>(modes.size()));
  py::array_t<std::complex<double>> shapes({static_cast<py::ssize_t>(modes.size()),
                                            static_cast<py::ssize_t>(c.model.dof_count())});
  auto shape_view = shapes.mutable_unchecked<2>();
  for (size_t k = 0; k < modes.size(); ++k) {
    eigenvalues.mutable_at(static_cast<py::ssize_t>(k)) = modes[k].eigenvalue;
    for (int i = 0; i < c.model.dof_count(); ++i) shape_view(static_cast<py::ssize_t>(k), i) = modes[k].shape[i];
  }
  out["eigenvalues"] = eigenvalues;
  out["mode_shapes"] = shapes;
  return out;
}

// Runs a sweep's copies into `directory` (sweep.json, sweep.csv, copy_NNNN/); the failed copies.
std::vector<size_t> run_sweep_cases(const std::string& text, const std::string& path, const std::string& directory,
                                    const std::string& backend, int threads) {
  const std::vector<SweepCase> cases = load_cases_from_text(text, path);
  set_threads(threads, cases);
  SweepObserver quiet;
  py::gil_scoped_release release;
  return run_sweep(cases, path, directory, "directory", parse_backend_choice(backend), quiet).failed;
}

// A coupled run over a case's text (python/catenary: CoupledRun).
class PyCoupledRun {
 public:
  PyCoupledRun(const std::string& text, const std::string& path, const std::string& backend,
               const std::string& directory)
      : run_(single_case(text, path), parse_backend_choice(backend), directory) {}
  std::vector<std::string> bodies() const { return run_.coupled_bodies(); }
  void initialize(bool static_equilibrium) { run_.initialize(static_equilibrium); }
  void advance(double t_next, const Eigen::VectorXd& motion, const Eigen::VectorXd& rates) {
    const size_t n = 6 * run_.coupled_bodies().size();
    if (static_cast<size_t>(motion.size()) != n || static_cast<size_t>(rates.size()) != n)
      throw std::invalid_argument("advance: the motion and its rates need " + std::to_string(n) +
                                  " values each (six per coupled body), got " + std::to_string(motion.size()) +
                                  " and " + std::to_string(rates.size()));
    run_.advance(t_next, motion.data(), rates.data());
  }
  double time() const { return run_.time(); }
  std::vector<double> loads() const { return run_.loads(); }
  StateRecord save() const { return run_.save(); }
  void restore(const StateRecord& record) { run_.restore(record); }

 private:
  static Case single_case(const std::string& text, const std::string& path) {
    std::vector<SweepCase> cases = load_cases_from_text(text, path);
    if (cases.size() > 1) throw InputError(path, "/sweep", "a coupled run takes a case without a sweep");
    return std::move(cases.front().c);
  }
  CoupledRun run_;
};

}  // namespace

PYBIND11_MODULE(_catenary, m) {
  m.doc() = "catenary's compiled core; use the catenary package";
  // The exceptions python/catenary defines are set here by catenary/__init__.py before any call.
  static py::object input_error, simulation_error, output_error;
  m.def("_set_exceptions", [](py::object input, py::object simulation, py::object output) {
    input_error = std::move(input);
    simulation_error = std::move(simulation);
    output_error = std::move(output);
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    } catch (const ModelError& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    } catch (const CheckpointError& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    } catch (const BackendUnavailable& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    } catch (const SimulationError& e) {
      PyErr_SetString(simulation_error.ptr(), e.what());
    } catch (const OutputError& e) {
      PyErr_SetString(output_error.ptr(), e.what());
    } catch (const std::logic_error& e) {  // a bad argument or call order: bad input, as the C API says
      PyErr_SetString(input_error.ptr(), e.what());
    }
  });
  m.def("check", &check, py::arg("text"), py::arg("path"));
  m.def("run", &run, py::arg("text"), py::arg("path"), py::arg("directory"), py::arg("backend"), py::arg("threads"));
  m.def("run_sweep", &run_sweep_cases, py::arg("text"), py::arg("path"), py::arg("directory"), py::arg("backend"),
        py::arg("threads"));
  py::class_<StateRecord>(m, "State");
  py::class_<PyCoupledRun>(m, "CoupledRun")
      .def(py::init<const std::string&, const std::string&, const std::string&, const std::string&>())
      .def("bodies", &PyCoupledRun::bodies)
      .def("initialize", &PyCoupledRun::initialize)
      .def("advance", &PyCoupledRun::advance)
      .def("time", &PyCoupledRun::time)
      .def("loads", &PyCoupledRun::loads)
      .def("save", &PyCoupledRun::save)
      .def("restore", &PyCoupledRun::restore);
}
