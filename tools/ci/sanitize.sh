#!/usr/bin/env bash
# Runs the serial test suites under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/../.."

tools/setup/deps.sh build test
build=build/serial-sanitize
[ -f "$build/build.ninja" ] || meson setup "$build" -Dtenport_backend=serial -Dtests=enabled \
  -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
ninja -C "$build"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== tests under ASan and UBSan, serial backend"
meson test -C "$build" --print-errorlogs
