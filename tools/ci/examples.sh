#!/usr/bin/env bash
# Builds the programs of tools/examples against an installed tenport, the way an
# embedding code would: `meson install` of build/openmp into a staging folder (where
# bin/tenport must link to bin/tenport-openmp, and run), then
# cp_als_host.c compiled with `cc ... $(pkg-config --cflags --libs tenport)` and run, and
# built by CMake through find_package (tools/examples/cmake) and run.
# When nvcc exists, the same for build/cuda: cp_als_cuda.cu (and cp_als_host.c) compiled
# and linked against tenport-cuda, not run (no GPU needed).
#
# Usage: tools/ci/examples.sh              (CI, after tools/test.sh and tools/ci/gpu-compile.sh)
#        tools/ci/examples.sh --run-cuda   (on a GPU machine: the CUDA backend only, both
#                                           examples run; installs no packages)
# Outputs go to build/examples/<backend>/; each run starts them afresh.
set -euo pipefail
cd "$(dirname "$0")/../.."

run_cuda=0
case "${1:-}" in
  "") ;;
  --run-cuda) run_cuda=1 ;;
  *) echo "usage: $0 [--run-cuda]" >&2; exit 2 ;;
esac

if ((run_cuda == 0)); then
  tools/setup/deps.sh build test
elif ! command -v pkg-config >/dev/null && [ -d .deps/debs ]; then
  # shellcheck source=tools/gpu/setup-deps.sh
  . tools/gpu/setup-deps.sh # pkgconf from the carried .deb files (tools/gpu/fetch-deps.sh)
fi
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
examples=$PWD/tools/examples

# stage BACKEND BUILD_DIR: `meson install` into $out/stage with out=build/examples/BACKEND
# (a DESTDIR: the build keeps its configured prefix, and no second build is needed), then
# points pkg-config and the loader there. The .pc files name the configured prefix;
# PKG_CONFIG_SYSROOT_DIR makes pkg-config put the staging folder in front of their -I and
# -L paths, as for any staged install.
stage() {
  local backend=$1 build=$2
  out=$PWD/build/examples/$backend
  rm -rf "$out"
  mkdir -p "$out"
  echo "== install $build into $out/stage"
  meson install -C "$build" --destdir "$out/stage" --quiet
  local pc
  pc=$(find "$out/stage" -name "tenport-$backend.pc" -print -quit)
  [ -n "$pc" ] || { echo "examples.sh: no tenport-$backend.pc under $out/stage" >&2; exit 1; }
  PKG_CONFIG_SYSROOT_DIR=$out/stage
  PKG_CONFIG_PATH=$(dirname "$pc")
  LD_LIBRARY_PATH=$(dirname "$PKG_CONFIG_PATH")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH LD_LIBRARY_PATH
  echo "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
  echo "PKG_CONFIG_SYSROOT_DIR=$PKG_CONFIG_SYSROOT_DIR"
  echo "pkg-config --cflags --libs tenport: $(pkg-config --cflags --libs tenport)"
  # the command: tenport-BACKEND, and tenport a link to it (the backend installed last)
  local cmd
  cmd=$(find "$out/stage" -path "*/bin/tenport-$backend" -print -quit)
  [ -n "$cmd" ] || { echo "examples.sh: no bin/tenport-$backend under $out/stage" >&2; exit 1; }
  if [ "$(readlink "$(dirname "$cmd")/tenport")" != "tenport-$backend" ]; then
    echo "examples.sh: $(dirname "$cmd")/tenport is not a link to tenport-$backend" >&2
    exit 1
  fi
  echo "installed command: $("$(dirname "$cmd")/tenport" --version)"
}

# pkg_flags PACKAGE: flags=( $(pkg-config --cflags --libs PACKAGE) ), failing if it fails.
pkg_flags() {
  local f
  f=$(pkg-config --cflags --libs "$1")
  read -ra flags <<<"$f"
}

# cmake_example BACKEND [--no-run]: tools/examples/cmake configured against the staged
# install twice, through find_package(tenport) and find_package(tenport-BACKEND), built,
# and run unless --no-run.
cmake_example() {
  local backend=$1 run=${2:-}
  local prefix
  prefix=$(find "$out/stage" -name tenportConfig.cmake -print -quit)
  [ -n "$prefix" ] || { echo "examples.sh: no tenportConfig.cmake under $out/stage" >&2; exit 1; }
  prefix=$(cd "$(dirname "$prefix")/../../.." && pwd) # PREFIX/lib[/ARCH]/cmake/tenport
  [ -d "$prefix/include/tenport" ] || prefix=$(dirname "$prefix")
  for wanted in "" "$backend"; do
    local dir=$out/cmake${wanted:+-$wanted}
    echo "== tools/examples/cmake against the staged install: find_package(tenport${wanted:+-$wanted})"
    (set -x; cmake -S "$examples/cmake" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" \
       -DTENPORT_BACKEND="$wanted" >"$dir.log" 2>&1) || { cat "$dir.log"; exit 1; }
    cmake --build "$dir" >>"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
    [ "$run" = --no-run ] || "$dir/cp_als_host"
  done
}

# ---- OpenMP: build and run the host example --------------------------------------------
if ((run_cuda == 0)); then
  build=build/openmp # as tools/test.sh configures it, if that has not run
  [ -f "$build/build.ninja" ] || meson setup "$build" -Dtenport_backend=openmp -Dtests=enabled
  stage openmp "$build"
  echo "== cp_als_host.c against tenport (openmp): compile, link and run"
  pkg_flags tenport
  (set -x; cc -std=c11 -O2 -Wall -Wextra -Werror "$examples/cp_als_host.c" "${flags[@]}" -lm \
     -o "$out/cp_als_host")
  "$out/cp_als_host"
  cmake_example openmp
fi

# ---- CUDA: compile and link the examples (and run them with --run-cuda) ---------------
if ! command -v nvcc >/dev/null; then
  ((run_cuda == 0)) || { echo "examples.sh: --run-cuda needs nvcc" >&2; exit 1; }
  echo "== no nvcc: CUDA example skipped"
  exit 0
fi
build=build/cuda
if [ ! -f "$build/build.ninja" ]; then
  opts=(-Dtenport_backend=cuda -Dtests=enabled) # as tools/ci/gpu-compile.sh configures it
  if ((run_cuda)); then
    # No Criterion on a GPU machine (tests if available), kernels for its GPU.
    arch=sm_90
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 || true)
    [[ $cap =~ ^([0-9]+)\.([0-9]+)$ ]] && arch=sm_${BASH_REMATCH[1]}${BASH_REMATCH[2]}
    opts=(-Dtenport_backend=cuda -Dtests=auto "-Dnvcc_arch=$arch")
  fi
  meson setup "$build" "${opts[@]}"
fi
stage cuda "$build"
echo "== cp_als_cuda.cu against tenport-cuda: compile and link"
# -cudart shared: the library uses the shared CUDA runtime; the program shares it.
pkg_flags tenport-cuda
(set -x; nvcc -O2 -cudart shared "$examples/cp_als_cuda.cu" "${flags[@]}" -o "$out/cp_als_cuda")
echo "== cp_als_host.c against tenport (cuda): compile and link"
pkg_flags tenport
(set -x; cc -std=c11 -O2 -Wall -Wextra -Werror "$examples/cp_als_host.c" "${flags[@]}" -lm \
   -o "$out/cp_als_host")
cmake_example cuda --no-run
if ((run_cuda)); then
  echo "== run cp_als_host (cuda backend)"
  "$out/cp_als_host"
  echo "== run cp_als_cuda"
  "$out/cp_als_cuda"
fi
echo "== examples: OK"
