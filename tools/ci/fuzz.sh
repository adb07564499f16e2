#!/usr/bin/env bash
# Fuzzes the .npy reader (tp_npy_read_buffer) with libFuzzer under ASan and UBSan for a
# bounded time; fails if an input crashes it, leaks or hits undefined behaviour.
# Usage: tools/ci/fuzz.sh        FUZZ_SECONDS=600 tools/ci/fuzz.sh   (default 60 s)
# Everything lands in build/fuzz-npy/: the corpus (kept and grown between runs) and, on
# failure, the crashing input in artifacts/ (replay: build/fuzz-npy/fuzz_npy FILE).
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-60}
out=build/fuzz-npy
mkdir -p "$out/corpus" "$out/artifacts"

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
  echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }' |
    clang -fsanitize=fuzzer -x c - -o "$out/probe" 2>/dev/null
}
command -v clang >/dev/null || install clang
have_libfuzzer || install "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"

flags=(-std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra
       -Iinclude -Iportable -Ibackends/serial -Ibackends)
sources=(tests/fuzz/fuzz_npy.c algorithms/io/npy.c portable/error.c)
clang "${flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  "${sources[@]}" -o "$out/fuzz_npy"
clang "${flags[@]}" -fsanitize=address,undefined -DFUZZ_NPY_WRITE_SEEDS \
  "${sources[@]}" -o "$out/write_seeds"
"$out/write_seeds" "$out/corpus"

# Tokens of the format, so that mutations form headers sooner.
cat >"$out/npy.dict" <<'EOF'
"\x93NUMPY\x01\x00"
"\x93NUMPY\x02\x00"
"\x93NUMPY\x03\x00"
"{'descr': "
"'fortran_order': "
"'shape': "
"True"
"False"
"'<f4'"
"'<f8'"
"'>f8'"
"'|i1'"
"'|u1'"
"'<i4'"
"'>i8'"
"'=u4'"
"'<u8'"
"()"
",)"
", }"
"9223372036854775807"
"4611686018427387904"
EOF

echo "== fuzzing tp_npy_read_buffer for ${seconds} s"
if ! "$out/fuzz_npy" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
     -dict="$out/npy.dict" -artifact_prefix="$out/artifacts/" "$out/corpus"; then
  echo "fuzz.sh: the fuzzer found a failing input; see $out/artifacts/" >&2
  exit 1
fi
