#!/usr/bin/env bash
# Builds GenTen (the GCP / CP-ALS peer, C++ on Kokkos) for NVIDIA GPUs from
# .deps/peers/kokkos and .deps/peers/genten (see fetch-peers.sh), in two CMake steps:
#   1. Kokkos 4.7.00 (GenTen's bundled version): CUDA for $GENTEN_KOKKOS_ARCH (default
#      HOPPER90, sm_90) plus Serial on the host, static, Release, no tests, compiled
#      through its nvcc_wrapper around g++; installed into the work folder.
#   2. GenTen against that Kokkos (Kokkos_ROOT), its bundled Kokkos Kernels built inline
#      (BLAS and BATCHED components, cuBLAS), static, Release, double values, size_t
#      indices, no MPI, Python, MATLAB, Boost, Caliper or Trilinos (ROL, Teuchos,
#      Tpetra, SEACAS). Only the `genten` driver is built (not the tests or perf_*).
#      Host BLAS/LAPACK: Debian/Ubuntu's static reference libblas.a/liblapack.a with
#      libgfortran/libquadmath linked statically, so the binary does not need
#      libblas/liblapack/libgfortran at run time; the GPU path uses cuBLAS and cuSOLVER
#      (shared, from the CUDA toolkit). GCP losses: $GENTEN_LOSSES, default
#      Gaussian;Poisson (GenTen's own default adds Rayleigh, Gamma and Bernoulli; each
#      loss adds roughly 6 MB to the binary, 26 MB with two, and 10-20 minutes to a
#      2-core build).
#   Size: the device code is compressed with nvcc --compress-mode=size (through
#   NVCC_APPEND_FLAGS; the default mode left a 93 MB fatbin, 135 MB binary with five
#   losses), host code is compiled with -ffunction-sections and linked with
#   --gc-sections, and the binary is stripped.
# Both sources are patched in copies under the work folder, each edit checked, for
# CUDA 13 (written for the pinned commits):
#   (1) Kokkos's cudaMemPrefetchAsync call takes a cudaMemLocation and flags, and its
#       cudaGraphAddDependencies call an edge-data argument (nullptr), from CUDA 13 on;
#   (2) nvcc_wrapper's default -arch (used when none is given, as in CMake's compiler
#       checks) is sm_75 instead of sm_70, which CUDA 13 no longer supports;
#   (3) GenTen links -lnvToolsExt, which CUDA 13 no longer ships (NVTX 3 is header-only
#       and GenTen calls none of it): the link flag is dropped.
# The stripped binary goes to .deps/peers/build/genten-cuda/bin/genten (the folder to
# carry to the GPU machine), with the ldd listing beside it (genten.ldd); build trees
# and the Kokkos install stay in .deps/peers/build/genten-cuda.work/. At run time it
# needs libcuda.so.1 and CUDA 13's libcudart, libcublas(+Lt), libcusolver (+cusparse,
# nvJitLink); without a GPU Kokkos aborts at start-up (cudaGetDeviceCount).
# Host code gets no -march: the binary runs on any x86-64 host.
#
# Usage: tools/peers/build-genten.sh
#        GENTEN_KOKKOS_ARCH=HOPPER90 (a Kokkos_ARCH_ name),
#        GENTEN_LOSSES="Gaussian;Poisson;Bernoulli" (Gaussian is required)
#        JOBS=2 (parallel compiles), CUDA_HOME (default: from nvcc's path)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ksrc=$root/.deps/peers/kokkos
gsrc=$root/.deps/peers/genten
arch=${GENTEN_KOKKOS_ARCH:-HOPPER90}
losses=${GENTEN_LOSSES:-Gaussian;Poisson}
jobs=${JOBS:-2}
[[ -f $ksrc/bin/nvcc_wrapper ]] || { echo "build-genten: no $ksrc: run tools/peers/fetch-peers.sh kokkos" >&2; exit 1; }
[[ -f $gsrc/driver/Genten_Driver.cpp ]] || { echo "build-genten: no $gsrc: run tools/peers/fetch-peers.sh genten" >&2; exit 1; }
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
cuda=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$nvcc")")")}
[[ -x $cuda/bin/nvcc ]] || { echo "build-genten: no nvcc in $cuda/bin" >&2; exit 1; }
export PATH=$cuda/bin:$PATH CUDA_HOME=$cuda

