#!/usr/bin/env bash
# Fails when a test source is not a suite the build runs.
# Usage: tools/ci/check_suites.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: tools/ci/check_suites.sh BUILD_DIR}
listed=$(meson test -C "$build" --list --no-rebuild 2>/dev/null)
# every suite file (tests/**/test_*.c but the MPI programs, the fuzzers and the command
# line's pytest files) is a test meson runs (tests/list_suites.py finds them when the
# build is configured)
for f in $(find tests -name 'test_*.c' -not -path 'tests/mpi/*' -not -path 'tests/fuzz/*' \
             -not -path 'tests/cli/*'); do
  s=$(basename "$f" .c)
  s=${s#test_}
  if ! grep -qx "tenport / $s" <<<"$listed"; then
    echo "check_suites.sh: $f is not a suite of $build (tests/list_suites.py)" >&2
    exit 1
  fi
done
