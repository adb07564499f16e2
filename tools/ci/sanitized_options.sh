#!/bin/sh
# The meson options of the serial build that CI tests: the serial backend (the
# reference), its suites under AddressSanitizer and UndefinedBehaviorSanitizer (at -O1,
# as the sanitizers advise: the build is most of the stage's time), every
# target instrumented for libFuzzer (clang), so that the fuzzers link from the same
# build (tools/ci/fuzz.sh), and the distributed programs on 2 and 3 ranks (every rank
# count runs on the OpenMP build, without the sanitizers' cost). Printed
# one per line for `meson setup BUILD $(tools/ci/sanitized_options.sh)`, CC=clang.
cat <<'OPTIONS'
-Dtenport_backend=serial
-Db_sanitize=address,undefined
-Db_lundef=false
-Dbuildtype=plain
-Doptimization=1
-Ddebug=true
-Dfuzz=enabled
-Dmpi_test_ranks=2,3
OPTIONS
