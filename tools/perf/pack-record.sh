#!/bin/sh
# Packs one benchmark record folder (perf/results/DATE-what/) into its README.md and one
# archive, logs.tar.xz, of every other file in it; then lists the archive at the end of
# the README. Run again after adding files: they join the archive. The archive depends
# only on the files' names, contents and executable bits and on the date in the folder's
# name (PACK_MTIME overrides it), so packing the same files twice gives the same bytes.
#
#   tools/perf/pack-record.sh perf/results/2026-11-28-h200-floor
#   tar -xJf perf/results/2026-11-28-h200-floor/logs.tar.xz -C /tmp/floor   # to read it
set -eu

usage() {
  echo "usage: $0 RECORD_DIR   (a folder under perf/results/ with a README.md)" >&2
  exit 2
}
if [ $# -ne 1 ] || [ ! -d "$1" ]; then usage; fi
dir=${1%/}
[ -f "$dir/README.md" ] || { echo "$0: $dir has no README.md; write it first" >&2; exit 1; }

name=$(basename "$(cd "$dir" && pwd)")
day=$(echo "$name" | sed -n 's/^\([0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\).*/\1/p')
mtime=${PACK_MTIME:-${day:-1970-01-01} 00:00:00 UTC}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/files"

# The earlier archive, if any, then the loose files on top of it (a changed file is an error).
if [ -f "$dir/logs.tar.xz" ]; then
  tar -xJf "$dir/logs.tar.xz" -C "$work/files"
fi
(cd "$dir" && find . -type f ! -path ./README.md ! -path ./logs.tar.xz -print) |
  LC_ALL=C sort > "$work/loose"
while IFS= read -r f; do
  if [ -e "$work/files/$f" ] && ! cmp -s "$dir/$f" "$work/files/$f"; then
    echo "$0: $f differs from the copy already in logs.tar.xz; rename one" >&2
    exit 1
  fi
  mkdir -p "$work/files/$(dirname "$f")"
  cp -p "$dir/$f" "$work/files/$f"
done < "$work/loose"

(cd "$work/files" && find . -type f -print | sed 's|^\./||' | LC_ALL=C sort) > "$work/list"
if [ ! -s "$work/list" ]; then
  echo "$0: $dir holds nothing but its README.md; nothing to pack" >&2
  exit 0
fi

XZ_OPT='-9e -T1' LC_ALL=C tar --sort=name --format=gnu --mtime="$mtime" --owner=0 --group=0 \
  --numeric-owner --mode='u=rwX,go=rX' --no-recursion -C "$work/files" -T "$work/list" \
  -cJf "$work/logs.tar.xz"
mv "$work/logs.tar.xz" "$dir/logs.tar.xz"

# Loose files are now in the archive: remove them and the folders they leave empty.
while IFS= read -r f; do rm -f "$dir/$f"; done < "$work/loose"
find "$dir" -mindepth 1 -type d -empty -delete

# The README ends with the archive's listing, rewritten on every run.
marker='<!-- pack-record.sh: listing below, generated -->'
readme="$dir/README.md"
sed "/^$marker\$/,\$d" "$readme" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$work/readme"
{
  cat "$work/readme"
  echo
  echo "$marker"
  echo
  echo "## Files in \`logs.tar.xz\`"
  echo
  echo "Every file of the run named above is in \`logs.tar.xz\` (\`tar -xJf logs.tar.xz\`)."
  echo
  echo "| file | bytes |"
  echo "|---|---|"
  while IFS= read -r f; do
    # shellcheck disable=SC2016 # the backquotes are Markdown's
    printf '| `%s` | %s |\n' "$f" "$(wc -c < "$work/files/$f" | tr -d ' ')"
  done < "$work/list"
} > "$readme"
echo "$dir: $(wc -l < "$work/list" | tr -d ' ') files in logs.tar.xz ($(wc -c < "$dir/logs.tar.xz" | tr -d ' ') bytes)"
