#!/usr/bin/env bash
# `tenport bench` at an earlier revision and at this tree, in one job on one GPU, the runs
# alternating (base, tree, base, tree), so that a change's effect is told from the
# machine's drift: run-variants.sh with the two variants. The earlier revision comes as a
# tarball made where the history is:
#   git archive REV -o .deps/base-REV.tar        (.deps/ is carried to the GPU machine)
# Each run writes RESULTS_DIR/{base,tree}-<round>.log and .json.
#
# Usage: tools/gpu/run-compare.sh .deps/base-REV.tar [RESULTS_DIR]   (default $OUT, else ./)
# Environment: SIZE=full|quick (default full), RUNS (pairs of runs, default 2),
#              BENCH_ARGS (more arguments of tenport bench, e.g. "--only dense"),
#              BACKEND (default cuda)
#
# A run worth keeping becomes a record: copy RESULTS_DIR to perf/results/DATE-MACHINE-WHAT/,
# write its README.md (what was measured, the machine, the date and revision, the commands,
# the figures as tables), then run tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
tarball=${1:?usage: run-compare.sh .deps/base-REV.tar [RESULTS_DIR]}
out=${2:-${OUT:-$PWD}}
mkdir -p "$out"
out=$(cd "$out" && pwd) # the runs start in each variant's source folder
# shellcheck disable=SC2086 # BENCH_ARGS is a list of words
VARIANTS="base=$tarball tree=" RUNS=${RUNS:-2} TIMEOUT=240 \
  tools/gpu/run-variants.sh "$out" tools/tenport bench "--${SIZE:-full}" ${BENCH_ARGS:-} \
  --json "$out/@RUN@.json"
