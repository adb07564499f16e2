#!/usr/bin/env bash
# Every test of tenport, in stages; installs the Debian packages each stage needs.
# Usage: tools/test.sh [STAGE...]      (default: every stage, in this order)
#   format       the sources follow .clang-format and the layout's rules (tools/ci/layout.sh)
#   serial       build/serial: the serial backend under ASan and UBSan (clang, instrumented
#                for the fuzzers too): every suite but the command line's, the distributed
#                programs on 2 and 3 ranks
#   openmp       build/openmp: every suite, the Python package's and the command line's;
#                the distributed programs on 1, 2, 3, 4 and 6 ranks
#   hip-cpu      build/hip-cpu: the hip backend on the HIP CPU runtime (a fiber per
#                work-item, 64-lane wavefronts), so that the GPU layer's own code runs on
#                this CPU; the runtime is $TP_HIP_CPU_DIR, by default
#                ../shared/third_party/hip-cpu (relative to the source tree)
#   bench        `tenport bench --quick` on build/openmp, every result checked, and its charts
#   gpu-compile  the cuda and hip (AMD) backends compiled and linked: library, suites, tools
#   install      build/openmp installed; the embedding examples built against it and run
#   python       the Python package installed by pip into a virtual environment, its suite
#   docs         the manual built (mkdocs, strict) and each command's --help in sync with it
#   fuzz         a bounded fuzzing run of the readers and the command line on build/serial
#                (FUZZ_SECONDS, default 60)
# Each build folder is made once and reused by the stages after it (a folder that
# tools/demo.sh configured without tests is reconfigured with them). Prints each stage's
# time at the end, also when a stage fails.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(format serial openmp hip-cpu bench gpu-compile install python docs fuzz)
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=("${all[@]}")
for s in "${stages[@]}"; do
  [[ " ${all[*]} " == *" $s "* ]] || { echo "test.sh: unknown stage '$s' (${all[*]})" >&2; exit 2; }
done

times=()
report() {
  local status=$?
  [ ${#times[@]} -gt 0 ] || return 0
  echo "== stage times"
  printf '%s\n' "${times[@]}"
  echo "total $((SECONDS - total_start)) s"
  return $status
}
total_start=$SECONDS
trap report EXIT

# run_stage NAME COMMAND...: runs one stage and records its time and outcome.
run_stage() {
  local name=$1 start=$SECONDS
  shift
  echo "== stage $name"
  if "$@"; then
    times+=("$(printf '%-12s %5d s  ok' "$name" $((SECONDS - start)))")
  else
    local rc=$?
    times+=("$(printf '%-12s %5d s  FAILED' "$name" $((SECONDS - start)))")
    exit $rc
  fi
}

for s in "${stages[@]}"; do
  case "$s" in
    format) run_stage format tools/ci/layout.sh ;;
    serial | openmp | hip-cpu) run_stage "$s" tools/ci/suites.sh "$s" ;;
    bench) run_stage bench tools/ci/bench.sh ;;
    gpu-compile) run_stage gpu-compile tools/ci/gpu-compile.sh ;;
    install) run_stage install tools/ci/install.sh ;;
    python) run_stage python tools/ci/python-package.sh ;;
    docs) run_stage docs tools/ci/docs.sh ;;
    fuzz) run_stage fuzz tools/ci/fuzz.sh ;;
  esac
done
