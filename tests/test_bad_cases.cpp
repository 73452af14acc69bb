// Every file in tests/bad_cases breaks one rule of the case format. load_case must throw an
// InputError pointing at the offending value, and `catenary check FILE` must exit with status 2.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "catenary/core/errors.hpp"
#include "catenary/model/case_loader.hpp"

namespace {

struct BadCase {
  const char* file;     // in tests/bad_cases, without .json
  const char* path;     // expected InputError::json_path (exact)
  const char* message;  // fragment expected in InputError::rule
};

const BadCase kBadCases[] = {
    {"sweep_outside_model", "/sweep/parameters/0/path", "must point into /model (got '/analysis/alpha')"},
    {"sweep_missing_value", "/sweep/parameters/0/path", "no value at '/model/materials/polymer/poisson_ratio'"},
    {"sweep_length_mismatch", "/sweep/parameters/1/values", "has 2 values, the first parameter 3"},
    {"sweep_log_range_through_zero", "/sweep/parameters/0/values",
     "a log range needs ends of one sign, neither zero (from -1e+07 to 1e+09)"},
    {"sweep_unknown_combine", "/sweep/combine", "must be \"together\" or \"grid\" (got \"product\")"},
    {"sweep_range_sizes_differ", "/sweep/parameters/0/values/to", "must have as many numbers as \"from\" (3)"},
    {"sweep_range_zero_count", "/sweep/parameters/0/values/count", "must be an integer from 1 to 10000000"},
    {"sweep_bad_copy", "/model/materials/polymer/youngs_modulus", "(in sweep copy 1: youngs_modulus = -2e+08"},
    {"bad_max_order", "/analysis/max_order", "must be an integer from 1 to 5 (got 6)"},
    {"eigen_zero_modes", "/analysis/modes", "must be a positive integer (got 0)"},
    {"euler_angle_columns_without_bodies", "/output/euler_angles",
     "the model has no rigid bodies (/model/rigid_bodies) to give angles of"},
    {"eigen_about_unknown", "/analysis/about", "unknown state to linearize about 'sideways' (expected one of: given, static)"},
    {"eigen_step_given", "/analysis/step", "unknown key 'step' (allowed keys here: type, modes, shift, about"},
    {"eigen_negative_amplitude", "/analysis/mode_amplitude", "must be positive (got -0.1)"},
    {"contact_negative_radius", "/model/contacts/0/radius", "must be zero or positive (got -0.05)"},
    {"contact_negative_friction", "/model/contacts/0/friction/axial", "must be zero or positive (got -0.3)"},
    {"contact_restitution_above_one", "/model/contacts/0/law/restitution", "must lie in [0, 1] (got 1.2)"},
    {"contact_missing_body", "/model/contacts/0/bodies/0", "unknown body 'lien' (cables, beams and rigid bodies: line)"},
    {"rigid_contact_missing_body", "/model/contacts/0/bodies/0", "unknown body 'bal' (did you mean 'ball'?"},
    {"shape_negative_radius", "/model/rigid_bodies/0/shapes/0/radius", "must be positive (got -0.1)"},
    {"impact_restitution_above_one", "/model/contacts/0/law/restitution", "must lie in [0, 1] (got 1.5)"},
    {"clearance_bearing_inside_journal", "/model/joints/2/clearance/bearing_radius",
     "must exceed the journal radius 0.01 (the clearance is their difference; got 0.009)"},
    {"clearance_negative_friction", "/model/joints/2/clearance/friction/static", "must be zero or positive (got -0.1)"},
    {"contact_exponent_below_one", "/model/contacts/0/law/exponent", "must be at least 1 (got 0.5)"},
    {"contact_zero_normal", "/model/contacts/0/normal", "must be a nonzero vector"},
    {"contact_grid_rows_differ", "/model/contacts/0/heights/1",
     "has 2 heights, the first row 3 (every row holds the same nodes along x)"},
    {"contact_cylinder_without_radius", "/model/contacts/0/cylinder_radius", "required field is missing"},
    {"contact_unknown_type", "/model/contacts/0/type",
     "unknown contact type 'sphere' (expected one of: plane, cylinder, grid, shape)"},
    {"table_times_repeat", "/model/constraints/1/displacement/z",
     "the table's samples: the times must increase: sample 2 at 1.000000 s follows 1.000000 s"},
    {"table_unknown_column", "/model/constraints/1/displacement/z/column",
     "has no column 'heav' (did you mean 'heave'? its columns after the time: surge, heave)"},
    {"motion_empty", "/model/rigid_bodies/0/motion", "must prescribe at least one of x, y, z, roll, pitch, yaw"},
    {"initial_state_unknown", "/analysis/initial_state", "unknown initial state 'statics' (did you mean 'static'?"},
    {"initial_state_zero_load_steps", "/analysis/initial_state/load_steps", "must be a positive integer (got 0)"},
    {"shape_contact_unknown_rigid_body", "/model/contacts/0/rigid_body", "unknown rigid body 'sheav' (did you mean 'sheave'?"},
    {"shape_contact_unknown_shape", "/model/contacts/0/shapes/1",
     "rigid body 'sheave' has no shape 'thread' (did you mean 'tread'?"},
    {"shape_contact_negative_friction", "/model/contacts/0/friction/axial", "must be zero or positive (got -0.3)"},
    {"shape_contact_body_without_shapes", "/model/contacts/0/rigid_body",
     "rigid body 'load' has no shapes for the cables to touch"},
    {"contact_body_twice", "/model/contacts/1/bodies/0",
     "body 'line' already touches the contact at /model/contacts/0 (a body touches one surface)"},
    {"max_order_with_hht", "/analysis/max_order",
     "is a parameter of the bdf integrator; this analysis uses hht (the default), whose parameter is 'alpha'"},
    {"coefficients_with_generalized_alpha", "/analysis/coefficients",
     "is a parameter of the bdf integrator; this analysis uses generalized_alpha, whose parameter is 'rho_infinity'"},
    {"bdf_unknown_coefficients", "/analysis/coefficients",
     "unknown BDF coefficient form 'fixd' (did you mean 'fixed'?"},
    {"bad_rho_infinity", "/analysis/rho_infinity", "must be between 0 and 1 (got 1.2)"},
    {"unknown_newton", "/analysis/newton", "unknown Newton method 'modifed' (did you mean 'modified'?"},
    {"float_factors_not_boolean", "/analysis/float_factors", "must be true or false (got string)"},
    {"alpha_with_generalized_alpha", "/analysis/alpha",
     "is a parameter of the hht integrator; this analysis uses generalized_alpha, whose parameter is 'rho_infinity'"},
    {"baumgarte_with_hht", "/analysis/baumgarte",
     "is a parameter of the rk4, dopri5 and abam integrators; this analysis uses hht, whose parameter is 'alpha'"},
    {"negative_baumgarte_alpha", "/analysis/baumgarte/alpha", "must be zero or positive (got -5)"},
    {"abam_order_six", "/analysis/order", "must be an integer from 1 to 5 (got 6)"},
    {"partitioning_with_baumgarte", "/analysis/baumgarte",
     "sets Baumgarte's terms, which \"constraints\": \"partitioning\" replaces"},
    {"rho_infinity_with_hht", "/analysis/rho_infinity",
     "is a parameter of the generalized_alpha integrator; this analysis uses hht (the default)"},
    {"unknown_integrator", "/analysis/integrator",
     "unknown integrator 'generalised_alpha' (did you mean 'generalized_alpha'?"},
    {"missing_field", "/model/bodies/0/elements", "required field is missing"},
    {"missing_name", "/name", "required field is missing"},
    {"missing_analysis", "/analysis", "required field is missing"},
    {"mistyped_key", "/model/bodies/0/lenght", "unknown key 'lenght' (did you mean 'length'?"},
    {"wrong_type", "/model/bodies/0/elements", "must be a positive integer (got string)"},
    {"zero_elements", "/model/bodies/0/elements", "must be a positive integer"},
    {"unknown_element", "/model/bodies/0/element", "unknown element type 'cable2d'"},
    {"element_dimension_mismatch", "/model/bodies/0/element", "needs a model of dimension 2"},
    {"unknown_constraint", "/model/constraints/0/type",
     "unknown constraint type 'hindge' (did you mean 'hinge'? expected one of: fix, spherical, hinge, rigid, "
     "revolute, prescribed)"},
    {"node_index_out_of_range", "/model/constraints/0/node/index", "node index 11 is out of range"},
    {"negative_node_index_out_of_range", "/model/constraints/0/node/index", "node index -12 is out of range"},
    {"unknown_body", "/model/constraints/0/node/body", "unknown body 'cabel'"},
    {"negative_length", "/model/bodies/0/length", "must be positive"},
    {"length_shorter_than_chord", "/model/bodies/0/length", "must not be shorter than the distance"},
    {"zero_modulus", "/model/materials/steel/youngs_modulus", "must be positive"},
    {"negative_density", "/model/materials/steel/density", "must be positive"},
    {"negative_damping", "/model/materials/steel/damping", "must be zero or positive"},
    {"zero_diameter", "/model/sections/rod/diameter", "must be positive"},
    {"unknown_material", "/model/bodies/0/material", "unknown material 'steal'"},
    {"zero_length_element", "/model/bodies/0/positions/2", "zero-length element"},
    {"not_json", "", "not valid JSON: parse error at line 5, column 3"},
    {"duplicate_key", "/name", "duplicate key 'name'"},
    {"redundant_fix", "/model/constraints/1",
     "constraint 'again' (fix at /model/constraints/1) is redundant with or contradicts earlier constraints: it "
     "is redundant with 'constraints[0]' (fix at /model/constraints/0)"},
    {"contradictory_spherical", "/model/constraints/1",
     "it contradicts 'pin_a' (spherical at /model/constraints/0): coordinate(s) 'y' are required to take "
     "different values"},
    {"redundant_chain", "/model/constraints/2", "redundant with 'clamp' (fix at /model/constraints/0), 'weld'"},
    {"revolute_in_3d", "/model/constraints/1/type", "'revolute' is a planar joint for 2D models only"},
    {"hinge_in_2d", "/model/constraints/1/type", "'hinge' is for 3D models; in a 2D model use 'revolute'"},
    {"dimension_mismatch", "/model/gravity", "must be an array of 3 numbers"},
    {"dimension_mismatch_2d", "/model/bodies/0/start", "must be an array of 2 numbers"},
    {"angular_velocity_vector_in_2d", "/model/bodies/0/angular_velocity",
     "must be a number (the rotation rate about z of a planar model, rad/s) (got array)"},
    {"unknown_coordinate_2d", "/model/constraints/0/coordinates/2", "'z' does not exist in a 2D model"},
    {"hinge_same_node", "/model/constraints/1/nodes/1", "a joint needs two different nodes"},
    {"bad_alpha", "/analysis/alpha", "must be between -1/3 and 0"},
    {"zero_end_time", "/analysis/end_time", "must be positive"},
    {"bad_time_function", "/model/constraints/1/displacement/z/t1", "must be greater than t0"},
    {"unknown_time_function", "/model/constraints/1/displacement/z/type", "unknown time function type 'sine'"},
    {"load_dimension_mismatch", "/model/loads/0/force", "must be an array of 3 numbers"},
    {"unknown_load_type", "/model/loads/0/type", "unknown load type 'gravity'"},
    {"bad_output_node", "/output/nodes/0/index", "or \"start\" or \"end\" (got \"middle\")"},
    {"duplicate_constraint_name", "/model/constraints/1/name", "constraint name 'same' is already used"},
    {"joint_unknown_rigid_body", "/model/joints/0/body_j", "unknown rigid body 'bobb' (did you mean 'bob'?"},
    {"unknown_joint_type", "/model/joints/0/type", "unknown joint type 'revolut' (did you mean 'revolute'?"},
    {"zero_euler_parameters", "/model/rigid_bodies/0/orientation/euler_parameters", "have zero norm"},
    {"negative_rigid_mass", "/model/rigid_bodies/0/mass", "must be positive (got -2)"},
    {"unknown_linear_solver", "/analysis/linear_solver", "unknown linear solver 'cholesky'"},
    {"pinned_and_attached", "/model/attachments/0",
     "attachment 'hook' row 1 is redundant: at t = 0 s it repeats a combination of earlier rows of constraint 'tip pin', joint"},
    {"zero_assembly_weight", "/model/rigid_bodies/0/assembly_weight", "must be positive (got 0)"},
    {"inertia_not_positive_definite", "/model/rigid_bodies/0/inertia", "the inertia tensor must be positive definite"},
    {"rotation_driver_on_translational", "/model/drivers/0/rotation",
     "a rotation driver needs a joint that leaves a rotation about its axis h free; joint 'slide' is translational "
     "(drive it with \"translation\")"},
    {"driver_axis_not_free", "/model/drivers/0/axis",
     "a translational joint leaves no translation along its f axis free (free translation axes: h)"},
    {"rigid_bodies_in_2d", "/model/rigid_bodies", "need a 3D model, but /model/dimension is 2"},
    {"redundant_joints", "/model/joints/1", "joint 'pivot 2' row 0 is redundant"},
    {"attachment_node_out_of_range", "/model/attachments/0/node/index", "node index 20 is out of range for body 'rope'"},
    {"universal_not_perpendicular", "/model/joints/0/axis_j", "must be perpendicular to axis_i (the angle between them is 45"},
    {"kinematic_not_zero_dof", "/analysis/type", "needs a zero-DOF mechanism"},
    {"reflection_matrix", "/model/rigid_bodies/0/orientation/rotation_matrix", "is a reflection (determinant -1)"},
    {"name_is_a_path", "/name", "must be a name, not a path: no '/' or '\\', and not '.' or '..' (got '../../escaped'"},
    {"name_is_dot_dot", "/name", "must be a name, not a path"},
    {"name_with_nul", "/model/bodies/0/name", "must not contain control characters (got 'be\\x00am', one at character 2)"},
    {"number_beyond_double", "/model/materials/steel/youngs_modulus",
     "a number beyond the range of double precision (largest 1.8e308), at line 7"},
    {"integer_beyond_double", "/model/materials/steel/density", "a number beyond the range of double precision"},
    {"nested_too_deep", "/model/bodies/0/note/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0",
     "nested deeper than 64 arrays and objects (line 94)"},
    {"water_missing", "/model/sections/link/hydrodynamics", "needs the water the line is in: /model/water is missing"},
    {"water_without_lines", "/model/water", "no line is in the water: give the sections of the lines in it 'hydrodynamics'"},
    {"water_waves_without_depth", "/model/water/depth", "required field is missing"},
    {"water_profile_not_increasing", "/model/water/current/profile/1/height", "must be above the previous point's height"},
    {"water_jonswap_gamma", "/model/water/waves/gamma", "must be in [1, 7], where the JONSWAP form holds"},
    {"water_negative_drag", "/model/sections/link/hydrodynamics/drag_normal", "must be zero or positive (got -1)"},
    {"water_current_both", "/model/water/current", "must give either 'velocity' or 'profile'"},
    {"water_waves_without_gravity", "/model/water/waves", "waves need gravity: /model/gravity is missing or zero"},
    {"touchdown_without_contact", "/output/touchdowns/0",
     "line 'cable' touches no contact surface (a touchdown needs one: /model/contacts)"},
    {"touchdown_unknown_line", "/output/touchdowns/0", "unknown body 'rope'"},
    {"statistic_unknown_column", "/output/statistics/0/column",
     "no column 'cable.end.q' in results.csv (did you mean 'cable.end.x'? columns: time, step,"},
    {"statistic_and_time", "/output/statistics/0", "must give either 'statistic' (\"max\", \"min\" or \"max_abs\") or 'at'"},
    {"statistic_unknown_kind", "/output/statistics/0/statistic", "unknown statistic 'mean'"},
    {"vtu_unknown_encoding", "/output/vtu_encoding",
     "unknown VTU encoding 'base64' (expected one of: binary, compressed, ascii)"},
    {"output_interval_too_small", "/output/interval",
     "implies 1e+20 output frames over end_time 1; at most max_steps = 1000000"},
    {"too_many_steps", "/analysis/step",
     "implies 2e+13 steps (end_time 20 / step 1e-12); the limit is max_steps = 1000000 (raise /analysis/max_steps"},
    {"end_time_beyond_steps", "/analysis/step", "implies 1e+303 steps"},
    {"too_many_load_steps", "/analysis/load_steps", "asks for 10000000 load steps; the limit is max_steps = 1000000"},
    {"min_step_cannot_advance", "/analysis/adaptive/min_step",
     "cannot advance the time: a step below 1e-12 end_time (1e-12) is lost to rounding (got 4.940656458e-324)"},
    {"sweep_overlapping_paths", "/sweep/parameters/1/path",
     "varies '/model/materials/polymer', which overlaps /sweep/parameters/0 ('/model/materials/polymer/youngs_modulus')"},
    {"sweep_index_beyond_size", "/sweep/parameters/0/path",
     "no value at '/model/bodies/99999999999999999999999/elements' in this case to vary"},
    {"model_beyond_memory", "/model/bodies", "the bodies ask for 1000000000 elements, which need about 558.8 GiB of memory to build"},
    {"impact_exponent_below_one", "/model/springs/0/impact/exponent", "must be at least 1 (got 0.5)"},
    {"impact_with_stiffness", "/model/springs/0/stiffness", "must not be given with \"impact\""},
    {"impact_zero_penetration", "/model/springs/0/impact/penetration", "must be positive (got 0)"},
    {"impact_negative_damping", "/model/springs/0/impact/max_damping", "must be zero or positive (got -1)"},
    {"impact_missing_stiffness", "/model/springs/0/impact/stiffness", "required field is missing"},
    {"step5_t1_not_after_t0", "/model/springs/0/actuator/t1", "must be greater than t0 (0.5)"},
    {"euler_angles_unknown_convention", "/model/rigid_bodies/0/orientation/convention",
     "unknown Euler angle convention '321'"},
    {"euler_angles_two_numbers", "/model/rigid_bodies/0/orientation/euler_angles",
     "must be an array of 3 numbers (a, b, c in radians) (got 2 numbers)"},
    {"euler_angles_without_convention", "/model/rigid_bodies/0/orientation/convention", "required field is missing"},
    {"sensitivity_unknown_objective", "/sensitivity/objectives/0/type", "unknown objective type 'stress'"},
    {"sensitivity_variable_outside_model", "/sensitivity/variables/0",
     "must point into /model (got '/analysis/load_steps'): a design variable is a value of the model"},
    {"sensitivity_dynamic_bdf", "/analysis/integrator",
     "sensitivities of a dynamic analysis are computed for the integrators \"hht\" and \"generalized_alpha\""},
    {"sensitivity_adjoint_with_friction", "/sensitivity/method",
     "the adjoint method solves with the static Newton matrix in place of its transpose, and contact friction makes "
     "it unsymmetric"},
    {"long_unknown_key", "/model/bodies/0/colourrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr",
     "unknown key 'colourrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr...' ("},
};

std::string bad_case_path(const char* name) {
  return std::string(CATENARY_SOURCE_DIR) + "/tests/bad_cases/" + name + ".json";
}

}  // namespace

