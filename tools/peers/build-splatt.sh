#!/usr/bin/env bash
# Builds SPLATT (the CPU sparse CP-ALS/MTTKRP peer) from .deps/peers/splatt (see
# fetch-peers.sh) with its own ./configure (CMake) and make, OpenMP on, values in
# single precision by default. BLAS/LAPACK: OpenBLAS when the compiler finds
# libopenblas.so (Debian/Ubuntu's holds LAPACK too), else CMake's detection;
# SPLATT_BLAS_LIB / SPLATT_LAPACK_LIB (full paths) override. -march=native: build
# on the machine that runs it. The binary goes to .deps/peers/bin/splatt-f32-i64 (f64, i32 likewise).
# CMake >= 4 refuses SPLATT's cmake_minimum_required(2.8): the policy floor is raised
# with CMAKE_POLICY_VERSION_MINIMUM=3.5, which older CMake ignores.
#
# Usage: tools/peers/build-splatt.sh [single|double] [32|64] [mpi]
#        (value precision, default single; index width, default 64 as SPLATT's; mpi:
#        SPLATT's MPI build (--with-mpi), binary splatt-mpi-<bits>-i<idx>)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
src=$root/.deps/peers/splatt
prec=${1:-single}
idx=${2:-64}
mpi=${3:-}
case $mpi in ''|mpi) ;; *) echo "build-splatt: the third argument is 'mpi' or nothing" >&2; exit 2 ;; esac
case $prec in single|double) ;; *) echo "build-splatt: precision single|double" >&2; exit 2 ;; esac
case $idx in 32|64) ;; *) echo "build-splatt: index width 32|64" >&2; exit 2 ;; esac
[[ -f $src/configure ]] || { echo "build-splatt: no $src: run tools/peers/fetch-peers.sh" >&2; exit 1; }

variant=$prec-i$idx${mpi:+-mpi}
opts=(--precision="$prec" --index-size="$idx" --build-dir="build/$variant")
[[ -z $mpi ]] || opts+=(--with-mpi)
blas=${SPLATT_BLAS_LIB:-}
lapack=${SPLATT_LAPACK_LIB:-}
openblas=$(${CC:-gcc} -print-file-name=libopenblas.so)
if [[ -z $blas && $openblas == /* ]]; then
    blas=$(readlink -f "$openblas")
fi
if [[ -z $lapack && -n $blas && $blas == *openblas* ]]; then
    lapack=$blas
fi
[[ -z $blas ]] || opts+=(--with-blas-lib="$blas")
[[ -z $lapack ]] || opts+=(--with-lapack-lib="$lapack")

cd "$src"
# configure writes include/splatt/types.h into the source tree: one variant at a time.
CMAKE_POLICY_VERSION_MINIMUM=3.5 ./configure "${opts[@]}"
make -j"$(nproc)" -C "build/$variant" splatt_bin
mkdir -p "$root/.deps/peers/bin"
bits=f64; [[ $prec == double ]] || bits=f32
bin=$root/.deps/peers/bin/splatt${mpi:+-mpi}-$bits-i$idx
cp "build/$variant/bin/splatt" "$bin"
echo "build-splatt: $bin (values $prec, indices $idx-bit, BLAS ${blas:-auto}, LAPACK ${lapack:-auto})"