# Static host BLAS/LAPACK and the Fortran runtime they need.
multiarch=$(gcc -print-multiarch)
blas=/usr/lib/$multiarch/blas/libblas.a
lapack=/usr/lib/$multiarch/lapack/liblapack.a
gfortran=$(gcc -print-file-name=libgfortran.a)
quadmath=$(gcc -print-file-name=libquadmath.a)
for f in "$blas" "$lapack" "$gfortran" "$quadmath"; do
    [[ -f $f ]] || { echo "build-genten: no $f (apt-get install libblas-dev liblapack-dev gfortran)" >&2; exit 1; }
done

work=$root/.deps/peers/build/genten-cuda.work
prefix=$root/.deps/peers/build/genten-cuda
mkdir -p "$work"

# Each edit must change its file (they are written for the pinned commits).
edit() {
    cp "$1" "$1.orig"
    sed -i -e "$2" "$1"
    if cmp -s "$1" "$1.orig"; then echo "build-genten: edit '$2' of $1 did not apply" >&2; exit 1; fi
    rm "$1.orig"
}
# copy SRC DEST STAMP: a fresh copy of SRC at DEST unless DEST/.patched says STAMP.
fresh_copy() {
    if [[ $(cat "$2/.patched" 2>/dev/null) == "$3" ]]; then return 1; fi
    rm -rf "$2" "$2.tmp"
    cp -r "$1" "$2.tmp"
    return 0
}

# --- Kokkos -----------------------------------------------------------------------
kcopy=$work/kokkos-src
kstamp="$(head -n1 "$ksrc/.peer-commit") edits 3"   # bump when the edits change
if fresh_copy "$ksrc" "$kcopy" "$kstamp"; then
    f=$kcopy.tmp/core/src/Cuda/Kokkos_Cuda_Instance.hpp
    edit "$kcopy.tmp/bin/nvcc_wrapper" 's/^default_arch="sm_70"$/default_arch="sm_75"/'
    edit "$f" 's|^\(    return cudaGraphAddDependencies(graph, from, to, \)numDependencies);$|#if CUDART_VERSION >= 13000\n\1nullptr, numDependencies);\n#else\n\1numDependencies);\n#endif|'
    edit "$f" 's|^\(    return cudaMemPrefetchAsync(devPtr, count, dstDevice, m_stream);\)$|#if CUDART_VERSION >= 13000\n    cudaMemLocation loc = {cudaMemLocationTypeDevice, dstDevice};\n    return cudaMemPrefetchAsync(devPtr, count, loc, 0, m_stream);\n#else\n\1\n#endif|'
    echo "$kstamp" > "$kcopy.tmp/.patched"
    mv "$kcopy.tmp" "$kcopy"
    rm -rf "$work/kokkos-build" "$work/kokkos"
fi
kconf=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$work/kokkos"
       -DCMAKE_INSTALL_LIBDIR=lib
       -DCMAKE_CXX_COMPILER="$kcopy/bin/nvcc_wrapper" -DCMAKE_CXX_STANDARD=17
       -DBUILD_SHARED_LIBS=OFF -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_CUDA=ON
       -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ARCH_"$arch"=ON
       -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF -DKokkos_ENABLE_BENCHMARKS=OFF)
stamp="$(hostname) $arch $("$cuda/bin/nvcc" --version | tail -n1)"
[[ $(cat "$work/kokkos-build/.built-for" 2>/dev/null) == "$stamp" ]] || rm -rf "$work/kokkos-build" "$work/kokkos"
if [[ ! -f $work/kokkos/lib/cmake/Kokkos/KokkosConfig.cmake ]]; then
    nice -n 19 cmake -S "$kcopy" -B "$work/kokkos-build" "${kconf[@]}"
    nice -n 19 cmake --build "$work/kokkos-build" -j "$jobs"
    nice -n 19 cmake --install "$work/kokkos-build"
    echo "$stamp" > "$work/kokkos-build/.built-for"
