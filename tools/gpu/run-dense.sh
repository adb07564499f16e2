#!/usr/bin/env bash
# Dense MTTKRP and CP-ALS on the GPU machine: builds the CUDA backend, runs the dense,
# mttkrp and cp_als suites, then tp-bench-mttkrp on the paper's tensors A (401x201x12x501)
# and B (129x129x129x12x39) in f64 for R = 10, 32, 500, 2000 with CP-ALS timings (A at
# R = 32, B at R = 2000), ELEM and SLICE at R = 32 only (they take seconds per call), the
# PyTorch peer (perf/peers/torch_mttkrp.py) on the same problems, and the OpenMP build's
# benchmark and the PyTorch CPU peer on A at R = 32 on all host cores.
#
# Every step's output goes to RESULTS_DIR/<step>.log after a header (revision, date, GPU,
# host) and the command line; summary.log lists each step's outcome. Each benchmark runs
# under its own time limit so that the later steps still run if one overruns.
#
# Usage: tools/gpu/run-dense.sh [RESULTS_DIR]          (default $OUT, else ./)
# Run from the repository root with .deps/ carried along (see run-gpu.sh).
# Environment:
#   QUICK=1          R = 32 only (CP-ALS on both tensors at R = 32)
#   STEPS="..."      a subset of: build tests gpu-a gpu-b gpu-slow torch cpu (default all),
#                    to split the work over several calls; builds are reused
#   TP_BUILD_DIR     CUDA build folder (default build-gpu); TP_CPU_BUILD_DIR (build-openmp)
#   TP_NVCC_ARCH     default: the GPU's compute capability; TP_REVISION: the revision to
#                    log when the tree is a copy without .git
# Time: planned for about 9 minutes with a fresh CUDA build; the sum of the time limits
# is larger. Where one call must stay under 10 minutes, split it on a machine that stays
# up between calls (the builds are reused):
#   STEPS="build tests gpu-a gpu-b" tools/gpu/run-dense.sh DIR
#   STEPS="gpu-slow torch cpu" tools/gpu/run-dense.sh DIR
#
# A run worth keeping becomes a record: copy RESULTS_DIR to perf/results/DATE-MACHINE-WHAT/,
# write its README.md (what was measured, the machine, the date and revision, the commands,
# the figures as tables), then run tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:-${OUT:-$PWD}}
mkdir -p "$out"
steps=${STEPS:-build tests gpu-a gpu-b gpu-slow torch cpu}
build=${TP_BUILD_DIR:-build-gpu}
cpu=${TP_CPU_BUILD_DIR:-build-openmp}
quick=${QUICK:-0}
tests_opt=-Dtests=enabled
if ! . tools/gpu/setup-deps.sh; then
  echo "run-dense: no .deps: building without the test suites" >&2
  tests_opt=-Dtests=auto
fi

if [[ $quick == 1 ]]; then
  ranks=32 cp_a=32 cp_b=32
else
  ranks=10,32,500,2000 cp_a=32 cp_b=2000
fi
bench=$build/perf/tp-bench-mttkrp
common=(--reps 5 --warmup 1 --budget 1.5)
summary=()
status=0

want() { [[ " $steps " == *" $1 "* ]]; }

finish() {
  {
    echo "tenport $(revision), $(date -u '+%Y-%m-%dT%H:%M:%SZ'): run-dense.sh, steps: $steps," \
      "QUICK=$quick, $SECONDS s"
    printf '%s\n' "${summary[@]}"
  } | tee -a "$out/summary.log"
}

revision() {
  if [[ -n ${TP_REVISION:-} ]]; then
    echo "$TP_REVISION"
  elif git rev-parse --short HEAD >/dev/null 2>&1; then
    local dirty=
    git diff --quiet HEAD 2>/dev/null || dirty=" (with local changes)"
    echo "$(git rev-parse --short HEAD)$dirty"
  else
    echo "unknown revision"
  fi
}

# header LOG TITLE: starts LOG with what ran where and when.
header() {
  {
    echo "tenport $(revision), $(date -u '+%Y-%m-%dT%H:%M:%SZ'): $2"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
      --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
    echo "host: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n1), $(nproc) cores"
  } >"$1"
}

# run LOG LIMIT_S COMMAND...: appends the command line and its output to LOG (and the
# terminal), under a time limit; records the outcome in the summary.
run() {
  local log=$1 limit=$2
  shift 2
  echo "\$ $*" | tee -a "$log"
  local t0=$SECONDS
  timeout -k 10 "$limit" "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]} what=ok
  ((rc == 124 || rc == 137)) && what="timed out after ${limit} s"
  ((rc != 0 && rc != 124 && rc != 137)) && what="exit $rc"
  ((rc != 0)) && status=1
  summary+=("$(basename "$log" .log): $* -- $what ($((SECONDS - t0)) s)")
  echo "($what, $((SECONDS - t0)) s)" | tee -a "$log"
  return "$rc"
}

