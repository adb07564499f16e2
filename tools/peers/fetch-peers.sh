#!/usr/bin/env bash
# Exports the sources of the sparse MTTKRP peers, at pinned commits, into the
# git-ignored folder .deps/peers/<name>/ (no .git inside: nothing of theirs is
# committed here). Run on a machine with network access; carry .deps/peers to a
# machine without it, then use build-blco.sh, build-splatt.sh and run-peers.sh.
#   blco    github.com/jeewhanchoi/blocked-linearized-coordinate (C++/CUDA)
#   splatt  github.com/ShadenSmith/splatt (C/OpenMP; its tests/tensors and
#           tests/graphs data, 12 MB, are left out)
# By default each is fetched from GitHub (one commit, shallow). PEERS_SRC_BLCO or
# PEERS_SRC_SPLATT=<git dir or work tree> exports from an existing local clone instead.
# A present export of the pinned commit is kept; --force exports again.
#
# Usage: tools/peers/fetch-peers.sh [--force] [blco] [splatt]   (default: both)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=$root/.deps/peers

declare -A url=(
    [blco]=https://github.com/jeewhanchoi/blocked-linearized-coordinate.git
    [splatt]=https://github.com/ShadenSmith/splatt.git
)
declare -A pin=(
    [blco]=1a6e4fcaabab0a0611acc5896fd304e7bacc47b4    # 2022-06-14
    [splatt]=6cb86283c1fbfddcc67c2564e025691de4f784cf  # 2022-03-03
)
declare -A skip=(
    [blco]=''
    [splatt]='tests/tensors tests/graphs'
)

force=0
names=()
for arg in "$@"; do
    case $arg in
        --force) force=1 ;;
        blco|splatt) names+=("$arg") ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "fetch-peers: unknown argument: $arg" >&2; exit 2 ;;
    esac
done
((${#names[@]})) || names=(blco splatt)

for name in "${names[@]}"; do
    commit=${pin[$name]}
    out=$dest/$name
    if ((!force)) && [[ -f $out/.peer-commit && $(head -n1 "$out/.peer-commit") == "$commit" ]]; then
        echo "have  $name $commit in $out"
        continue
    fi
    var=PEERS_SRC_${name^^}
    src=${!var:-}
    tmp=
    if [[ -n $src ]]; then
        gitdir=$(git -C "$src" rev-parse --absolute-git-dir 2>/dev/null || echo "$src")
        origin="$src (local)"
    else
        tmp=$(mktemp -d)
        gitdir=$tmp/git
        git init -q --bare "$gitdir"
        git --git-dir="$gitdir" fetch -q --depth 1 "${url[$name]}" "$commit"
        origin=${url[$name]}
    fi
    excludes=()
    for p in ${skip[$name]}; do excludes+=(":(exclude)$p"); done
    rm -rf "$out"
    mkdir -p "$out"
    git --git-dir="$gitdir" archive "$commit" -- . "${excludes[@]}" | tar -x -C "$out"
    printf '%s\n%s\n' "$commit" "$origin" > "$out/.peer-commit"
    [[ -z $tmp ]] || rm -rf "$tmp"
    echo "fetch $name $commit from $origin: $(du -sh "$out" | cut -f1)"
done
