#!/bin/bash
# temporary: dense MTTKRP at R = 2000 on one GPU for tensor B and its 2- and 4-rank blocks
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
b=build-gpu1
meson setup $b -Dtenport_backend=cuda -Dnvcc_arch=sm_90 -Dtests=disabled -Dmpi=enabled -Dnccl=disabled >$OUT/setup.log 2>&1 || { tail $OUT/setup.log; exit 1; }
ninja -C $b tools/tenport >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
T=$b/tools/tenport; $T version; nvidia-smi -L
for s in 129x129x129x12x39 65x129x129x12x39 65x65x129x12x39; do
  echo "=== $s"
  $T gen dense --shape $s --rank 10 --layout left --output /tmp/b.npy > /dev/null
  timeout 120 $T cp-als --input /tmp/b.npy --rank 2000 --tol 0 --maxiters 3 2>&1 | grep -E "^(iter|mttkrp|phases|fit)"
  echo "--- the distributed path, one rank"
  timeout 120 mpirun -np 1 $T cp-als --gen-shape $s --gen-rank 10 --rank 2000 --tol 0 --maxiters 3 2>&1 | grep -E "^(iter|phases|MTTKRP|fit)"
done
