#!/usr/bin/env bash
# End to end sparse CP-ALS on the GPU machine: what a user waits for, from a file to the
# factors, with each phase's time. Builds the CUDA backend, makes the issue's 3-mode and
# 4-mode tensors (20 M draws, indices skewed as floor(u^4 I), f32 values) as .tpb and
# .tns, then for each tensor and format runs
#   tenport cp-als --rank 32 --maxiters 50 --tol 0 --precision f32 --quiet
# REPS times (its "phases:" line: read, build, initialisation, iterations, write; the
# wall time of the whole process around it), times the FLYCOO build against one MTTKRP
# mode (tp-bench-sparse-mttkrp --build-reps: tp_flycoo_create from the host tensor and
# tp_flycoo_create_in_space from its copy in the space), and runs the peers on the same
# .tns: BLCO's CP-ALS on the GPU (-k 10, its own "Reading text file" and CPD timers) and
# SPLATT's on all host cores (its timing summary, -v). The .tns files are read from the
# page cache (written just before); every tool reads the same bytes. The summary keeps
# each run's wall time and the lines that say where its time went.
#
# Usage: tools/gpu/run-e2e.sh [RESULTS_DIR]    (default $OUT, else ./)
# Environment:
#   STEPS="..."    a subset of: build gen t3 t4 bench peers cpu (default: all but cpu), to
#                  split the work over several calls; t3/t4 run tenport cp-als on that
#                  tensor (both formats), bench and peers on every generated tensor
#   TENSORS="t3 t4"  the tensors of gen, bench, peers and cpu
#   REPS           runs of each cp-als (default 2; the first one warms the page cache)
#   NNZ            draws per tensor (default 20000000)
#   PEERS          blco,splatt (default both)
#   TP_DATA_DIR    where the tensors go (default /tmp/tenport-e2e; 1.5 GB per tensor)
#   TP_REVISION    the revision to log when the tree is a copy without .git
# Run from the repository root with .deps/ carried along (the peers' sources). On a
# machine that stops a command after 10 minutes, split the work, for example
#   STEPS="build gen" tools/gpu/run-e2e.sh $OUT; STEPS="t3 t4 bench" ...; STEPS=peers ...
# (the peers parse the text files themselves, which takes them minutes).
# Each step logs to RESULTS_DIR/e2e-<step>.log; RESULTS_DIR/e2e-summary.txt collects the
# wall times and phases lines.
#
# A run worth keeping becomes a record: copy RESULTS_DIR to perf/results/DATE-MACHINE-WHAT/,
# write its README.md (what was measured, the machine, the date and revision, the commands,
# the figures as tables), then run tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:-${OUT:-$PWD}}
mkdir -p "$out"
steps=${STEPS:-build gen t3 t4 bench peers}
tensors=${TENSORS:-t3 t4}
reps=${REPS:-2}
peers=,${PEERS:-blco,splatt},
build=${TP_BUILD_DIR:-build-gpu}
cpu=${TP_CPU_BUILD_DIR:-build-openmp}
data=${TP_DATA_DIR:-/tmp/tenport-e2e}
mkdir -p "$data"
. tools/gpu/setup-deps.sh >/dev/null 2>&1 || echo "run-e2e: no .deps (the peers will not build)"
want() { [[ " $steps " == *" $1 "* ]]; }
say() { echo "== $* ($(date -u '+%H:%M:%S'))"; }
revision=${TP_REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "tenport $revision, $(date -u '+%Y-%m-%dT%H:%M:%SZ'): run-e2e.sh, steps: $steps"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'
echo "host: $(lscpu | sed -n 's/^Model name: *//p' | head -n1), $(nproc) cores"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_PROC_BIND=${OMP_PROC_BIND:-close}
export OMP_PLACES=${OMP_PLACES:-cores}

declare -A dims=([t3]=1000000x1000000x1000000 [t4]=200000x100000x50000x1000)
nnz=${NNZ:-20000000}
cp_args=(--rank 32 --maxiters 50 --tol 0 --precision f32 --quiet)
summary=$out/e2e-summary.txt

# timed LABEL COMMAND...: runs the command, its output to stdout, then one line with the
# wall time of the whole process; both also to the summary (the output's phases or
# timing lines only).
timed() {
  local label=$1 t0 t1 log
  shift
  log=$(mktemp)
  t0=$(date +%s.%N)
  "$@" > "$log" 2>&1
  local rc=$?
  t1=$(date +%s.%N)
  cat "$log"
  {
    printf '%-28s %8.3f s wall%s\n' "$label" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
      "$( ((rc == 0)) || echo " (FAILED, exit $rc)")"
    grep -E -i '^phases:|^fit |^build \(|^all modes|time|^  [A-Z][A-Z0-9 ^]+ +[0-9.]+s$' "$log" |
      sed 's/^/    /'
  } | tee -a "$summary"
  rm -f "$log"
  return $rc
}

if want build; then
  say build
  [[ -f $build/build.ninja ]] || meson setup "$build" -Dtenport_backend=cuda -Dnvcc_arch=sm_90 \
    -Dtests=disabled >/dev/null
  ninja -C "$build" tools/tenport perf/tp-bench-sparse-mttkrp >/dev/null || exit 1
  if want cpu; then
    [[ -f $cpu/build.ninja ]] || meson setup "$cpu" -Dtenport_backend=openmp -Dtests=disabled \
      -Dcpu_native=true ${TP_BLIS_DIR:+-Dblis_dir=$TP_BLIS_DIR} >/dev/null
    ninja -C "$cpu" tools/tenport perf/tp-bench-sparse-mttkrp >/dev/null || exit 1
  fi
  if want peers; then
    [[ $peers != *,blco,* ]] || tools/peers/build-blco.sh f32 64 >/dev/null || exit 1
    [[ $peers != *,splatt,* ]] || tools/peers/build-splatt.sh single 64 >/dev/null || exit 1
  fi
fi
tenport=$build/tools/tenport

if want gen; then
  for t in $tensors; do
    say "gen $t: ${dims[$t]}, $nnz draws"
    [[ -f $data/$t.tpb ]] || "$tenport" gen sparse --dims "${dims[$t]}" --nnz "$nnz" --skew 4 \
      --precision f32 --output "$data/$t.tpb" || exit 1
    [[ -f $data/$t.tns ]] || "$tenport" convert --input "$data/$t.tpb" --output "$data/$t.tns" ||
      exit 1
    ls -l "$data/$t.tpb" "$data/$t.tns"
  done
fi

echo "tenport $revision, $(date -u '+%Y-%m-%dT%H:%M:%SZ'), steps: $steps" >> "$summary"
for t in t3 t4; do
  want "$t" || continue
  for fmt in tpb tns; do
    say "$t.$fmt: tenport cp-als ${cp_args[*]}"
    for ((r = 1; r <= reps; r++)); do
      timed "tenport $t.$fmt run $r" "$tenport" cp-als --input "$data/$t.$fmt" "${cp_args[@]}"
    done
  done
done

if want bench; then
  for t in $tensors; do
    say "$t: the FLYCOO build against one MTTKRP mode"
    timed "bench $t" "$build/perf/tp-bench-sparse-mttkrp" --input "$data/$t.tpb" --rank 32 \
      --precision f32 --reps 5 --warmup 1 --build-reps 5 --no-baseline \
      --json "$out/e2e-bench-$t.json"
  done
fi

if want peers; then
  bin=.deps/peers/bin
  for t in $tensors; do
    order=$(awk -F'x' '{print NF}' <<< "${dims[$t]}")
    if [[ $peers == *,blco,* ]]; then
      say "$t: BLCO CP-ALS on the GPU, 50 iterations"
      mask=64 # the index bits of both tensors sum to at most 64
      timed "blco $t.tns" timeout 500 env CUDA_MODULE_LOADING=EAGER "$bin/blco-f32-cpd$mask" \
        -k 10 -r 32 -m 50 -e 0 -i "$data/$t.tns"
    fi
    if [[ $peers == *,splatt,* ]]; then
      say "$t: SPLATT CP-ALS on $(nproc) cores, 50 iterations"
      timed "splatt $t.tns" timeout 500 env OPENBLAS_NUM_THREADS=1 "$bin/splatt-f32-i64" cpd \
        "$data/$t.tns" -r 32 -t "$(nproc)" -i 50 --tol 0 --nowrite -v
    fi
    ((order == 3 || order == 4)) || echo "run-e2e: BLCO takes 3 or 4 modes only"
  done
fi

if want cpu; then
  for t in $tensors; do
    say "$t: tenport cp-als on $(nproc) host cores (OpenMP)"
    timed "tenport-cpu $t.tpb" "$cpu/tools/tenport" cp-als --input "$data/$t.tpb" "${cp_args[@]}"
    timed "bench-cpu $t" "$cpu/perf/tp-bench-sparse-mttkrp" --input "$data/$t.tpb" --rank 32 \
      --precision f32 --reps 3 --warmup 1 --build-reps 3 --no-baseline \
      --json "$out/e2e-bench-cpu-$t.json"
  done
fi
say done
