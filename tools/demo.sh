#!/usr/bin/env bash
# tenport's main job on built-in data: builds the OpenMP backend, then finds the fiber
# directions of a synthetic diffusion-MRI phantom (`tenport peaks --example`) and the
# eigenpairs of the Kofidis-Regalia tensor (`tenport sshopm --example`); both check
# their answers against the known truth; then the CP decompositions of a planted low-rank
# dense tensor (`tenport cp-als --example`, checked by its fit) and of a planted sparse
# low-rank tensor written as .tns (`tenport gen sparse`, then `tenport cp-als` on FLYCOO),
# and an exact sparse tensor train of a random power-law tensor (`tenport sttid`).
# Usage: tools/demo.sh            tools/demo.sh info [--full]   (machine ceilings instead)
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup/deps.sh build
build=build/openmp
[ -f "$build/build.ninja" ] || meson setup "$build" -Dtenport_backend=openmp -Dtests=disabled
ninja -C "$build" tools/tenport >/dev/null
if [ $# -gt 0 ]; then
  exec "$build/tools/tenport" "$@"
fi
"$build/tools/tenport" peaks --example
echo
"$build/tools/tenport" sshopm --example
echo
"$build/tools/tenport" cp-als --example --quiet
echo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/tools/tenport" gen sparse --dims 60x80x70 --rank 3 --support 8 --seed 7 \
  --output "$work/planted.tns"
"$build/tools/tenport" cp-als --input "$work/planted.tns" --rank 3 --tol 1e-9 --maxiters 200 \
  --quiet
echo
"$build/tools/tenport" gen sttid --kind power-law --dims 30,30,30,30 --nnz 2000 --alpha 2 \
  --seed 3 --output "$work/powerlaw.tns"
"$build/tools/tenport" sttid --input "$work/powerlaw.tns" --rmax 100000 --eps 1e-12 \
  --eps-relative --quiet
