#!/usr/bin/env bash
# GCP-Adam on one GPU: tenport against GenTen (Kokkos + GenTen for CUDA, built with
# tools/peers/build-genten.sh and carried in .deps/peers/build/genten-cuda) on the same
# sparse count tensor with the same sample sizes, epochs, steps and step size, in the same
# job; then tenport's CP-ALS iteration on it. The tensor: a power-law 0/1 tensor from
# tenport gen (Poisson loss: GenTen's reduced build has the Gaussian and Poisson losses),
# written as .tns for GenTen and .tpb for tenport. Logs to $OUT (default .).
# Environment: TP_BUILD_DIR (default build-gpu), GT_NNZ (default 5000000), GT_EPOCHS (3),
# GT_ITERS (1000 steps per epoch), GT_SAMPLES (100000 nonzeros and as many zeros per step),
# GT_FSAMPLES (1000000 of each for the estimate), GT_RANK (32).
set -uo pipefail
cd "$(dirname "$0")/../.."
tp=${TP_BUILD_DIR:-build-gpu}/tools/tenport
gt=.deps/peers/build/genten-cuda/bin/genten
out=${OUT:-.}
nnz=${GT_NNZ:-5000000} epochs=${GT_EPOCHS:-3} iters=${GT_ITERS:-1000}
g=${GT_SAMPLES:-100000} f=${GT_FSAMPLES:-1000000} R=${GT_RANK:-32}
export TENPORT_NO_PROGRESS=1
{
  echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader); nnz $nnz," \
       "rank $R, $epochs epochs of $iters steps, $g + $g samples per step, $f + $f for the estimate"
  "$tp" gen sparse --dims 200000x100000x50000 --nnz "$nnz" --skew 2 --values ones --seed 3 \
      -o /tmp/gt.tpb --force > /dev/null
  "$tp" convert -i /tmp/gt.tpb -o /tmp/gt.tns --force > /dev/null
  for rep in 1 2; do
    echo "== tenport, repeat $rep"
    "$tp" gcp -i /tmp/gt.tpb -r "$R" --loss poisson --solver adam --epochs "$epochs" \
        --epoch-iters "$iters" --samples "$g" --zero-samples "$g" --function-samples "$f" \
        --function-zero-samples "$f" --rate 1e-3 --decay 0.1 --max-fails 10 --seed 1 -q
    echo "== GenTen, repeat $rep"
    "$gt" --exec-space cuda --input /tmp/gt.tns --index-base 1 --sparse --method gcp-sgd \
        --type poisson --step adam --rank "$R" --maxiters "$epochs" --epochiters "$iters" \
        --sampling stratified --gnzs "$g" --gzs "$g" --fnzs "$f" --fzs "$f" --rate 1e-3 \
        --decay 0.1 --fails 10 --seed 1 --gcp-seed 1 --printitn 1 --timings 2>&1 | tail -25
  done
  echo "== tenport CP-ALS on the same tensor"
  "$tp" cp-als -i /tmp/gt.tpb -r "$R" --max-iters 20 --tol 0 -q
} 2>&1 | tee "$out/vs-genten.log"
