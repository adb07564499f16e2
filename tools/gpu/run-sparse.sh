#!/usr/bin/env bash
# Sparse MTTKRP and sparse CP-ALS on the GPU machine: builds the CUDA backend (and the
# OpenMP one for the CPU step), runs the sparse suites on the GPU, then for each tensor
# of the sparse issue (generated, f32, R = 32, indices skewed as floor(u^4 I)):
# tp-bench-sparse-mttkrp on the GPU (FLYCOO with and without remapping, the atomic
# baseline) and on all host cores (built with -Dcpu_native=true, as SPLATT builds with
# -march=native), and the peers on the same file (BLCO, SPLATT, the
# PyTorch COO script) through tools/peers/run-peers.sh.
#
# Usage: tools/gpu/run-sparse.sh [RESULTS_DIR]    (default $OUT, else ./)
# Environment:
#   STEPS="..."    a subset of: build tests t3 t4 t5 t3big t4big cpu peers (default: all
#                  but the *big ones), to split the work over several calls
#   PEERS          passed to run-peers.sh (default blco,splatt,torch)
#   TP_REVISION    the revision to log when the tree is a copy without .git
# Run from the repository root with .deps/ carried along (debs and peers' sources).
#
# A run worth keeping becomes a record: copy RESULTS_DIR to perf/results/DATE-MACHINE-WHAT/,
# write its README.md (what was measured, the machine, the date and revision, the commands,
# the figures as tables), then run tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:-${OUT:-$PWD}}
mkdir -p "$out"
steps=${STEPS:-build tests t3 t4 t5 cpu peers}
build=${TP_BUILD_DIR:-build-gpu}
cpu=${TP_CPU_BUILD_DIR:-build-openmp}
data=${TP_DATA_DIR:-/tmp/tenport-sparse}
mkdir -p "$data"
. tools/gpu/setup-deps.sh >/dev/null 2>&1 || echo "run-sparse: no .deps (tests will not build)"
want() { [[ " $steps " == *" $1 "* ]]; }
say() { echo "== $* ($(date -u '+%H:%M:%S'))"; }
revision=${TP_REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "tenport $revision, $(date -u '+%Y-%m-%dT%H:%M:%SZ'): run-sparse.sh, steps: $steps"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'
echo "host: $(lscpu | sed -n 's/^Model name: *//p' | head -n1), $(nproc) cores"

# The tensors: name, dims, nonzeros (before duplicates are summed).
declare -A dims=([t3]=1000000x1000000x1000000 [t4]=200000x100000x50000x1000
                 [t5]=100000x100000x10000x1000x100 [t3big]=1000000x1000000x1000000
                 [t4big]=200000x100000x50000x1000)
declare -A nnz=([t3]=20000000 [t4]=20000000 [t5]=20000000 [t3big]=50000000 [t4big]=50000000)

if want build; then
  say build
  [[ -f $build/build.ninja ]] || meson setup "$build" -Dtenport_backend=cuda -Dnvcc_arch=sm_90 \
    -Dtests=enabled >/dev/null
  ninja -C "$build" perf/tp-bench-sparse-mttkrp tools/tenport tests/test_sparse \
    tests/test_sparse_mttkrp tests/test_cp_als_sparse tests/test_cp_als >/dev/null || exit 1
  [[ -f $cpu/build.ninja ]] || meson setup "$cpu" -Dtenport_backend=openmp -Dtests=disabled \
    -Dcpu_native=true ${TP_BLIS_DIR:+-Dblis_dir=$TP_BLIS_DIR} >/dev/null
  ninja -C "$cpu" perf/tp-bench-sparse-mttkrp >/dev/null || exit 1
  if want peers; then
    tools/peers/build-blco.sh f32 64 >/dev/null && tools/peers/build-blco.sh f32 128 >/dev/null
    tools/peers/build-splatt.sh single 64 >/dev/null
  fi
fi

if want tests; then
  say "GPU tests: sparse, sparse_mttkrp, cp_als_sparse, cp_als"
  meson test -C "$build" --no-rebuild --num-processes 1 --print-errorlogs sparse sparse_mttkrp \
    cp_als_sparse cp_als
fi

for t in t3 t4 t5 t3big t4big; do
  want "$t" || continue
  say "$t: ${dims[$t]}, ${nnz[$t]} draws"
  file=$data/$t.tns
  write=()
  want peers && [[ ! -f $file ]] && write=(--write "$file")
  timeout 400 "$build/perf/tp-bench-sparse-mttkrp" --dims "${dims[$t]}" --nnz "${nnz[$t]}" \
    --skew 4 --rank 32 --precision f32 --reps 5 --warmup 1 "${write[@]}" \
    --json "$out/sparse-$t-gpu.json"
  if want cpu; then
    say "$t on all $(nproc) host cores (OpenMP)"
    OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close OMP_PLACES=cores timeout 300 \
      "$cpu/perf/tp-bench-sparse-mttkrp" --dims "${dims[$t]}" --nnz "${nnz[$t]}" --skew 4 \
      --rank 32 --precision f32 --reps 3 --warmup 1 --no-baseline --json "$out/sparse-$t-cpu.json"
  fi
  if want peers && [[ -f $file ]]; then
    say "$t: peers"
    OUT=$out/peers-$t ITERS=${ITERS:-10} timeout 600 tools/peers/run-peers.sh "$file" 32 "$(nproc)"
    cat "$out/peers-$t/summary.txt" 2>/dev/null
  fi
done
say done
