#!/usr/bin/env bash
# `tenport bench` at an earlier revision and at this tree, in one job on one GPU, the runs
# alternating (base, tree, base, tree), so that a change's effect is told from the
# machine's drift. The earlier revision comes as a tarball made where the history is:
#   git archive REV -o .deps/base-REV.tar        (.deps/ is carried to the GPU machine)
# Each is built with the CUDA backend and no tests; each run writes its JSON.
#
# Usage: tools/gpu/run-compare.sh .deps/base-REV.tar [RESULTS_DIR]   (default $OUT, else ./)
# Environment: SIZE=full|quick (default full), RUNS (pairs of runs, default 2),
#              BENCH_ARGS (more arguments of tenport bench, e.g. "--only dense")
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
tarball=${1:?usage: run-compare.sh .deps/base-REV.tar [RESULTS_DIR]}
out=${2:-${OUT:-$PWD}}
mkdir -p "$out"
size=${SIZE:-full}
runs=${RUNS:-2}
base_name=$(basename "$tarball" .tar)
base_src=/tmp/tenport-$base_name
say() { echo "== $* ($(date -u '+%H:%M:%S'))"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/GPU: /'

build() { # SOURCE BUILD_DIR
  (cd "$1" && { [[ -f $2/build.ninja ]] ||
    meson setup "$2" -Dtenport_backend=cuda -Dnvcc_arch=sm_90 -Dtests=disabled >/dev/null; } &&
    ninja -C "$2" tools/tenport >/dev/null)
}

say "build $base_name and this tree"
rm -rf "$base_src" && mkdir -p "$base_src" && tar -xf "$tarball" -C "$base_src" || exit 1
build "$base_src" build-compare || { echo "the base did not build"; exit 1; }
build "$PWD" build-compare || { echo "this tree did not build"; exit 1; }

for ((i = 1; i <= runs; i++)); do
  for which in base tree; do
    src=$PWD
    [[ $which == base ]] && src=$base_src
    say "run $i: $which"
    (cd "$src" && timeout 240 build-compare/tools/tenport bench "--$size" ${BENCH_ARGS:-} \
      --json "$out/bench-$which-$i.json") >"$out/bench-$which-$i.log" 2>&1
    echo "exit $?"
    grep -E "^(method|dense|cp-als|sshopm|sparse|sttid)" "$out/bench-$which-$i.log" | cut -c1-150
  done
done
say done
