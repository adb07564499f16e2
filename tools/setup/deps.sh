#!/usr/bin/env bash
# Installs the Debian packages tenport's build needs, if they are missing.
# Usage: tools/setup/deps.sh [build|test|hip-cpu|gpu-compile|plot|format|docs]...
#   build        compilers, meson, ninja, BLIS, zlib, L-BFGS-B (always installed)
#   test         + Criterion, pytest with numpy for the command line's and the Python
#                package's tests, nibabel for the diffusion-MRI image tests (NIfTI files
#                written by another reader), meson-python, venv, the Python headers and
#                patchelf (meson-python sets the bundled library's path with it) for
#                the package, and OpenMPI for the communication layer and the
#                distributed tests
#   hip-cpu      + TBB, which the HIP CPU runtime runs blocks on (-Dhip_platform=cpu)
#   gpu-compile  + hipcc and the HIP runtime (CUDA comes from the CUDA Toolkit's nvcc)
#   plot         + matplotlib for tools/plot/plot_bench.py (Debian's, for /usr/bin/python3)
#   sanitize     + clang and its sanitizer and libFuzzer runtimes (the serial build of CI)
#   format       + clang-format for tools/ci/format.sh
#   docs         + mkdocs for the manual in docs/ (tools/ci/docs.sh) and man for its
#                man page
set -euo pipefail

packages=(gcc g++ meson ninja-build pkg-config python3 libblis-openmp-dev zlib1g-dev liblbfgsb-dev)
for want in "$@"; do
  case "$want" in
    build) ;;
    test) packages+=(libcriterion-dev python3-pytest python3-numpy python3-nibabel python3-dev
                   python3-mesonpy patchelf python3-venv libopenmpi-dev openmpi-bin cmake) ;;
    hip-cpu) packages+=(libtbb-dev) ;;
    gpu-compile) packages+=(hipcc libamdhip64-dev) ;;
    plot) packages+=(python3-matplotlib) ;;
    format) packages+=(clang-format) ;;
    docs) packages+=(mkdocs man-db) ;;
    sanitize) packages+=(clang libclang-rt-14-dev) ;; # the sanitized, fuzzable serial build
    *) echo "deps.sh: unknown package set '$want'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "tenport: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
