#!/usr/bin/env bash
# Builds the serial and OpenMP backends and runs every test suite on both.
# Usage: tools/test.sh [backend...]   (default: serial openmp)
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup/deps.sh build test
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(serial openmp)
for b in "${backends[@]}"; do
  build="build/$b"
  [ -f "$build/build.ninja" ] || meson setup "$build" -Dtenport_backend="$b" -Dtests=enabled
  ninja -C "$build"
  echo "== tests, $b backend"
  meson test -C "$build" --print-errorlogs
done
