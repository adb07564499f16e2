#!/usr/bin/env bash
# CP-ALS on Bro's amino-acid fluorescence tensor (5 x 201 x 61) at ranks 3 and 4 with the
# peers' defaults (random start, tol 1e-4 on the change of fit, 50 iterations): tenport's
# default (line search on) against plain ALS (--no-line-search: the Tensor Toolbox's and
# GenTen's iteration), over the seeds 1..SEEDS, and the best fit found by long runs
# (tol 1e-10, up to 3,000 iterations, from the nvecs start and from 6 random starts). The tensor is
# GenTen's data/aminoacid_data.txt (sptensor text, 0-based); the dense text form,
# data/aminoacid_data_dense.txt, gives the same figures where tenport reads it.
# Usage: perf/cp_als/amino_acid.sh TENPORT AMINO.txt [SEEDS]   (prints a table)
set -euo pipefail
tenport=$1 data=$2 seeds=${3:-10}
export OMP_WAIT_POLICY=passive TENPORT_NO_PROGRESS=1
# "FIT ITERATIONS (WHY)" of a run
fit() {
  "$tenport" cp-als -i "$data" -q "$@" |
    awk '/^fit /{why = $0; sub(/^[^(]*\(/, "", why); sub(/\).*/, "", why);
                 print $2, $4, "(" why ")"}'
}
for rank in 3 4; do
  best=$( (fit -r "$rank" --init nvecs --tol 1e-10 --max-iters 3000
           fit -r "$rank" --restarts 5 --tol 1e-10 --max-iters 3000) | sort -g | tail -1)
  echo "rank $rank: best fit found $best"
  printf '  %-5s %-30s %-30s\n' seed "default (line search)" "plain ALS (--no-line-search)"
  for seed in $(seq 1 "$seeds"); do
    printf '  %-5s %-30s %-30s\n' "$seed" "$(fit -r "$rank" -s "$seed")" \
      "$(fit -r "$rank" -s "$seed" --no-line-search)"
  done
done
