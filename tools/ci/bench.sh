#!/usr/bin/env bash
# CI: `tenport bench --quick` on the OpenMP build (every case's result is checked, so a
# wrong answer fails here), then the charts drawn from its JSON by tools/plot.
# Output: build/bench-quick/ (bench-openmp.json, the table, the charts).
set -euo pipefail
cd "$(dirname "$0")/../.."

tools/setup/deps.sh build plot
build=build/openmp
[ -f "$build/build.ninja" ] || meson setup "$build" -Dtenport_backend=openmp -Dtests=enabled
ninja -C "$build" tools/tenport
out=build/bench-quick
mkdir -p "$out"
echo "== tenport bench --quick, openmp backend"
start=$(date +%s)
OMP_WAIT_POLICY=passive "$build/tools/tenport" bench --quick --json "$out/bench-openmp.json" |
  tee "$out/bench-openmp.txt"
echo "(bench took $(($(date +%s) - start)) s)"
echo "== charts of that run"
python3 tools/plot/plot_bench.py "$out/bench-openmp.json" --output-dir "$out"
