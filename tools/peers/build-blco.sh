#!/usr/bin/env bash
# Builds BLCO (the GPU sparse MTTKRP peer) from .deps/peers/blco (see fetch-peers.sh)
# in a patched copy, .deps/peers/build/blco-<prec>/, with its own Makefile and our
# settings as make variables: GCC, OpenBLAS (-lopenblas, which holds LAPACK on
# Debian/Ubuntu), the CUDA arch (default sm_90), and for f32 -DUSE_32BIT_TYPE.
# The copy is patched so that (1) the value type FType follows USE_32BIT_TYPE (upstream
# hard-codes double with `#if 1`; its GPU code already switches on USE_32BIT_TYPE),
# and (2) LAPACK is called through lapack.h's LAPACK_dpotrf/LAPACK_spotrf... macros
# (Debian/Ubuntu's lapack.h declares dpotrf_ with the hidden string-length argument,
# and spotrf without an underscore does not exist), and (3) host code that assumed
# double (GELSY workspace, a transpose buffer, a std::max, the uniform generator) uses
# FType, and (4) gen_alto constructs its AltoTensor (upstream mallocs it, so pointers
# that destroy_alto frees are garbage: free() crashed on some tensors).
# Host code uses -march=native: build on the machine that runs it.
# The binary goes to .deps/peers/bin/blco-<prec>-cpd<mask> (the mask: 64 or 128 bits
# for the linearized index; 64 serves tensors whose index bits sum to at most 64).
#
# Usage: tools/peers/build-blco.sh [f32|f64] [64|128]    (default: f32 64)
#        BLCO_ARCH=sm_90 (compute capability), CUDA_HOME (default: from nvcc's path)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
src=$root/.deps/peers/blco
prec=${1:-f32}
mask=${2:-64}
arch=${BLCO_ARCH:-sm_90}
case $prec in f32|f64) ;; *) echo "build-blco: precision f32|f64" >&2; exit 2 ;; esac
case $mask in 64|128) ;; *) echo "build-blco: mask 64|128" >&2; exit 2 ;; esac
[[ -f $src/Makefile ]] || { echo "build-blco: no $src: run tools/peers/fetch-peers.sh" >&2; exit 1; }
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
cuda=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$nvcc")")")}

# Each edit must change its file (they are written for the pinned commit).
edit() {
    cp "$1" "$1.orig"
    sed -i -e "$2" "$1"
    if cmp -s "$1" "$1.orig"; then echo "build-blco: edit '$2' of $1 did not apply" >&2; exit 1; fi
    rm "$1.orig"
}
build=$root/.deps/peers/build/blco-$prec
patched="$(head -n1 "$src/.peer-commit") edits 2"   # bump when the edits change
if [[ $(cat "$build/.patched" 2>/dev/null) != "$patched" ]]; then
    rm -rf "$build" "$build.tmp"
    mkdir -p "$(dirname "$build")"
    cp -r "$src" "$build.tmp"
    cd "$build.tmp"
    edit include/common.hpp 's/^#if 1$/#ifndef USE_32BIT_TYPE/'
    edit include/common.hpp 's/\b\(dpotrf\|dpotrs\|dgelsy\)_$/LAPACK_\1/'
    edit include/common.hpp 's/\b\(spotrf\|spotrs\|sgelsy\)$/LAPACK_\1/'
    edit include/cpd.hpp 's/double work_qr;/FType work_qr;/'
    edit include/cpd.hpp 's/double rcond = /FType rcond = /'
    edit include/cpd.hpp 's/double\* work = (double\*) AlignedMalloc(sizeof(double)/FType* work = (FType*) AlignedMalloc(sizeof(FType)/'
    edit include/cpd.hpp 's/double \* vals = (double\*) AlignedMalloc(sizeof(double)/FType* vals = (FType*) AlignedMalloc(sizeof(FType)/'
    edit src/kruskal_model.cpp 's/std::max(_lambda\[i\], 1\.)/std::max(_lambda[i], (FType) 1)/'
    edit include/rng_stream.hpp 's/size_t len_v, double \*v)/size_t len_v, FType *v)/'
    edit src/rng_stream.cpp 's/size_t len_v, double \*v)/size_t len_v, FType *v)/'
    edit include/alto.hpp 's/(AltoTensor<LIT>\*)AlignedMalloc(sizeof(AltoTensor<LIT>))/new (AlignedMalloc(sizeof(AltoTensor<LIT>))) AltoTensor<LIT>()/'
    echo "$patched" > .patched
    cd "$root"
    mv "$build.tmp" "$build"
fi
# Objects from another machine or arch (-march=native, -gencode) are not reused.
stamp="$(hostname) $arch $nvcc"
[[ $(cat "$build/.built-for" 2>/dev/null) == "$stamp" ]] || rm -rf "$build"/build-* "$build"/cpd*
echo "$stamp" > "$build/.built-for"
options="-I$cuda/include"
[[ $prec == f64 ]] || options+=" -DUSE_32BIT_TYPE"
mkdir -p "$build/build-$mask"
make -C "$build" -j"$(nproc)" COMPILER=GCC BLAS_LIBRARY=OPENBLAS BLASLIBS=-lopenblas \
     ALTO_MASK_LENGTH="$mask" CUDA="$cuda" OPTIONS="$options" \
     NVCC="$nvcc -gencode=arch=compute_${arch#sm_},code=$arch"
mkdir -p "$root/.deps/peers/bin"
cp "$build/cpd$mask" "$root/.deps/peers/bin/blco-$prec-cpd$mask"
echo "build-blco: $root/.deps/peers/bin/blco-$prec-cpd$mask ($prec, $mask-bit mask, $arch, $nvcc)"
