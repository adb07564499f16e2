#!/usr/bin/env bash
# CP-APR and nonnegative CP-ALS on a GPU machine, one job: tenport (CUDA, and OpenMP on the
# host's cores when $TP_OMP_BUILD_DIR holds an OpenMP build) against pyttb's cp_apr (the
# host's CPUs) on a 2 M-nonzero power-law count tensor, then tenport alone on the 20 M
# one in double and single precision, then --nonneg against the unconstrained CP-ALS
# iteration (perf/cp_als/nonneg_cost.sh). Needs a CUDA build in $TP_BUILD_DIR (default
# build-gpu) and pyttb's source in .deps/peers/pyttb (numpy_groupies in
# .deps/peers/pylib when the machine lacks it). Logs to $OUT (default .).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${TP_BUILD_DIR:-build-gpu}
out=${OUT:-.}
tenports=(--tenport "$build/tools/tenport")
[ -n "${TP_OMP_BUILD_DIR:-}" ] && tenports+=(--tenport "$TP_OMP_BUILD_DIR/tools/tenport")
export PYTHONPATH=$PWD/.deps/peers/pylib${PYTHONPATH:+:$PYTHONPATH}
export TENPORT_NO_PROGRESS=1 OMP_WAIT_POLICY=passive OMP_PROC_BIND=false PYTHONUNBUFFERED=1
{
  echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader) $(nproc) CPUs"
  echo "== CP-APR: 2 M draws, power law, R = 16, 10 iterations (pyttb: 1)"
  python3 perf/cp_apr/apr_vs_pyttb.py "${tenports[@]}" --pyttb .deps/peers/pyttb \
      --dims 200000x100000x50000 --nnz 2000000 --rank 16 --iters 10 --pyttb-iters 1 --repeats 3
  for precision in f64 f32; do
    echo "== CP-APR: 20 M draws, power law, R = 16, 5 iterations, $precision (tenport alone)"
    python3 perf/cp_apr/apr_vs_pyttb.py "${tenports[@]}" --pyttb .deps/peers/pyttb \
        --dims 1000000x500000x200000 --nnz 20000000 --rank 16 --iters 5 --repeats 2 \
        --precision "$precision" --skip-pyttb
  done
  echo "== --nonneg against the unconstrained CP-ALS iteration, 200x150x100, R = 32"
  perf/cp_als/nonneg_cost.sh "$build/tools/tenport" 200x150x100 32 20 5
} 2>&1 | tee "$out/cp-apr-h200.log"
