#!/usr/bin/env bash
# SS-HOPM on the GPU machine: builds the CUDA backend and runs the SS-HOPM suites, the
# throughput benchmark, the PyTorch peer on the same problem, and the OpenMP build's
# benchmark on all host cores. Logs go to $OUT (or ./). Run from the repository root
# with .deps/ carried along (see run-gpu.sh).
# Usage: tools/gpu/run-sshopm.sh [--no-tests] [--no-cpu]
#
# A run worth keeping becomes a record: copy the logs folder ($OUT) to
# perf/results/DATE-MACHINE-WHAT/, write its README.md (what was measured, the machine, the
# date and revision, the commands, the figures as tables), then run
# tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-$PWD}
mkdir -p "$out"
run_tests=1 run_cpu=1
for a in "$@"; do
  case $a in --no-tests) run_tests=0 ;; --no-cpu) run_cpu=0 ;; *) echo "unknown option $a" >&2; exit 2 ;; esac
done
. tools/gpu/setup-deps.sh
status=0
header() {
  echo "tenport ${TP_REVISION:-unknown revision}, $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
}
build=${TP_BUILD_DIR:-build-gpu}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" -Dtenport_backend=cuda -Dtests=enabled >"$out/configure.log" 2>&1 || {
    cat "$out/configure.log"; exit 1; }
fi
ninja -C "$build" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
if [ $run_tests = 1 ]; then
  { header; meson test -C "$build" --print-errorlogs --num-processes 1 \
      symtensor sshopm eigenpairs sh peaks npy; } 2>&1 | tee "$out/gpu-tests.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
{
  header
  echo "\$ $build/perf/tp-bench-sshopm"
  "$build/perf/tp-bench-sshopm" || status=1
  echo "\$ $build/perf/tp-bench-sshopm --precision f64 --shapes 4x3"
  "$build/perf/tp-bench-sshopm" --precision f64 --shapes 4x3 || status=1
  echo "\$ python3 perf/peers/torch_sshopm.py"
  python3 perf/peers/torch_sshopm.py || status=1
} 2>&1 | tee "$out/bench-sshopm.log"
if [ $run_cpu = 1 ]; then
  cpu=build-openmp
  [ -f "$cpu/build.ninja" ] || meson setup "$cpu" -Dtenport_backend=openmp -Dtests=disabled \
      ${TP_BLIS_DIR:+-Dblis_dir=$TP_BLIS_DIR} >"$out/configure-openmp.log" 2>&1
  ninja -C "$cpu" perf/tp-bench-sshopm tools/tenport >"$out/build-openmp.log" 2>&1 ||
    { tail -30 "$out/build-openmp.log"; exit 1; }
  # The command line on both backends: the examples, and one input through each with
  # the same seed; the outputs must agree.
  {
    header
    "$build/tools/tenport" peaks --example || status=1
    "$build/tools/tenport" sshopm --example || status=1
    python3 tools/gpu/compare_backends.py "$build/tools/tenport" "$cpu/tools/tenport" \
      "$out/cross" || status=1
  } 2>&1 | tee "$out/cli-cuda-vs-openmp.log"
  {
    echo "tenport ${TP_REVISION:-unknown revision}, $(date -u '+%Y-%m-%dT%H:%M:%SZ'), $(nproc) cores"
    lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Socket'
    echo "\$ $cpu/perf/tp-bench-sshopm --tensors 32768 --reps 3"
    "$cpu/perf/tp-bench-sshopm" --tensors 32768 --reps 3 || status=1
  } 2>&1 | tee "$out/bench-sshopm-openmp.log"
fi
exit $status