nvcc_arch() {
  local cap
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1)
  if [[ -n ${TP_NVCC_ARCH:-} ]]; then
    echo "$TP_NVCC_ARCH"
  elif [[ $cap =~ ^([0-9]+)\.([0-9]+)$ ]]; then
    echo "sm_${BASH_REMATCH[1]}${BASH_REMATCH[2]}"
  else
    echo sm_90
  fi
}

# The suites this tree has, and the targets they and the benchmark need.
suites=()
for s in space dense mttkrp cp_als; do
  [[ -f tests/test_$s.c ]] && suites+=("$s")
done
targets=(perf/tp-bench-mttkrp)
for s in "${suites[@]}"; do
  targets+=("tests/test_$s")
done

if want build; then
  header "$out/build.log" "CUDA build"
  if [[ ! -f $build/build.ninja ]]; then
    run "$out/build.log" 300 meson setup "$build" -Dtenport_backend=cuda \
      "-Dnvcc_arch=$(nvcc_arch)" "$tests_opt" >/dev/null
  fi
  if ! run "$out/build.log" 400 ninja -C "$build" "${targets[@]}" >/dev/null; then
    tail -n 40 "$out/build.log"
    finish
    exit 1
  fi
fi

if want tests && ((${#suites[@]})); then
  header "$out/gpu-tests.log" "the space, dense, mttkrp and cp_als suites on CUDA"
  run "$out/gpu-tests.log" 240 meson test -C "$build" --no-rebuild --num-processes 1 \
    --print-errorlogs "${suites[@]}"
  [[ -f $build/meson-logs/testlog.txt ]] && cp "$build/meson-logs/testlog.txt" "$out/gpu-testlog.txt"
fi

if want gpu-a; then
  header "$out/bench-mttkrp-A.log" "tp-bench-mttkrp, tensor A, f64, CUDA"
  run "$out/bench-mttkrp-A.log" 200 "$bench" --tensor A --ranks "$ranks" \
    --variants tile,gemm,blocked,auto "${common[@]}" --cp-als 5 --cp-ranks "$cp_a" \
    --cp-variant auto --cp-reuse both --json "$out/bench-mttkrp-A.json"
fi

if want gpu-b; then
  header "$out/bench-mttkrp-B.log" "tp-bench-mttkrp, tensor B, f64, CUDA"
  run "$out/bench-mttkrp-B.log" 200 "$bench" --tensor B --ranks "$ranks" \
    --variants tile:500,gemm,blocked,auto "${common[@]}" --cp-als 3 --cp-ranks "$cp_b" \
    --cp-variant auto --cp-reuse both --json "$out/bench-mttkrp-B.json"
fi

# The paper's Table III variants at R = 32: ELEM and SLICE on A, ELEM on B (SLICE on B
# takes tens of seconds per mode on a GPU; the paper leaves it out of its GPU runs too).
if want gpu-slow; then
  log=$out/bench-mttkrp-elem-slice.log
  header "$log" "tp-bench-mttkrp, ELEM and SLICE at R = 32, f64, CUDA"
  run "$log" 100 "$bench" --tensor A --ranks 32 --variants elem,slice "${common[@]}" \
    --json "$out/bench-mttkrp-elem-slice-A.json"
  run "$log" 60 "$bench" --tensor B --ranks 32 --variants elem "${common[@]}" \
    --json "$out/bench-mttkrp-elem-B.json"
fi

if want torch; then
  log=$out/torch-mttkrp.log
  header "$log" "PyTorch peer, einsum and unfold + Khatri-Rao + GEMM, f64, CUDA"
  for t in A B; do
    run "$log" 120 python3 perf/peers/torch_mttkrp.py --tensor "$t" --ranks "$ranks" \
      --reps 5 --warmup 1 --budget 1.5 --json "$out/torch-mttkrp-$t.json"
  done
fi

if want cpu; then
  cores=$(nproc)
  log=$out/bench-mttkrp-openmp.log
  header "$log" "OpenMP build on all $cores host cores, tensor A, R = 32, f64"
  if [[ ! -f $cpu/build.ninja ]]; then
    run "$log" 120 meson setup "$cpu" -Dtenport_backend=openmp -Dtests=disabled \
      ${TP_BLIS_DIR:+-Dblis_dir=$TP_BLIS_DIR} >/dev/null
  fi
  if run "$log" 200 ninja -C "$cpu" perf/tp-bench-mttkrp >/dev/null; then
    export OMP_NUM_THREADS=$cores OMP_PROC_BIND=close OMP_PLACES=cores
    echo "OMP_NUM_THREADS=$cores OMP_PROC_BIND=close OMP_PLACES=cores" | tee -a "$log"
    run "$log" 150 "$cpu/perf/tp-bench-mttkrp" --tensor A --ranks 32 \
      --variants slice,tile,gemm,blocked,auto --reps 3 --warmup 1 --budget 3 --cp-als 3 \
      --cp-ranks 32 --cp-variant auto --json "$out/bench-mttkrp-openmp-A.json"
    run "$log" 120 python3 perf/peers/torch_mttkrp.py --device cpu --threads "$cores" \
      --tensor A --ranks 32 --reps 3 --warmup 1 --budget 3 \
      --json "$out/torch-mttkrp-cpu-A.json"
  fi
fi

finish
exit "$status"
