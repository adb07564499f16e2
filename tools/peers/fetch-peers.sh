#!/usr/bin/env bash
# Exports the sources of the sparse MTTKRP peers, at pinned commits, into the
# git-ignored folder .deps/peers/<name>/ (no .git inside: nothing of theirs is
# committed here). Run on a machine with network access; carry .deps/peers to a
# machine without it, then use build-blco.sh, build-splatt.sh and run-peers.sh.
#   blco    github.com/jeewhanchoi/blocked-linearized-coordinate (C++/CUDA)
#   splatt  github.com/ShadenSmith/splatt (C/OpenMP; its tests/tensors and
#           tests/graphs data, 12 MB, are left out)
#   genten  github.com/sandialabs/GenTen (C++/Kokkos, GCP and CP-ALS; see
#           build-genten.sh); its bundled Kokkos, pybind11, Python and MATLAB parts
#           are left out
#   kokkos  Kokkos 4.7.00 as GenTen bundles it: tpls/kokkos of the same GenTen commit
#           (a git subtree of github.com/kokkos/kokkos master 552f2375de, the 4.7.00
#           release), the version GenTen is built and tested with
# By default each is fetched from GitHub (one commit, shallow). PEERS_SRC_BLCO,
# PEERS_SRC_SPLATT or PEERS_SRC_GENTEN=<git dir or work tree> exports from an existing
# local clone instead (kokkos comes from GenTen's, PEERS_SRC_GENTEN).
# A present export of the pinned commit is kept; --force exports again.
#
# Usage: tools/peers/fetch-peers.sh [--force] [blco] [splatt] [genten] [kokkos]
#        (default: blco splatt)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=$root/.deps/peers

declare -A url=(
    [blco]=https://github.com/jeewhanchoi/blocked-linearized-coordinate.git
    [splatt]=https://github.com/ShadenSmith/splatt.git
    [genten]=https://github.com/sandialabs/GenTen.git
    [kokkos]=https://github.com/sandialabs/GenTen.git
)
declare -A pin=(
    [blco]=1a6e4fcaabab0a0611acc5896fd304e7bacc47b4    # 2022-06-14
    [splatt]=6cb86283c1fbfddcc67c2564e025691de4f784cf  # 2022-03-03
    [genten]=0cd9151041ad06e43d6790a1c0173fc41718c928  # 2026-08-01 master
    [kokkos]=0cd9151041ad06e43d6790a1c0173fc41718c928  # GenTen's, tpls/kokkos: 4.7.00
)
# The folder of the commit that is exported ('' = the whole tree).
declare -A sub=(
    [blco]=''
    [splatt]=''
    [genten]=''
    [kokkos]=tpls/kokkos
)
declare -A skip=(
    [blco]=''
    [splatt]='tests/tensors tests/graphs'
    [genten]='tpls/kokkos tpls/pybind11 python matlab docker'
    [kokkos]=''
)
# Where a local clone is named (PEERS_SRC_<NAME>); kokkos lives in GenTen's repository.
declare -A srcvar=(
    [blco]=PEERS_SRC_BLCO
    [splatt]=PEERS_SRC_SPLATT
    [genten]=PEERS_SRC_GENTEN
    [kokkos]=PEERS_SRC_GENTEN
)

force=0
names=()
for arg in "$@"; do
    case $arg in
        --force) force=1 ;;
        blco|splatt|genten|kokkos) names+=("$arg") ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) echo "fetch-peers: unknown argument: $arg" >&2; exit 2 ;;
    esac
done
((${#names[@]})) || names=(blco splatt)

for name in "${names[@]}"; do
    commit=${pin[$name]}
    out=$dest/$name
    tree=$commit${sub[$name]:+:${sub[$name]}}
    if ((!force)) && [[ -f $out/.peer-commit && $(head -n1 "$out/.peer-commit") == "$tree" ]]; then
        echo "have  $name $tree in $out"
        continue
    fi
    var=${srcvar[$name]}
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
    git --git-dir="$gitdir" archive "$tree" -- . "${excludes[@]}" | tar -x -C "$out"
    printf '%s\n%s\n' "$tree" "$origin" > "$out/.peer-commit"
    [[ -z $tmp ]] || rm -rf "$tmp"
    echo "fetch $name $tree from $origin: $(du -sh "$out" | cut -f1)"
done
