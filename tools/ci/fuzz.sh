#!/usr/bin/env bash
# Fuzzes tenport with libFuzzer under ASan and UBSan for a bounded time, shared between
# eight targets (tests/fuzz/, built by meson with -Dfuzz=enabled into build/serial, the
# serial stage's instrumented build, or $FUZZ_BUILD):
#   npy        tp_npy_read_buffer
#   tns        the sparse readers (.tns text, .tpb binary)
#   dense_npy  the .npy -> dense tensor path (tp_npy_peek_header, tp_dense_read_npy_input)
#   dense_text the dense text reader (tp_dense_peek_header, tp_dense_read_text_input and
#              tp_dense_read_input), gzip-compressed inputs among its seeds
#   tci        the tensor-train manifest reader (tpi_tci_read_manifest_buffer)
#   nifti      the NIfTI-1/NIfTI-2 image reader (tp_image_read_buffer, .nii and .nii.gz)
#   mif        the MRtrix .mif image reader (tp_image_read_buffer, .mif and .mif.gz)
#   cli        the tenport command in process: options, format sniffing, output sets
# Fails if an input crashes a target, leaks, hits undefined behaviour, breaks one of the
# target's checks or runs past the per-input timeout.
# Usage: tools/ci/fuzz.sh        FUZZ_SECONDS=600 tools/ci/fuzz.sh   (default 60 s in all)
#        FUZZ_TARGETS="cli tci" tools/ci/fuzz.sh                      (some targets only)
# Each target has its folder build/fuzz-NAME/: the corpus (seeded on every run, kept and
# grown between runs) and, on failure, the failing input in artifacts/. Replay one with
# its messages (the command's own output too, for cli):
#   build/serial/tests/fuzz/fuzz_NAME build/fuzz-NAME/artifacts/crash-...
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-60}
read -r -a targets <<<"${FUZZ_TARGETS:-npy tns dense_npy dense_text tci nifti mif cli}"
# Shares of the time: the command line has the most ground to cover.
declare -A weight=([npy]=1 [tns]=2 [dense_npy]=1 [dense_text]=1 [tci]=1 [nifti]=1 [mif]=1 [cli]=3)
# The instrumented serial build: tools/test.sh's serial stage makes build/serial so (its
# suites run under the same sanitizers), and this script reuses it; FUZZ_BUILD another.
build=${FUZZ_BUILD:-build/serial}
mkdir -p build

# clang and its libFuzzer runtime are not in tools/setup/deps.sh; installed the same way.
install() {
  echo "tenport: installing $*"
  local sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "$@"
}
have_libfuzzer() {
  local probe
  probe=$(mktemp -d)
  echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }' |
    clang -fsanitize=fuzzer -x c - -o "$probe/probe" 2>/dev/null
  local ok=$?
  rm -rf "$probe"
  return $ok
}
command -v clang >/dev/null || install clang
have_libfuzzer || install "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"

# ---- build: the library, the command's sources and the targets, instrumented ---------
start=$SECONDS
if [ ! -f "$build/build.ninja" ]; then
  CC=clang meson setup "$build" $(tools/ci/sanitized_options.sh) -Dtests=disabled
fi
ninja_targets=()
for t in "${targets[@]}"; do
  ninja_targets+=("tests/fuzz/fuzz_$t" "tests/fuzz/write_seeds_$t")
done
# The kernels' loop hints warn under the sanitizers (-Wpass-failed); only errors matter.
if ! ninja -C "$build" "${ninja_targets[@]}" >"$build/fuzz-build.log" 2>&1; then
  grep -E 'error|FAILED' "$build/fuzz-build.log" | head -40 >&2
  echo "fuzz.sh: the build failed; see $build/fuzz-build.log" >&2
  exit 1
fi
echo "== fuzz targets built in $((SECONDS - start)) s"

# ---- seeds ---------------------------------------------------------------------------
# UBSan stops at the first report, so that libFuzzer keeps the input; ASan lets a failed
# allocation return NULL, as tenport expects of malloc.
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
for t in "${targets[@]}"; do
  mkdir -p "build/fuzz-$t/corpus" "build/fuzz-$t/artifacts"
  "$build/tests/fuzz/write_seeds_$t" "build/fuzz-$t/corpus"
done

# ---- fuzzing -------------------------------------------------------------------------
total_weight=0
for t in "${targets[@]}"; do total_weight=$((total_weight + ${weight[$t]:-1})); done
summary=()
failed=0
for t in "${targets[@]}"; do
  secs=$((seconds * ${weight[$t]:-1} / total_weight))
  [ "$secs" -ge 1 ] || secs=1
  out=$PWD/build/fuzz-$t # absolute: fuzz_cli runs each command in a folder of its own
  extra=()
  # The command prints on stdout and stderr: closed while fuzzing, shown on a replay.
  [ "$t" = cli ] && extra=(-close_fd_mask=3)
  echo "== fuzzing $t for ${secs} s"
  if "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -max_len=4096 \
       -print_final_stats=1 -dict="$PWD/tests/fuzz/$t.dict" -artifact_prefix="$out/artifacts/" \
       "${extra[@]}" "$out/corpus" >"$out/fuzz.log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed=1
    tail -60 "$out/fuzz.log" >&2
    artifact=$(grep -o "Test unit written to [^ ]*" "$out/fuzz.log" | tail -1 | cut -d' ' -f5)
    echo "fuzz.sh: $t found a failing input: ${artifact:-see $out/artifacts/}" >&2
    echo "fuzz.sh: replay it with its messages: $build/tests/fuzz/fuzz_$t ${artifact:-ARTIFACT}" >&2
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$' | tail -1 || true)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$' | tail -1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$out/fuzz.log" | tail -1 | cut -d' ' -f2 || true)
  summary+=("$(printf '%-10s %-6s %4s s %9s runs %7s exec/s  cov %s  corpus %s' "$t" "$status" \
    "$secs" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$(find "$out/corpus" -type f | wc -l)")")
done

echo "== fuzzing summary (logs in build/fuzz-NAME/fuzz.log)"
printf '%s\n' "${summary[@]}"
exit $failed
