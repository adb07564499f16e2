#!/usr/bin/env bash
# Where a GCP-Adam step's time goes on a GPU: the step of perf/gcp/vs-genten.sh under
# Nsight Systems (nsys, when the machine has it), kernel and memory-copy summaries in
# $OUT/profile-adam.txt; without nsys, the wall time of the same run only.
# Environment: TP_BUILD_DIR (default build-gpu), GT_NNZ (default 2000000), GT_ITERS (200).
set -uo pipefail
cd "$(dirname "$0")/../.."
tp=${TP_BUILD_DIR:-build-gpu}/tools/tenport
out=${OUT:-.}
nnz=${GT_NNZ:-2000000} iters=${GT_ITERS:-200}
export TENPORT_NO_PROGRESS=1
"$tp" gen sparse --dims 200000x100000x50000 --nnz "$nnz" --skew 2 --values ones --seed 3 \
    -o /tmp/prof.tpb --force > /dev/null
run=("$tp" gcp -i /tmp/prof.tpb -r 32 --loss poisson --solver adam --epochs 1
     --epoch-iters "$iters" --samples 100000 --zero-samples 100000 --function-samples 1000000
     --function-zero-samples 1000000 --seed 1 -q)
{
  echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name --format=csv,noheader); nnz $nnz, $iters steps"
  if command -v nsys > /dev/null; then
    nsys profile -o /tmp/adam --force-overwrite true --stats=false "${run[@]}"
    nsys stats --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum,cuda_api_sum --format table \
        /tmp/adam.nsys-rep 2>&1 | head -80
  else
    echo "nsys not found: wall time only"
    "${run[@]}"
  fi
} 2>&1 | tee "$out/profile-adam.txt"
