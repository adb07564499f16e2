#!/usr/bin/env bash
# tenport's main job on built-in data: installs what the build needs, builds the OpenMP
# backend and runs `tenport demo`: the four methods on example data, each answer checked
# (see tools/tenport/cmd_demo.c). Any arguments run that tenport command instead.
# Usage: tools/demo.sh            tools/demo.sh bench --quick    tools/demo.sh info --full
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup/deps.sh build
build=build/openmp
[ -f "$build/build.ninja" ] || meson setup "$build" -Dtenport_backend=openmp -Dtests=disabled
ninja -C "$build" tools/tenport >/dev/null
if [ $# -gt 0 ]; then
  exec "$build/tools/tenport" "$@"
fi
exec "$build/tools/tenport" demo
