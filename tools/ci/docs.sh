#!/usr/bin/env bash
# The manual's checks, in a few seconds:
#   - docs/ builds into HTML (build/docs-site) with `mkdocs build --strict`: a link to a
#     page or file that does not exist is an error, and so is a page missing from the nav
#     (mkdocs only reports that; this script fails on it);
#   - every relative link of README.md leads to a file or folder that exists;
#   - the commands' --help texts in docs/commands/*.md and the man page docs/tenport.1
#     are current (tools/docs/command_help.py --check, on build/openmp/tools/tenport or
#     $TENPORT), and the man page renders without warnings.
# Usage: tools/ci/docs.sh               (CI: after tools/test.sh, which builds tenport)
#        tools/ci/docs.sh --no-help     (the site and links only; no built tenport needed)
set -euo pipefail
cd "$(dirname "$0")/../.."

help=1
case "${1:-}" in
  "") ;;
  --no-help) help=0 ;;
  *) echo "usage: $0 [--no-help]" >&2; exit 2 ;;
esac
tools/setup/deps.sh docs

echo "== mkdocs build --strict"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! mkdocs build --strict --clean >"$log" 2>&1; then
  cat "$log"
  echo "docs.sh: the manual does not build" >&2
  exit 1
fi
if grep -q 'not included in the "nav"' "$log"; then
  sed -n '/not included in the "nav"/,/^[A-Z]/p' "$log"
  echo "docs.sh: pages of docs/ missing from the nav of mkdocs.yml" >&2
  exit 1
fi
echo "built build/docs-site ($(find build/docs-site -name '*.html' | wc -l) pages)"

echo "== README.md's relative links"
python3 - <<'EOF'
import os, re, sys
text = open("README.md", encoding="utf-8").read()
text = re.sub(r"```.*?```", "", text, flags=re.S)  # links in code blocks are not links
bad, count = [], 0
for target in re.findall(r"\]\(([^)\s]+)\)", text):
    if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
        continue
    count += 1
    path = target.split("#")[0]
    if not os.path.exists(path):
        bad.append(target)
for b in bad:
    print(f"docs.sh: README.md links to {b}, which does not exist", file=sys.stderr)
print(f"{count} links checked")
sys.exit(1 if bad else 0)
EOF

if ((help)); then
  echo "== the commands' --help texts in docs/"
  tools/docs/command_help.py --check
  echo "== the man page renders"
  warnings=$(LC_ALL=C groff -man -Tutf8 -ww -z docs/tenport.1 2>&1)
  if [ -n "$warnings" ]; then
    echo "$warnings"
    echo "docs.sh: docs/tenport.1 renders with warnings" >&2
    exit 1
  fi
fi
echo "== docs: OK"
