#!/usr/bin/env bash
# Fuzzes the file readers with libFuzzer under ASan and UBSan for a bounded time, split
# between two targets: the .npy reader (tp_npy_read_buffer) and the sparse readers (.tns
# text and .tpb binary, through their buffer entry points); fails if an input crashes a
# reader, leaks or hits undefined behaviour.
# Usage: tools/ci/fuzz.sh        FUZZ_SECONDS=600 tools/ci/fuzz.sh   (default 60 s in all)
# Each target has its folder, build/fuzz-npy/ and build/fuzz-tns/: the corpus (kept and
# grown between runs) and, on failure, the crashing input in artifacts/ (replay:
# build/fuzz-npy/fuzz_npy FILE or build/fuzz-tns/fuzz_tns FILE).
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-60}
npy_seconds=$(( (seconds + 1) / 2 ))
tns_seconds=$(( seconds - npy_seconds > 0 ? seconds - npy_seconds : 1 ))
mkdir -p build/fuzz-npy build/fuzz-tns

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
    clang -fsanitize=fuzzer -x c - -o build/fuzz-npy/probe 2>/dev/null
}
command -v clang >/dev/null || install clang
have_libfuzzer || install "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"

flags=(-std=c11 -D_GNU_SOURCE -g -O1 -Wall -Wextra
       -Iinclude -Iportable -Ialgorithms/sparse -Ibackends/serial -Ibackends)

# build NAME SEED_DEFINE SOURCES...: the fuzzer and its seed writer in build/fuzz-NAME/,
# then the seeds into its corpus.
build() {
  local name=$1 seed_define=$2 out=build/fuzz-$1
  shift 2
  mkdir -p "$out/corpus" "$out/artifacts"
  clang "${flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    "$@" -o "$out/fuzz_$name"
  clang "${flags[@]}" -fsanitize=address,undefined "-D$seed_define" "$@" -o "$out/write_seeds"
  "$out/write_seeds" "$out/corpus"
}

# run NAME SECONDS WHAT
run() {
  local name=$1 secs=$2 what=$3 out=build/fuzz-$1
  echo "== fuzzing $what for ${secs} s"
  if ! "$out/fuzz_$name" -max_total_time="$secs" -timeout=10 -print_final_stats=1 \
       -dict="$out/$name.dict" -artifact_prefix="$out/artifacts/" "$out/corpus"; then
    echo "fuzz.sh: the fuzzer found a failing input; see $out/artifacts/" >&2
    exit 1
  fi
}

build npy FUZZ_NPY_WRITE_SEEDS tests/fuzz/fuzz_npy.c algorithms/io/npy.c portable/error.c
build tns FUZZ_TNS_WRITE_SEEDS tests/fuzz/fuzz_tns.c algorithms/sparse/coo.c \
  algorithms/sparse/radix_sort.c algorithms/sparse/coo_sort.c \
  algorithms/sparse/coo_duplicates.c algorithms/sparse/coo_source.c \
  algorithms/sparse/coo_sink.c algorithms/sparse/coo_builder.c \
  algorithms/sparse/tns_parse.c algorithms/sparse/tns_pieces.c algorithms/sparse/tns_read.c \
  algorithms/sparse/tpb.c \
  algorithms/sparse/coo_read.c algorithms/io/npy.c portable/error.c

# Tokens of the formats, so that mutations form headers and fields sooner.
cat >build/fuzz-npy/npy.dict <<'EOF'
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
cat >build/fuzz-tns/tns.dict <<'EOF'
"TPCOO\x00\x00\x01"
"\x01\x00\x00\x00"
"\x04\x00\x00\x00"
"\x08\x00\x00\x00"
"\xff\xff\xff\xff\xff\xff\xff\x7f"
"# "
"\x0a"
"\x0d\x0a"
"\x09"
" 1"
" 0"
" -1"
" 1e308"
" 1e39"
" nan"
" inf"
" 0x1p-3"
" .5"
" 9223372036854775807"
" 18446744073709551616"
EOF

run npy "$npy_seconds" "tp_npy_read_buffer"
run tns "$tns_seconds" "the .tns and .tpb readers"
