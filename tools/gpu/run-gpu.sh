#!/usr/bin/env bash
# One GPU session's work: build the CUDA backend, run every test suite, then the
# portable layer's micro-benchmarks at full size against CUB. Logs go to $OUT (or ./).
# Run from the repository root on the GPU machine, with .deps/ carried along
# (tools/gpu/fetch-deps.sh fills it on a machine with a package registry).
#
# A run worth keeping becomes a record: copy the logs folder ($OUT) to
# perf/results/DATE-MACHINE-WHAT/, write its README.md (what was measured, the machine, the
# date and revision, the commands, the figures as tables), then run
# tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-$PWD}
mkdir -p "$out"

tools/gpu/test-cuda.sh "$@"
tests=$?
. tools/gpu/setup-deps.sh
build=${TP_BUILD_DIR:-build-gpu}
{
  echo "tenport micro-benchmarks, $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "\$ $build/perf/tp-bench-primitives"
  "$build/perf/tp-bench-primitives"
} 2>&1 | tee "$out/bench-primitives.log"
bench=${PIPESTATUS[0]}
echo "tests exit $tests, benchmarks exit $bench"
[ "$tests" -eq 0 ] && [ "$bench" -eq 0 ]