TEST_CASE("every bad case file is rejected with its JSON path and rule", "[loader]") {
  for (const BadCase& bc : kBadCases) {
    const std::string file = bad_case_path(bc.file);
    INFO("bad case " << bc.file);
    bool thrown = false;
    try {
      catenary::load_cases(file);
    } catch (const catenary::InputError& e) {
      thrown = true;
      INFO("message: " << e.what());
      CHECK(e.file() == file);
      CHECK(e.json_path() == bc.path);
      CHECK(e.rule().find(bc.message) != std::string::npos);
      // what() carries all three parts for the command line.
      CHECK(std::string(e.what()).find(file) != std::string::npos);
      CHECK(std::string(e.what()).find(bc.message) != std::string::npos);
    }
    CHECK(thrown);
  }
}

TEST_CASE("the bad case table covers every file in tests/bad_cases", "[loader]") {
  // Guards against a bad case file that no test looks at, or a table entry without a file.
  std::set<std::string> files, listed;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CATENARY_SOURCE_DIR) + "/tests/bad_cases"))
    if (entry.path().extension() == ".json") files.insert(entry.path().stem().string());
  for (const BadCase& bc : kBadCases) listed.insert(bc.file);
  CHECK(files == listed);
  CHECK(listed.size() == sizeof(kBadCases) / sizeof(kBadCases[0]));
}

TEST_CASE("a missing case file is an input error", "[loader]") {
  const std::string file = std::string(CATENARY_SOURCE_DIR) + "/tests/bad_cases/does_not_exist.json";
  try {
    catenary::load_case(file);
    FAIL("no exception");
  } catch (const catenary::InputError& e) {
    CHECK(e.json_path().empty());
    CHECK(e.rule().find("cannot open the case file") != std::string::npos);
  }
}

TEST_CASE("catenary check exits with status 2 on every bad case", "[loader][cli]") {
  for (const BadCase& bc : kBadCases) {
    const std::string command =
        std::string("\"") + CATENARY_BINARY + "\" check \"" + bad_case_path(bc.file) + "\" > /dev/null 2>&1";
    INFO(command);
    const int status = std::system(command.c_str());
    REQUIRE(status != -1);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
  }
  const std::string missing = std::string("\"") + CATENARY_BINARY + "\" check \"" +
                              bad_case_path("does_not_exist") + "\" > /dev/null 2>&1";
  const int status = std::system(missing.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
}
