#!/usr/bin/env bash
# Packs what a bare device machine (the `device` tool's; it has the CUDA toolkit and driver but
# no SuiteSparse, BLAS or Catch2) needs to run scripts/gpu_session.sh from executables built here:
# the build's catenary, catenary_tests, catenary_benchmark, catenary_chain_solver_benchmark,
# catenary_element_pass_benchmark and catenary_transfer_benchmark, the shared libraries they load
# that the device image lacks (SuiteSparse, BLAS/LAPACK, gfortran, OpenMP), and the source path
# compiled into the tests (they find cases/ and the catenary binary there).
#
#   scripts/pack_for_device.sh [-b BUILD_DIR] [-o PACK_DIR]
#
#   -b BUILD_DIR  a CATENARY_CUDA=ON build for sm_90 (default build)
#   -o PACK_DIR   default device-pack (ignored by git); carry it with the device call and run
#                 scripts/gpu_session.sh -b PACK_DIR PART ... there
# Also writes PACK_DIR.tgz: the pack outgrew the 64 MiB a device call carries (85 MB at 5f0fc35,
# each executable holding its own sm_90 kernels; 26 MB gzipped). Carry the archive instead and
# begin the call with `tar -xzf PACK_DIR.tgz`.
#
# Left out on purpose: the C library and the C++ runtime (the image's are newer), and the CUDA
# libraries (the image's toolkit has the same major versions; they are far over the 64 MiB a
# call may carry).
set -euo pipefail

cd "$(dirname "$0")/.."
build_dir=build
pack_dir=device-pack
while [[ $# -gt 0 ]]; do
  case "$1" in
    -b) build_dir=$2; shift 2 ;;
    -o) pack_dir=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown option '$1'" >&2; exit 2 ;;
  esac
done

executables=("$build_dir/catenary" "$build_dir/tests/catenary_tests" "$build_dir/catenary_benchmark"
  "$build_dir/catenary_chain_solver_benchmark" "$build_dir/catenary_element_pass_benchmark"
  "$build_dir/catenary_transfer_benchmark")
for exe in "${executables[@]}"; do
  [[ -x "$exe" ]] || { echo "missing $exe: build $build_dir with -DCATENARY_CUDA=ON first" >&2; exit 1; }
done
grep -q "CATENARY_CUDA:BOOL=ON" "$build_dir/CMakeCache.txt" ||
  { echo "$build_dir is not a CUDA build (CATENARY_CUDA=ON)" >&2; exit 1; }

rm -rf "$pack_dir"
mkdir -p "$pack_dir/lib"
cp "${executables[@]}" "$pack_dir/"
# Shared libraries by soname, following links; skip the system runtime and CUDA's.
ldd "${executables[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    case "$soname" in
      linux-vdso*|ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libstdc++*|libgcc_s*) ;;
      libcu*|libnv*) ;;
      *) cp -L "$path" "$pack_dir/lib/$soname" ;;
    esac
  done
sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build_dir/CMakeCache.txt" > "$pack_dir/source_dir"
realpath "$build_dir/catenary" > "$pack_dir/binary_path"  # where the tests look for the CLI
git rev-parse --short HEAD > "$pack_dir/commit" 2>/dev/null || true
tar -czf "$pack_dir.tgz" "$pack_dir"
echo "packed $(du -sh "$pack_dir" | cut -f1) into $pack_dir, $(du -sh "$pack_dir.tgz" | cut -f1) as $pack_dir.tgz" \
  "(source path $(cat "$pack_dir/source_dir"))"
