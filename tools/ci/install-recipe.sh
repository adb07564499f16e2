#!/usr/bin/env bash
# Runs README.md's install recipe verbatim: the sh block after the comment
# <!-- install-recipe -->, into a temporary prefix given only through PREFIX, the variable
# the recipe itself reads. Then checks what a user of that prefix sees:
#   - every file meson installed lies under the prefix;
#   - the installed `tenport --version` runs, with LD_LIBRARY_PATH unset;
#   - tools/examples/cp_als_host.c, compiled through `pkg-config --cflags --libs tenport`
#     against the prefix, links and runs with LD_LIBRARY_PATH unset (the .pc's rpath).
# The recipe installs from build/openmp, as tools/demo.sh or tools/test.sh left it (CI:
# after tools/test.sh, so nothing is compiled again); the build folder's prefix and libdir
# are put back afterwards, so tools/ci/examples.sh stages it as before.
# Usage: tools/ci/install-recipe.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build/openmp
if [ ! -f "$build/build.ninja" ]; then
  echo "install-recipe.sh: no $build: run tools/demo.sh or tools/test.sh first" >&2
  exit 1
fi
recipe=$(awk '/<!-- install-recipe -->/ { found = 1; next }
              found && /^```/ { if (inside) exit; inside = 1; next }
              found && inside { print }' README.md)
if [ -z "$recipe" ]; then
  echo "install-recipe.sh: README.md has no sh block after <!-- install-recipe -->" >&2
  exit 1
fi
grep -q 'PREFIX' <<<"$recipe" || {
  echo "install-recipe.sh: the recipe does not read PREFIX: it cannot be pointed elsewhere" >&2
  exit 1
}

tmp=$(mktemp -d)
read -r old_prefix old_libdir < <(meson introspect --buildoptions "$build" | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["libdir"])')
restore() {
  meson configure "$build" --prefix "$old_prefix" --libdir "$old_libdir" >/dev/null
  rm -rf "$tmp"
}
trap restore EXIT

prefix=$tmp/prefix
echo "== README.md's install recipe, PREFIX=$prefix:"
sed 's/^/   /' <<<"$recipe"
start=$(date +%s)
PREFIX=$prefix bash -euo pipefail -c "$recipe"
echo "(recipe: $(($(date +%s) - start)) s)"

echo "== installed files all under the prefix"
outside=$(grep -v '^#' "$build/meson-logs/install-log.txt" | grep -vx "$prefix" | grep -v "^$prefix/" || true)
if [ -n "$outside" ]; then
  echo "install-recipe.sh: installed outside $prefix:" >&2
  echo "$outside" >&2
  exit 1
fi
echo "$(grep -vc '^#' "$build/meson-logs/install-log.txt") files"

echo "== the installed command, LD_LIBRARY_PATH unset"
env -u LD_LIBRARY_PATH "$prefix/bin/tenport" --version

echo "== cp_als_host.c through pkg-config against the prefix, run with LD_LIBRARY_PATH unset"
pc=$(find "$prefix" -name tenport.pc -print -quit)
[ -n "$pc" ] || { echo "install-recipe.sh: no tenport.pc under $prefix" >&2; exit 1; }
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs tenport)
echo "pkg-config --cflags --libs tenport: $flags"
read -ra flags <<<"$flags"
cc -std=c11 -O2 -Wall -Wextra -Werror tools/examples/cp_als_host.c "${flags[@]}" -lm \
  -o "$tmp/cp_als_host"
env -u LD_LIBRARY_PATH "$tmp/cp_als_host"
echo "== install recipe: OK"
