#!/usr/bin/env bash
# Builds tenport with the CUDA backend and runs its test suite, one test program at a
# time, on a machine with an NVIDIA GPU. Criterion comes from .deps (setup-deps.sh).
# Everything (machine, toolchain, revision, configure, build, tests) is logged to
# $OUT/gpu-tests.log, or ./gpu-tests.log without $OUT; meson's own test log is copied
# next to it as gpu-testlog.txt. Exits non-zero if configuring, building or a test fails.
#
# Usage: tools/gpu/test-cuda.sh [extra meson options...]
# Environment: TP_BUILD_DIR (default build-gpu), TP_NVCC_ARCH (default: the GPU's
# compute capability from nvidia-smi, else sm_90), TP_REVISION (revision to log when
# the tree is a copy without .git), TP_TEST_ARGS (more arguments of meson test, such as
# "--no-suite mpi" or "--suite mpi", to run the suites in parts).
#
# A run worth keeping becomes a record: copy the logs folder ($OUT) to
# perf/results/DATE-MACHINE-WHAT/, write its README.md (what was measured, the machine, the
# date and revision, the commands, the figures as tables), then run
# tools/perf/pack-record.sh on that folder.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
. tools/gpu/setup-deps.sh

out=${OUT:-$PWD}
mkdir -p "$out"
log=$out/gpu-tests.log
build=${TP_BUILD_DIR:-build-gpu}

arch=${TP_NVCC_ARCH:-}
if [[ -z $arch ]]; then
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 || true)
    if [[ $cap =~ ^([0-9]+)\.([0-9]+)$ ]]; then
        arch=sm_${BASH_REMATCH[1]}${BASH_REMATCH[2]}
    else
        arch=sm_90
    fi
fi

section() { printf '\n==== %s\n' "$*"; }
# Runs a command, its output to the terminal and the log; returns its status.
logged() {
    printf '$ %s\n' "$*" | tee -a "$log"
    "$@" 2>&1 | tee -a "$log"
}
# Like logged, for information only: a failure is noted, not fatal.
info() {
    printf '$ %s\n' "$*" >>"$log"
    "$@" >>"$log" 2>&1 || echo "($1 failed or is missing)" >>"$log"
}

{
    echo "tenport CUDA test run"
    section "date"
    date -u '+%Y-%m-%dT%H:%M:%SZ'
    section "revision"
    if [[ -n ${TP_REVISION:-} ]]; then
        echo "$TP_REVISION (from TP_REVISION)"
    elif git -C "$root" rev-parse HEAD >/dev/null 2>&1; then
        git -C "$root" rev-parse HEAD
        git -C "$root" status --short | head -n 50
    else
        echo "unknown (not a git checkout)"
    fi
    section "machine"
} >"$log"
info uname -srm
info cat /etc/os-release
info nvidia-smi -L
info nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
info nvcc --version
info gcc --version
info meson --version
info ninja --version
info pkg-config --modversion criterion
{
    section "dependencies from .deps/debs"
    (cd .deps/debs && ls -1 ./*.deb)
    echo "libraries this machine lacks, taken from .deps/lib:"
    ls -1 .deps/lib
    section "environment"
    echo "PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-}"
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    echo "nvcc arch: $arch; build dir: $build; extra options: $*"
    section "configure"
} >>"$log"

status=0
opts=(-Dtenport_backend=cuda "-Dnvcc_arch=$arch" -Dtests=enabled "$@")
if [[ -d $build/meson-private ]]; then
    logged meson setup --reconfigure "$build" "${opts[@]}" || status=$?
else
    logged meson setup "$build" "${opts[@]}" || status=$?
fi
if ((status == 0)); then
    section "build" | tee -a "$log"
    logged ninja -C "$build" || status=$?
fi
if ((status == 0)); then
    # every tests/test_*.c must be a test of this build: none is skipped unseen. Meson
    # lists "tenport / name" or "tenport:suite / name"; newer ones "suite - tenport:name".
    listed=$(meson test -C "$build" --list --no-rebuild 2>/dev/null |
             sed -E -e 's#^.* / ##' -e 's#^.*:##' || true)
    missing=()
    for f in tests/test_*.c; do
        s=$(basename "$f" .c)
        grep -qx "${s#test_}" <<<"$listed" || missing+=("${s#test_}")
    done
    if ((${#missing[@]} > 0)); then
        echo "suites this build lacks: ${missing[*]}" | tee -a "$log"
        status=1
    fi
fi
if ((status == 0)); then
    section "tests ($(grep -c . <<<"$listed") tests)" | tee -a "$log"
    read -r -a test_args <<<"${TP_TEST_ARGS:-}"
    logged meson test -C "$build" --num-processes 1 --print-errorlogs "${test_args[@]}" ||
        status=$?
    if [[ -f $build/meson-logs/testlog.txt ]]; then
        cp "$build/meson-logs/testlog.txt" "$out/gpu-testlog.txt"
    fi
fi

section "result" | tee -a "$log"
if ((status == 0)); then
    echo "PASS" | tee -a "$log"
else
    echo "FAIL (exit status $status)" | tee -a "$log"
fi
echo "log: $log"
exit "$status"
