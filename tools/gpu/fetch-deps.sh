#!/usr/bin/env bash
# Downloads, with apt, the .deb files that a build on a machine without a package
# registry needs: Criterion (the test framework) with the runtime libraries it links,
# BLIS (OpenMP flavour), L-BFGS-B (GCP's full-gradient solver) with its Fortran, BLAS
# and LAPACK runtimes, and pkgconf (used there only if it has no pkg-config).
# Run on an x86-64 Debian/Ubuntu machine with network access; the files go to
# .deps/debs/ (git-ignored). Copy that folder along with the tree, then use
# tools/gpu/setup-deps.sh on the other machine.
#
# Libraries that any x86-64 Ubuntu 24.04 with gcc and python3 has (glibc, libstdc++,
# zlib, OpenSSL, PCRE2, libgomp) are left out: the target's newer copies serve.
# The rest of the closure is downloaded; setup-deps.sh puts on LD_LIBRARY_PATH only
# those the target lacks.
#
# Usage: tools/gpu/fetch-deps.sh [--no-blis]   (idempotent: present files are kept)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=$root/.deps/debs

with_blis=1
for arg in "$@"; do
    case $arg in
        --no-blis) with_blis=0 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "fetch-deps: unknown argument: $arg" >&2; exit 2 ;;
    esac
done

if [[ $(dpkg --print-architecture) != amd64 ]]; then
    echo "fetch-deps: this machine is $(dpkg --print-architecture); the target is amd64" >&2
    exit 1
fi

# Development packages (no recursion into their dependencies: only the headers, the
# .pc file and the link-time symlinks are needed).
direct=(libcriterion-dev liblbfgsb-dev)
# Runtime roots, downloaded with their dependency closure.
roots=(libcriterion3 liblbfgsb0 pkgconf-bin)
if ((with_blis)); then
    direct+=(libblis-openmp-dev)
    roots+=(libblis4-openmp)
fi
# Never shipped (present on the target, in versions at least as new).
declare -A base=()
for p in libc6 libgcc-s1 gcc-12-base gcc-13-base gcc-14-base libstdc++6 zlib1g libssl3 \
         libssl3t64 libpcre2-8-0 libgomp1 libcrypt1 libzstd1 liblzma5 libselinux1; do
    base[$p]=1
done

# Real (non-virtual) packages of this architecture in the closure of the roots.
mapfile -t closure < <(
    apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
        --no-breaks --no-replaces --no-enhances "${roots[@]}" |
        grep -E '^[a-z0-9]' | grep -v ':' | sort -u)

packages=()
for p in "${direct[@]}" "${closure[@]}"; do
    [[ -n ${base[$p]:-} ]] || packages+=("$p")
done

# As root, apt's download sandbox user cannot write here: download as root.
apt_opts=(-q)
((EUID == 0)) && apt_opts+=(-o APT::Sandbox::User=root)

mkdir -p "$dest"
cd "$dest"
for p in "${packages[@]}"; do
    if compgen -G "${p}_*.deb" >/dev/null; then
        echo "have  $(compgen -G "${p}_*.deb" | head -n1)"
    else
        echo "fetch $p"
        # Failing here usually means stale package lists: run apt-get update.
        apt-get download "${apt_opts[@]}" "$p"
    fi
done

echo "fetch-deps: ${#packages[@]} packages in $dest ($(du -sh . | cut -f1))"
