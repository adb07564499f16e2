#!/usr/bin/env bash
# GCP on a GPU machine, one job: tenport (CUDA) against pyttb (its CPUs) on the cases of
# gcp_vs_pyttb.py, then tenport's GCP on larger tensors next to its own CP-ALS on the
# same tensor. Needs a CUDA build in $TP_BUILD_DIR (default build-gpu), pyttb's source
# in .deps/peers/pyttb and numpy_groupies in .deps/peers/pylib (pure Python, carried).
# Logs to $OUT (default .).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${TP_BUILD_DIR:-build-gpu}
out=${OUT:-.}
tp=$build/tools/tenport
export PYTHONPATH=$PWD/.deps/peers/pylib${PYTHONPATH:+:$PYTHONPATH}
export TENPORT_NO_PROGRESS=1
{
  echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader) $(nproc) CPUs"
  python3 -c "import numpy, scipy; print('numpy', numpy.__version__, 'scipy', scipy.__version__)"
  echo "== larger: a 20 M-nonzero power-law 0/1 tensor, Bernoulli, Adam, R = 32"
  "$tp" gen sparse --dims 1000000x500000x200000 --nnz 20000000 --skew 2 --values ones --seed 3 -o big.tpb
  for s in 1 2; do
    "$tp" gcp -i big.tpb -r 32 --loss bernoulli-odds --solver adam --epochs 3 --epoch-iters 1000 \
        --samples 100000 --function-samples 1000000 --precision f32 -q
  done
  "$tp" cp-als -i big.tpb -r 32 --max-iters 20 --tol 0 -q --precision f32
  echo "== larger: a dense 500x400x300 count tensor, L-BFGS-B, R = 32"
  python3 -c "
import numpy as np
rng = np.random.default_rng(1)
f = [rng.uniform(0, 1, (n, 32)) for n in (500, 400, 300)]
m = np.einsum('ir,jr,kr->ijk', *f); np.save('dense.npy', rng.poisson(3 * m / m.mean()).astype(np.float64))"
  for s in 1 2; do
    "$tp" gcp -i dense.npy -r 32 --loss poisson --max-iters 20 --factr 0 --pgtol 0 -q
  done
  "$tp" cp-als -i dense.npy -r 32 --max-iters 20 --tol 0 -q
  echo "== tenport (CUDA) against pyttb (CPU)"
  python3 perf/gcp/gcp_vs_pyttb.py --tenport "$tp" --pyttb .deps/peers/pyttb \
      --case "${GCP_CASE:-all}" --dims 200x150x100 --rank 16 --iters 20 \
      --sparse-dims 20000x15000x10000 --nnz 1000000 --epochs 2 --epoch-iters 50 \
      --samples 10000 --fsamples 100000 --repeats "${GCP_REPEATS:-3}"
} 2>&1 | tee "$out/gcp-h200.log"
