#!/usr/bin/env bash
# tenport's main job on built-in data: builds the OpenMP backend and runs `tenport info`
# (backend, device, measured ceilings and the portable layer's micro-benchmarks).
# Usage: tools/demo.sh [tenport info options, e.g. --full]
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup/deps.sh build
build=build/openmp
[ -f "$build/build.ninja" ] || meson setup "$build" -Dtenport_backend=openmp -Dtests=disabled
ninja -C "$build" tools/tenport >/dev/null
"$build/tools/tenport" info "$@"
