#!/usr/bin/env bash
# What --nonneg (HALS) costs per CP-ALS iteration against the unconstrained solve, on the
# same tensor and start: a planted dense tensor (tenport gen dense) and its sparse form
# (every entry above 0.5, tenport convert), ITERS iterations without the line search (the
# ALS iteration itself), the median over REPEATS runs after one warm-up of the solver's
# seconds per iteration (--json), and the ratio.
# Usage: perf/cp_als/nonneg_cost.sh TENPORT [DIMS] [RANK] [ITERS] [REPEATS]
#        (defaults 200x150x100, 16, 20, 5; OpenMP timed with OMP_WAIT_POLICY=passive)
set -euo pipefail
tenport=$1 dims=${2:-200x150x100} rank=${3:-16} iters=${4:-20} repeats=${5:-5}
export OMP_WAIT_POLICY=passive TENPORT_NO_PROGRESS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tenport" gen dense --dims "$dims" --rank "$rank" --noise 0.1 --seed 3 -o "$work/X.npy" >/dev/null
python3 - "$work" <<'EOF'
import sys
import numpy as np
x = np.load(f"{sys.argv[1]}/X.npy")
keep = x > np.quantile(x, 0.5)
with open(f"{sys.argv[1]}/X.tns", "w") as f:
    f.write(f"{x.ndim}\n{' '.join(map(str, x.shape))}\n")
    for idx in np.argwhere(keep):
        f.write(" ".join(str(i + 1) for i in idx) + f" {float(x[tuple(idx)])!r}\n")
EOF
# the median seconds per iteration of REPEATS runs (after one warm-up) of cp-als ARGS...
per_iteration() {
  local times=()
  for run in $(seq 0 "$repeats"); do
    "$tenport" cp-als -r "$rank" --tol 0 --max-iters "$iters" --no-line-search -q \
      --json "$work/s.json" --force "$@" >/dev/null
    [ "$run" -eq 0 ] && continue
    times+=("$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"]
print((r["solver_seconds"]) / r["iterations"])' "$work/s.json")")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
printf '%-8s %-14s %-14s %s\n' tensor "ALS s/it" "--nonneg s/it" ratio
for input in X.npy X.tns; do
  plain=$(per_iteration -i "$work/$input")
  nonneg=$(per_iteration -i "$work/$input" --nonneg)
  printf '%-8s %-14.6f %-14.6f %.3f\n' "$input" "$plain" "$nonneg" \
    "$(python3 -c "print($nonneg / $plain)")"
done
