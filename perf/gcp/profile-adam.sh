#!/usr/bin/env bash
# Where a GCP-Adam step's time goes on a GPU: the step of perf/gcp/vs-genten.sh under
# Nsight Systems (nsys) when the machine has it, else under Nsight Compute (ncu: each
# kernel's duration, serialised, summed per kernel name by perf/gcp/ncu_summary.py), with
# the wall time of the same run unprofiled beside it; the report in $OUT/profile-adam.txt.
# The wall time per step less the kernels' sum per step is what the host and the launches
# cost.
# Environment: TP_BUILD_DIR (default build-gpu), GT_NNZ (default 2000000), GT_ITERS (200;
# under ncu, NCU_ITERS, default 20).
set -uo pipefail
cd "$(dirname "$0")/../.."
tp=${TP_BUILD_DIR:-build-gpu}/tools/tenport
out=${OUT:-.}
nnz=${GT_NNZ:-2000000} iters=${GT_ITERS:-200} ncu_iters=${NCU_ITERS:-20}
export TENPORT_NO_PROGRESS=1
"$tp" gen sparse --dims 200000x100000x50000 --nnz "$nnz" --skew 2 --values ones --seed 3 \
    -o /tmp/prof.tpb --force > /dev/null
run() {
  "$tp" gcp -i /tmp/prof.tpb -r 32 --loss poisson --solver adam --epochs 1 --epoch-iters "$1" \
      --samples 100000 --zero-samples 100000 --function-samples 1000000 \
      --function-zero-samples 1000000 --seed 1 -q --json /tmp/prof.json --force
}
{
  echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader); nnz $nnz"
  for steps in "$iters" "$ncu_iters"; do
    run "$steps" > /dev/null
    python3 -c "import json; r = json.load(open('/tmp/prof.json'))['results']
print('unprofiled: $steps steps, solver', round(r['seconds'], 4), 's')"
  done
  if command -v nsys > /dev/null; then
    nsys profile -o /tmp/adam --force-overwrite true --stats=false \
        "$tp" gcp -i /tmp/prof.tpb -r 32 --loss poisson --solver adam --epochs 1 \
        --epoch-iters "$iters" --samples 100000 --zero-samples 100000 \
        --function-samples 1000000 --function-zero-samples 1000000 --seed 1 -q > /dev/null
    nsys stats --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_api_sum --format table \
        /tmp/adam.nsys-rep 2>&1 | head -80
  elif command -v ncu > /dev/null; then
    echo "== ncu, $ncu_iters steps (the estimate's sample and the setup included)"
    ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file /tmp/ncu.csv \
        "$tp" gcp -i /tmp/prof.tpb -r 32 --loss poisson --solver adam --epochs 1 \
        --epoch-iters "$ncu_iters" --samples 100000 --zero-samples 100000 \
        --function-samples 1000000 --function-zero-samples 1000000 --seed 1 -q > /dev/null
    python3 perf/gcp/ncu_summary.py /tmp/ncu.csv --steps "$ncu_iters"
  else
    echo "neither nsys nor ncu found: wall times only"
  fi
} 2>&1 | tee "$out/profile-adam.txt"
