#!/usr/bin/env bash
# The C sources follow .clang-format: fails, listing the files, when clang-format would
# change any of them. With --fix, formats them in place instead.
# Usage: tools/ci/format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/../.."

format=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$format" ]; then
  tools/setup/deps.sh format
  format=$(command -v clang-format-14 || command -v clang-format)
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' | grep -v '^tools/build/')
if [ "${1:-}" = --fix ]; then
  "$format" -i --style=file "${files[@]}"
  exit 0
fi
# One clang-format process for every file (one a file took most of a minute); the files
# that differ are looked for only when some do.
if "$format" --style=file --dry-run -Werror "${files[@]}" >/dev/null 2>&1; then
  echo "== format: ${#files[@]} C files follow .clang-format"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$format" --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
echo "format.sh: ${#bad[@]} files differ from .clang-format (tools/ci/format.sh --fix):" >&2
printf '  %s\n' "${bad[@]}" >&2
exit 1
