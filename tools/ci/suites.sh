#!/usr/bin/env bash
# Builds one configuration and runs every test suite of it (tools/test.sh's serial, openmp
# and hip-cpu stages).
# Usage: tools/ci/suites.sh serial|openmp|hip-cpu
#   serial   build/serial: the serial backend built by clang under AddressSanitizer and
#            UndefinedBehaviorSanitizer, instrumented for the fuzzers (tools/ci/fuzz.sh
#            reuses it; options: tools/ci/sanitized_options.sh); distributed programs on
#            2 and 3 ranks; the command line's suite runs on OpenMP (the fuzzers run the
#            command under the sanitizers)
#   (serial and hip-cpu build the library, the suites and the programs they run, not the
#   command or the benchmarks; the docs and API-reference checks, which do not depend
#   on the backend, run on OpenMP)
#   openmp   build/openmp, with the Python package and the command line's suite; the
#            distributed programs on every rank count (1, 2, 3, 4, 6) and each
#            row-exchange variant
#   hip-cpu  build/hip-cpu, the hip backend on the HIP CPU runtime ($TP_HIP_CPU_DIR, by
#            default ../shared/third_party/hip-cpu); distributed programs on 1 and 2 ranks;
#            the command line's suite runs on OpenMP (it checks the command, whose kernels
#            the suites cover here)
# The rank logic is the same on every backend: one backend runs it on every rank count,
# the others on a few. A build folder configured without tests (tools/demo.sh makes
# build/openmp so) is reconfigured with them. The shared library must export the public
# API only (tools/ci/exports.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."

b=${1:?usage: tools/ci/suites.sh serial|openmp|hip-cpu}
sets=(build test)
[ "$b" != hip-cpu ] || sets+=(hip-cpu)
[ "$b" != serial ] || sets+=(sanitize)
tools/setup/deps.sh "${sets[@]}"

build="build/$b"
test_args=()
case "$b" in
  serial)
    read -r -a opts <<<"$(tools/ci/sanitized_options.sh | tr '\n' ' ')"
    export CC=clang UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    # a folder made another way (gcc, no sanitizers) is made anew
    if [ -f "$build/build.ninja" ] &&
       ! meson introspect "$build" --buildoptions | grep -q '"b_sanitize", "value": "address,undefined"'; then
      rm -rf "$build"
    fi
    test_args=(--no-suite cli --no-suite docs --no-suite apidoc) ;;
  openmp) opts=(-Dtenport_backend=openmp -Dpython=enabled -Dmpi_test_ranks=1,2,3,4,6) ;;
  hip-cpu) opts=(-Dtenport_backend=hip -Dhip_platform=cpu -Dmpi_test_ranks=1,2 -Doptimization=2
                 "-Dhip_cpu_dir=${TP_HIP_CPU_DIR:-../shared/third_party/hip-cpu}")
           test_args=(--no-suite cli --no-suite docs --no-suite apidoc) ;;
  *) echo "suites.sh: unknown backend '$b' (serial, openmp or hip-cpu)" >&2; exit 2 ;;
esac
opts+=(-Dtests=enabled)
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" "${opts[@]}" >/dev/null # also takes options added since
else
  meson setup "$build" "${opts[@]}" >/dev/null
fi
start=$SECONDS
if [ "$b" = openmp ]; then
  ninja -C "$build"
else # what the suites run (and the fuzzers link): the command and the benchmarks, whose
  # kernels are the slowest to compile here, are built and run by the openmp stage
  read -r -a targets <<<"$(meson introspect "$build" --targets | python3 -c '
import json, os, sys
build, src = os.path.abspath(sys.argv[1]), os.path.abspath(".")
for t in json.load(sys.stdin):
    where = os.path.relpath(t["defined_in"], src)
    if not where.startswith(("perf/", "tools/")):
        print(*(os.path.relpath(f, build) for f in t["filename"]))' "$build" | tr '\n' ' ')"
  ninja -C "$build" "${targets[@]}"
fi
echo "(build of $b took $((SECONDS - start)) s)"
tools/ci/exports.sh "$build"
tools/ci/check_suites.sh "$build"
echo "== tests, $b backend ($(meson test -C "$build" --list --no-rebuild 2>/dev/null | wc -l) tests)"
start=$SECONDS
meson test -C "$build" --print-errorlogs --no-rebuild "${test_args[@]}"
echo "(tests of $b took $((SECONDS - start)) s)"
