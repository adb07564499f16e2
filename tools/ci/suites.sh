#!/usr/bin/env bash
# Builds one configuration and runs every test suite of it (tools/test.sh's serial, openmp
# and hip-cpu stages).
# Usage: tools/ci/suites.sh serial|openmp|hip-cpu
#   serial   build/serial, with the Python package; the distributed programs on every
#            rank count (1, 2, 3, 4, 6) and each row-exchange variant
#   openmp   build/openmp, with the Python package; distributed programs on 1 and 3 ranks
#   hip-cpu  build/hip-cpu, the hip backend on the HIP CPU runtime ($TP_HIP_CPU_DIR, by
#            default ../shared/third_party/hip-cpu); distributed programs on 1 and 2 ranks
# The rank logic is the same on every backend: one backend runs it on every rank count,
# the others on a few. A build folder configured without tests (tools/demo.sh makes
# build/openmp so) is reconfigured with them. The shared library must export the public
# API only (tools/ci/exports.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

b=${1:?usage: tools/ci/suites.sh serial|openmp|hip-cpu}
sets=(build test)
[ "$b" != hip-cpu ] || sets+=(hip-cpu)
tools/setup/deps.sh "${sets[@]}"

build="build/$b"
case "$b" in
  serial) opts=(-Dtenport_backend=serial -Dpython=enabled -Dmpi_test_ranks=1,2,3,4,6) ;;
  openmp) opts=(-Dtenport_backend=openmp -Dpython=enabled -Dmpi_test_ranks=1,3) ;;
  hip-cpu) opts=(-Dtenport_backend=hip -Dhip_platform=cpu -Dmpi_test_ranks=1,2
                 "-Dhip_cpu_dir=${TP_HIP_CPU_DIR:-../shared/third_party/hip-cpu}") ;;
  *) echo "suites.sh: unknown backend '$b' (serial, openmp or hip-cpu)" >&2; exit 2 ;;
esac
opts+=(-Dtests=enabled)
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" "${opts[@]}" >/dev/null # also takes options added since
else
  meson setup "$build" "${opts[@]}" >/dev/null
fi
start=$SECONDS
ninja -C "$build"
echo "(build of $b took $((SECONDS - start)) s)"
tools/ci/exports.sh "$build"
tools/ci/check_suites.sh "$build"
echo "== tests, $b backend ($(meson test -C "$build" --list --no-rebuild 2>/dev/null | wc -l) tests)"
start=$SECONDS
meson test -C "$build" --print-errorlogs --no-rebuild
echo "(tests of $b took $((SECONDS - start)) s)"
