#!/usr/bin/env bash
# Checks that a build's shared library exports tenport's public API and nothing else:
# each symbol it defines in its dynamic symbol table must be a function or variable
# declared in include/tenport/*.h, and each of those must be defined. The library is
# compiled with hidden visibility, the public declarations are marked TP_API
# (tenport/export.h) and the link keeps tp_ names only (tools/build/tenport.map); a
# missing TP_API, or a definition that does not see its declaration, shows here as a
# missing name, and an internal function that escapes as an extra one.
# Usage: tools/ci/exports.sh BUILD_DIR...   (tools/test.sh and tools/ci/gpu-compile.sh run
#        it on each build they make, after building it)
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ $# -eq 0 ]; then
  echo "usage: $0 BUILD_DIR..." >&2
  exit 2
fi

# The names the headers declare, comments left out: functions (a name and its '(') and
# variables (extern declarations).
declared=$(python3 - include/tenport/*.h <<'EOF'
import re
import sys

names = set()
for path in sys.argv[1:]:
    with open(path, encoding='utf-8') as f:
        code = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', f.read(), flags=re.S)
    names.update(re.findall(r'\b(tp_[a-z0-9_]+)\s*\(', code))
    for decl in re.findall(r'\bextern\b[^;{}"]*;', code):
        names.update(re.findall(r'\b(tp_[a-z0-9_]+)\s*(?:\[[^\]]*\]\s*)*;', decl))
print('\n'.join(sorted(names)))
EOF
)
[ -n "$declared" ] || { echo "exports.sh: no declarations found in include/tenport" >&2; exit 1; }

status=0
for build in "$@"; do
  libs=()
  for f in "$build"/libtenport_*.so; do
    [ -e "$f" ] && libs+=("$f")
  done
  if [ ${#libs[@]} -ne 1 ]; then
    echo "exports.sh: expected one libtenport_<backend>.so in $build, found ${#libs[@]}" \
      "(is it built?)" >&2
    exit 1
  fi
  lib=${libs[0]}
  # Names without symbol versions; the linker's own section markers are not tenport's.
  defined=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sed 's/@.*//' |
    grep -vxE '_init|_fini|__bss_start|_edata|_end' | LC_ALL=C sort -u)
  extra=$(LC_ALL=C comm -23 <(echo "$defined") <(echo "$declared"))
  missing=$(LC_ALL=C comm -13 <(echo "$defined") <(echo "$declared"))
  if [ -n "$extra" ]; then
    echo "exports.sh: $lib exports $(wc -l <<<"$extra") symbols that include/tenport/*.h" \
      "does not declare (internal functions should be hidden):" >&2
    while IFS= read -r name; do echo "  $name"; done <<<"$extra" >&2
    status=1
  fi
  if [ -n "$missing" ]; then
    echo "exports.sh: $lib does not export $(wc -l <<<"$missing") functions that" \
      "include/tenport/*.h declares (TP_API missing, or a definition that does not" \
      "include its header):" >&2
    while IFS= read -r name; do echo "  $name"; done <<<"$missing" >&2
    status=1
  fi
  if [ -z "$extra" ] && [ -z "$missing" ]; then
    echo "== exports of $lib: $(wc -l <<<"$defined") symbols, the public API"
  fi
done
exit $status
