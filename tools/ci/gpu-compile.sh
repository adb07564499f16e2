#!/usr/bin/env bash
# Compiles and links the CUDA and HIP backends (library, tests, benchmarks, tools)
# on a machine without a GPU: the build itself is the check, with the shared library's
# exports (tools/ci/exports.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

tools/setup/deps.sh build test gpu-compile
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
for b in cuda hip; do
  build="build/$b"
  # a compile-and-link check: unoptimised host code (and HIP device code) compiles
  # faster, and nothing here runs
  [ -f "$build/build.ninja" ] ||
    meson setup "$build" -Dtenport_backend="$b" -Dtests=enabled -Doptimization=0 -Ddebug=false
  echo "== compile and link, $b backend"
  if [ "$b" = cuda ]; then
    ninja -C "$build" # everything: library, suites, benchmarks, tools
  else # every kernel source through hipcc (the library's, the suites' and the benchmarks'
    # kernels); the rest is the same C the other builds compile
    lib=$(ninja -C "$build" -t targets all | grep -o '^libtenport_hip\.so\.[0-9.]*[0-9]' | head -1)
    ninja -C "$build" "$lib" tests/libtpt_support.a tools/tenport
  fi
  tools/ci/exports.sh "$build"
done
tools/ci/kernel_names.py build/cuda # every kernel of the build is named in the source