fi
[[ -f $work/kokkos/lib/cmake/Kokkos/KokkosConfig.cmake ]] || { echo "build-genten: Kokkos did not install" >&2; exit 1; }

# --- GenTen -----------------------------------------------------------------------
gcopy=$work/genten-src
gstamp="$(head -n1 "$gsrc/.peer-commit") edits 1"   # bump when the edits change
if fresh_copy "$gsrc" "$gcopy" "$gstamp"; then
    edit "$gcopy.tmp/CMakeLists.txt" 's/ -L${LIBNVTX_PATH} -lnvToolsExt")$/")/; s/ -lnvToolsExt")$/")/'
    echo "$gstamp" > "$gcopy.tmp/.patched"
    mv "$gcopy.tmp" "$gcopy"
    rm -rf "$work/genten-build"
fi
gconf=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc
       -DCMAKE_CXX_FLAGS="-Xcompiler -ffunction-sections -Xcompiler -fdata-sections"
       -DCMAKE_EXE_LINKER_FLAGS="-Wl,--gc-sections"
       -DCMAKE_CXX_COMPILER="$work/kokkos/bin/nvcc_wrapper" -DKokkos_ROOT="$work/kokkos"
       -DBUILD_SHARED_LIBS=OFF -DENABLE_MPI=OFF -DENABLE_PYTHON=OFF -DENABLE_MATLAB=OFF
       -DENABLE_BOOST=OFF -DENABLE_CALIPER=OFF -DENABLE_TRILINOS=OFF
       -DENABLE_TEUCHOS=OFF -DENABLE_TPETRA=OFF -DENABLE_ROL=OFF -DENABLE_SEACAS=OFF
       -DENABLE_GCP=ON -DGCP_LOSS_TYPES="$losses"
       -DENABLE_LAPACK=ON -DLAPACK_LIBS="$lapack;$blas"
       -DLAPACK_ADD_LIBS="$gfortran;$quadmath;-lm"
       -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF
       -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF
       -DKokkosKernels_ENABLE_PERFTESTS=OFF -DKokkosKernels_ENABLE_BENCHMARK=OFF)
# Compressed device code (CUDA >= 12.8 has the option); nvcc_wrapper would hand
# --compress-mode to g++, so it goes through nvcc's own environment variable.
if "$cuda/bin/nvcc" --help | grep -q -- '--compress-mode'; then
    export NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:+$NVCC_APPEND_FLAGS }--compress-mode=size"
fi
stamp="$(cat "$work/kokkos-build/.built-for") losses=$losses nvcc+=${NVCC_APPEND_FLAGS:-} gc-sections"
[[ $(cat "$work/genten-build/.built-for" 2>/dev/null) == "$stamp" ]] || rm -rf "$work/genten-build"
nice -n 19 cmake -S "$gcopy" -B "$work/genten-build" "${gconf[@]}"
echo "$stamp" > "$work/genten-build/.built-for"
nice -n 19 cmake --build "$work/genten-build" -j "$jobs" --target genten

mkdir -p "$prefix/bin"
cp "$work/genten-build/bin/genten" "$prefix/bin/genten"
strip "$prefix/bin/genten"
ldd "$prefix/bin/genten" > "$prefix/bin/genten.ldd" || true
printf '%s\n' "GenTen $(head -n1 "$gsrc/.peer-commit"), Kokkos $(head -n1 "$ksrc/.peer-commit") (4.7.00)" \
    "Kokkos_ARCH_$arch, Serial host, GCP losses: $losses" \
    "built on $(hostname) with $("$cuda/bin/nvcc" --version | tail -n1), $(g++ --version | head -n1)" \
    > "$prefix/BUILD-INFO"
echo "build-genten: $prefix/bin/genten ($(du -h "$prefix/bin/genten" | cut -f1), Kokkos_ARCH_$arch)"
echo "build-genten: shared libraries it needs:"
sed 's/^/    /' "$prefix/bin/genten.ldd"
