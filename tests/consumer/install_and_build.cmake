# Installs the catenary build BUILD_DIR into SCRATCH/prefix, then configures and builds the
# consumer project (tests/consumer) against it with find_package(catenary) and runs its programs
# on shipped cases; with PYTHON and PYTHON_DIR (the package's directory under the prefix), imports
# the installed Python package and checks a case with it. Run by ctest (installed_package_consumer)
# with cmake -P.
file(REMOVE_RECURSE ${SCRATCH})
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${what} failed (${code}):\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()
run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${SCRATCH}/prefix)
set(cuda_hint "")
if(CUDA_COMPILER)
  get_filename_component(cuda_bin ${CUDA_COMPILER} DIRECTORY)
  get_filename_component(cuda_root ${cuda_bin} DIRECTORY)
  set(cuda_hint -DCUDAToolkit_ROOT=${cuda_root})
endif()
# The build's own compiler and linker flags (a sanitizer build's libraries need its runtime).
run_step("configure" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${SCRATCH}/build
         -DCMAKE_PREFIX_PATH=${SCRATCH}/prefix -DCMAKE_BUILD_TYPE=Release ${cuda_hint}
         "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}")
run_step("build" ${CMAKE_COMMAND} --build ${SCRATCH}/build)
run_step("run" ${SCRATCH}/build/consumer ${SOURCE_DIR}/cases/falling_cable_pendulum.json)
run_step("run the coupling library" ${SCRATCH}/build/coupling_consumer ${SOURCE_DIR}/cases/oc3_coupled_platform.json)
if(PYTHON)
  get_filename_component(packages ${SCRATCH}/prefix/${PYTHON_DIR} DIRECTORY)
  run_step("import the Python package" ${CMAKE_COMMAND} -E env PYTHONPATH=${packages}
           ${PYTHON} -c "import sys, catenary; print(catenary.Case.load(sys.argv[1]).check()['dof_count'])"
           ${SOURCE_DIR}/cases/hanging_cable.json)
endif()
