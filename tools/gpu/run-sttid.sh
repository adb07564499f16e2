#!/usr/bin/env bash
# STTID on the GPU machine: builds the CUDA backend and the OpenMP one, runs the STTID
# suites on the GPU (the same pivots, ranks and cores as the dense host reference, as on
# the CPU backends), then tp-bench-sttid on the issue's tensors (Rnd5-like, Rnd6-like,
# knowledge-graph-like; exact decompositions) on the GPU, on two host cores (the authors'
# CPU had two) and on all host cores.
#
# Usage: tools/gpu/run-sttid.sh [RESULTS_DIR]    (default $OUT, else ./)
# Environment:
#   STEPS="..."    a subset of: build tests gpu cpu2 cpu (default: all)
#   REPS           timed repetitions per case (default 5)
#   TP_REVISION    the revision to log when the tree is a copy without .git
# Run from the repository root with .deps/ carried along (Criterion for the tests).
#
# A run worth keeping becomes a record: copy RESULTS_DIR to perf/results/DATE-MACHINE-WHAT/,
# write its README.md (what was measured, the machine, the date and revision, the commands,
# the figures as tables), then run tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:-${OUT:-$PWD}}
mkdir -p "$out"
steps=${STEPS:-build tests gpu cpu2 cpu}
build=${TP_BUILD_DIR:-build-gpu}
cpu=${TP_CPU_BUILD_DIR:-build-openmp}
reps=${REPS:-5}
. tools/gpu/setup-deps.sh >/dev/null 2>&1 || echo "run-sttid: no .deps (tests will not build)"
want() { [[ " $steps " == *" $1 "* ]]; }
say() { echo "== $* ($(date -u '+%H:%M:%S'))"; }
revision=${TP_REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "tenport $revision, $(date -u '+%Y-%m-%dT%H:%M:%SZ'): run-sttid.sh, steps: $steps"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'
echo "host: $(lscpu | sed -n 's/^Model name: *//p' | head -n1), $(nproc) cores"

if want build; then
  say build
  [[ -f $build/build.ninja ]] || meson setup "$build" -Dtenport_backend=cuda -Dnvcc_arch=sm_90 \
    -Dtests=enabled >/dev/null
  ninja -C "$build" perf/tp-bench-sttid tools/tenport tests/test_prrlu tests/test_sttid \
    tests/test_tci tests/test_sttid_io tests/test_space >/dev/null || exit 1
  [[ -f $cpu/build.ninja ]] || meson setup "$cpu" -Dtenport_backend=openmp -Dtests=disabled \
    ${TP_BLIS_DIR:+-Dblis_dir=$TP_BLIS_DIR} >/dev/null
  ninja -C "$cpu" perf/tp-bench-sttid >/dev/null || exit 1
fi

if want tests; then
  say "GPU tests: space (recorded work), prrlu, sttid, tci, sttid_io"
  meson test -C "$build" --no-rebuild --num-processes 1 --print-errorlogs space prrlu sttid tci \
    sttid_io
fi

if want gpu; then
  say "GPU: exact decompositions"
  timeout 300 "$build/perf/tp-bench-sttid" --reps "$reps" --json "$out/sttid-gpu.json"
fi
if want cpu2; then
  say "CPU: OpenMP on 2 cores"
  OMP_NUM_THREADS=2 OMP_PROC_BIND=close OMP_PLACES=cores timeout 300 \
    taskset -c 0,1 "$cpu/perf/tp-bench-sttid" --reps 3 --no-error --json "$out/sttid-cpu2.json"
fi
if want cpu; then
  say "CPU: OpenMP on all $(nproc) cores"
  OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close OMP_PLACES=cores timeout 300 \
    "$cpu/perf/tp-bench-sttid" --reps 3 --no-error --json "$out/sttid-cpu.json"
fi
say done
