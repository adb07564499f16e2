#!/usr/bin/env bash
# `tenport bench` on the GPU machine: builds the CUDA backend and the OpenMP one, runs the
# suite at full size on the GPU and on all host cores (each writes its JSON), adds the
# PyTorch peers on the same cases (perf/peers/bench_peers.py), and runs the CUDA
# embedding example (tools/examples) against an installed CUDA build.
#
# Usage: tools/gpu/run-bench.sh [RESULTS_DIR]    (default $OUT, else ./)
# Environment:
#   STEPS="..."     a subset of: build tests gpu gpu-peers cpu cpu-peers examples (default:
#                   all); tests runs the GPU suites of what the suite's cases call last
#                   changed (cp_als, cp_als_sparse, sttid, prrlu, tci)
#   SIZE            full (default) or quick
#   TP_REVISION     the revision to log when the tree is a copy without .git
# Run from the repository root with .deps/ carried along (BLIS for the OpenMP build).
#
# A run worth keeping becomes a record: copy RESULTS_DIR to perf/results/DATE-MACHINE-WHAT/,
# write its README.md (what was measured, the machine, the date and revision, the commands,
# the figures as tables), then run tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:-${OUT:-$PWD}}
mkdir -p "$out"
steps=${STEPS:-build tests gpu gpu-peers cpu cpu-peers examples}
size=${SIZE:-full}
build=${TP_BUILD_DIR:-build-gpu}
cpu=${TP_CPU_BUILD_DIR:-build-openmp}
. tools/gpu/setup-deps.sh >/dev/null 2>&1 || echo "run-bench: no .deps (no BLIS on the CPU)"
want() { [[ " $steps " == *" $1 "* ]]; }
say() { echo "== $* ($(date -u '+%H:%M:%S'))"; }
revision=${TP_REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "tenport $revision, $(date -u '+%Y-%m-%dT%H:%M:%SZ'): run-bench.sh, steps: $steps"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'
echo "host: $(lscpu | sed -n 's/^Model name: *//p' | head -n1), $(nproc) cores"
cores=$(nproc)
status=0

gpu_steps() { want tests || want gpu || want gpu-peers; }
cpu_steps() { want cpu || want cpu-peers; }
if want build && gpu_steps; then
  say "build: cuda"
  [[ -f $build/build.ninja ]] || meson setup "$build" -Dtenport_backend=cuda -Dnvcc_arch=sm_90 \
    -Dtests=enabled >/dev/null
  ninja -C "$build" tools/tenport >/dev/null || exit 1
  if want tests; then
    ninja -C "$build" tests/test_cp_als tests/test_cp_als_sparse tests/test_sttid \
      tests/test_prrlu tests/test_tci >/dev/null || exit 1
  fi
fi
if want build && cpu_steps; then
  say "build: openmp"
  [[ -f $cpu/build.ninja ]] || meson setup "$cpu" -Dtenport_backend=openmp -Dtests=disabled \
    -Dcpu_native=true ${TP_BLIS_DIR:+-Dblis_dir=$TP_BLIS_DIR} >/dev/null
  ninja -C "$cpu" tools/tenport >/dev/null || exit 1
fi

if want tests; then
  say "GPU tests: cp_als, cp_als_sparse, sttid, prrlu, tci"
  meson test -C "$build" --no-rebuild --num-processes 1 --print-errorlogs cp_als cp_als_sparse \
    sttid prrlu tci || status=1
  cp "$build/meson-logs/testlog.txt" "$out/gpu-testlog.txt" 2>/dev/null
fi
if want gpu; then
  say "GPU: tenport bench --$size"
  timeout 500 "$build/tools/tenport" bench --"$size" --quiet --json "$out/bench-cuda.json" ||
    status=1
fi
if want gpu-peers; then
  say "GPU: PyTorch on the same cases"
  timeout 500 python3 perf/peers/bench_peers.py "$out/bench-cuda.json" --device cuda \
    --tenport "$build/tools/tenport" --output "$out/bench-cuda-peers.json" || status=1
fi
if want cpu; then
  say "CPU: tenport bench --$size, OpenMP on $cores cores"
  OMP_NUM_THREADS=$cores OMP_PROC_BIND=close OMP_PLACES=cores timeout 500 \
    "$cpu/tools/tenport" bench --"$size" --quiet --json "$out/bench-openmp.json" || status=1
fi
if want cpu-peers; then
  say "CPU: PyTorch on the same cases, $cores threads"
  timeout 500 python3 perf/peers/bench_peers.py "$out/bench-openmp.json" --device cpu \
    --threads "$cores" --only dense,sparse --tenport "$cpu/tools/tenport" \
    --output "$out/bench-openmp-peers.json" || status=1
fi
if want examples; then
  say "the CUDA embedding example against an installed CUDA build"
  timeout 300 tools/ci/examples.sh --run-cuda || status=1
fi
say "done (status $status)"
exit $status
