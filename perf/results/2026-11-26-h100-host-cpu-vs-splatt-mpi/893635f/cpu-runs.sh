#!/bin/bash
# CPU comparison on the 16-core host: tenport 4 ranks x 4 threads (slabs relabelled or
# not, row exchange as chosen or sparse), 1 rank x 16 threads, and SPLATT's MPI build.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
b=build-cpu
echo "tenport $TP_REVISION, $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
lscpu | grep -E "Model name|^CPU\(s\)|L3|L2"; mpirun --version | head -1
meson setup $b -Dtenport_backend=openmp -Dtests=disabled -Dmpi=enabled -Dcpu_native=true >$OUT/setup.log 2>&1 || { tail $OUT/setup.log; exit 1; }
ninja -C $b tools/tenport >$OUT/build.log 2>&1 || { tail $OUT/build.log; exit 1; }
$b/tools/tenport version
tools/peers/build-splatt.sh single 64 mpi >$OUT/build-splatt.log 2>&1 || tail -n 20 $OUT/build-splatt.log
T=$b/tools/tenport
$T gen sparse --dims 1000000x1000000x1000000 --nnz 20000000 --skew 4 --precision f32 --output /tmp/t3.tns >/dev/null
run() { # name np threads [extra]
  local name=$1 np=$2 th=$3; shift 3
  echo "=== $name: $np ranks x $th threads $* (TENPORT_RELABEL=${TENPORT_RELABEL:-} TENPORT_ROW_EXCHANGE=${TENPORT_ROW_EXCHANGE:-})"
  OMP_NUM_THREADS=$th timeout 200 mpirun --oversubscribe -np $np --bind-to none -x OMP_NUM_THREADS -x OMP_WAIT_POLICY -x TENPORT_ROW_EXCHANGE -x TENPORT_RELABEL \
     $T cp-als --input /tmp/t3.tns --rank 32 --precision f32 --tol 0 --maxiters 10 "$@" > $OUT/$name.log 2>&1
  grep -E "^(iter|distributed|phases|MTTKRP|fit|total)" $OUT/$name.log
}
run tenport-4x4 4 4
TENPORT_RELABEL=0 run tenport-4x4-natural 4 4
TENPORT_ROW_EXCHANGE=dense run tenport-4x4-whole-slabs 4 4
run tenport-1x16 1 16
for np in 4 1; do th=$((16 / np)); echo "=== dense B, R = 32, f64: $np ranks x $th threads"
  OMP_NUM_THREADS=$th timeout 200 mpirun --oversubscribe -np $np --bind-to none -x OMP_NUM_THREADS -x OMP_WAIT_POLICY \
    $T cp-als --gen-shape 129x129x129x12x39 --gen-rank 10 --rank 32 --precision f64 --tol 0 --maxiters 5 > $OUT/dense-cpu-${np}x$th.log 2>&1
  grep -E "^(iter|distributed|phases|MTTKRP|fit|total)" $OUT/dense-cpu-${np}x$th.log; done
echo "=== SPLATT MPI 4 ranks x 4 threads"
timeout 200 mpirun --oversubscribe -np 4 --bind-to none -x LD_LIBRARY_PATH .deps/peers/bin/splatt-mpi-f32-i64 cpd /tmp/t3.tns -r 32 -t 4 -i 10 --tol 0 --nowrite > $OUT/splatt-4x4.log 2>&1; tail -n 25 $OUT/splatt-4x4.log
