#!/usr/bin/env bash
# Fails when a test source is not a suite the build runs.
# Usage: tools/ci/check_suites.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: tools/ci/check_suites.sh BUILD_DIR}
listed=$(meson test -C "$build" --list --no-rebuild 2>/dev/null)
for f in tests/test_*.c; do
  s=$(basename "$f" .c)
  s=${s#test_}
  if ! grep -qx "tenport / $s" <<<"$listed"; then
    echo "check_suites.sh: $f is not a suite of $build (tests/meson.build)" >&2
    exit 1
  fi
done
