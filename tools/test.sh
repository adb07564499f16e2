#!/usr/bin/env bash
# Builds backends and runs every test suite on each.
# Usage: tools/test.sh [backend...]   (default: serial openmp)
#   serial, openmp   the host backends, in build/serial and build/openmp
#   hip-cpu          the hip backend on the HIP CPU runtime (a fiber per work-item,
#                    64-lane wavefronts): the GPU layer's own code, run on this CPU, in
#                    build/hip-cpu. The runtime is taken from $TP_HIP_CPU_DIR, by default
#                    ../shared/third_party/hip-cpu (relative to the source tree).
# A build folder configured without tests (tools/demo.sh makes build/openmp so) is
# reconfigured with them; every tests/test_*.c must be a suite meson runs. The shared
# library of each build must export the public API only (tools/ci/exports.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

sets=(build test)
for b in "$@"; do
  [ "$b" != hip-cpu ] || sets+=(hip-cpu)
done
tools/setup/deps.sh "${sets[@]}"
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(serial openmp)

for b in "${backends[@]}"; do
  build="build/$b"
  case "$b" in
    serial | openmp) opts=(-Dtenport_backend="$b" -Dpython=enabled) ;; # + the Python package's suite
    hip-cpu) opts=(-Dtenport_backend=hip -Dhip_platform=cpu
                   "-Dhip_cpu_dir=${TP_HIP_CPU_DIR:-../shared/third_party/hip-cpu}") ;;
    *) echo "test.sh: unknown backend '$b' (serial, openmp or hip-cpu)" >&2; exit 2 ;;
  esac
  opts+=(-Dtests=enabled)
  if [ -f "$build/build.ninja" ]; then
    meson setup --reconfigure "$build" "${opts[@]}" # also picks up options added since
  else
    meson setup "$build" "${opts[@]}"
  fi
  ninja -C "$build"
  tools/ci/exports.sh "$build"
  # every suite file (tests/**/test_*.c but the MPI programs and the fuzzers) is a test
  # meson runs (tests/list_suites.py finds them when the build is configured)
  listed=$(meson test -C "$build" --list --no-rebuild 2>/dev/null)
  for f in $(find tests -name 'test_*.c' -not -path 'tests/mpi/*' -not -path 'tests/fuzz/*' \
               -not -path 'tests/cli/*'); do
    s=$(basename "$f" .c)
    s=${s#test_}
    if ! grep -qx "tenport / $s" <<<"$listed"; then
      echo "test.sh: $f is not a suite of $build (tests/list_suites.py)" >&2
      exit 1
    fi
  done
  echo "== tests, $b backend ($(grep -c "^tenport / " <<<"$listed") suites)"
  start=$(date +%s)
  meson test -C "$build" --print-errorlogs
  echo "(tests of $b took $(($(date +%s) - start)) s)"
done
