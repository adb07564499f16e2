#!/usr/bin/env bash
# Runs the serial test suites under AddressSanitizer and UndefinedBehaviorSanitizer (the
# distributed programs on 2 and 3 ranks: suites.sh runs every rank count on the serial
# build), then fuzzes the readers and the command line (tools/ci/fuzz.sh, FUZZ_SECONDS).
set -euo pipefail
cd "$(dirname "$0")/../.."

tools/setup/deps.sh build test
build=build/serial-sanitize
[ -f "$build/build.ninja" ] || meson setup "$build" -Dtenport_backend=serial -Dtests=enabled \
  -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
  -Dmpi_test_ranks=2,3
ninja -C "$build"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== tests under ASan and UBSan, serial backend"
meson test -C "$build" --print-errorlogs --no-rebuild
FUZZ_SECONDS=${FUZZ_SECONDS:-60} tools/ci/fuzz.sh
