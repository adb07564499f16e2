#!/usr/bin/env bash
# Distributed sparse CP-ALS on a machine of several GPUs: builds the CUDA backend with
# MPI and NCCL (and the OpenMP one with MPI for the CPU step), runs the MPI test programs
# on the GPUs (NCCL, and staged through the host with TENPORT_NO_NCCL), then:
#   scale  strong scaling on 1, 2 and 4 GPUs: CP-ALS (R = 32, f32) of a 3-mode power-law
#          tensor of SCALE_NNZ nonzeros (default 1e9), each rank drawing its share in place
#   big    a 4-mode tensor of BIG_NNZ nonzeros (default 2e9) on all the GPUs, more than
#          one GPU holds: time per iteration and memory per GPU
#   cpu    4 ranks x 4 threads on the host against SPLATT's MPI build (each its own
#          medium-grained grid, the same .tns file: the 3-mode 20 M-nonzero tensor)
#   dense  dense CP-ALS strong scaling on 1, 2, 4 GPUs: the GenTen paper's tensor B
#          (129 x 129 x 129 x 12 x 39, f64, planted rank 10) at R = 32 and R = 2000
#   dense-big  a planted f64 tensor of DENSE_BIG_SHAPE (default 2500x2500x3000, 150 GB:
#          more than one GPU holds) on all the GPUs at R = 32 and 500
#   dense-cpu  dense CP-ALS on the host: 4 ranks x 4 threads against 1 rank x 16 threads
#          (the tensor B at R = 32)
#   peaks  fiber peaks of PEAKS_VOXELS voxels (default 4 M, lmax 8: the 16 x 16 phantom
#          of `tenport peaks --example` tiled) on 1, 2 and 4 GPUs, outputs compared
# Every run prints its phases (read, exchange, build, iterations with the communication
# time, write) and the grid.
#
# Usage: STEPS="build tests scale big cpu dense dense-big dense-cpu peaks" \
#          tools/gpu/run-dist.sh [RESULTS_DIR]
# A build made elsewhere (the same layout: tools/tenport, tests/mpi/) is used with
# TP_BUILD_DIR and TP_CPU_BUILD_DIR and no build step.
# Environment: SCALE_NNZ, BIG_NNZ, ITERS (default 10), RANKS_LIST (default "1 2 4"),
#   TEST_RANKS (default "1 2 <GPUs>"), RUN_TIMEOUT (seconds per run, default 590),
#   TP_REVISION. Carry .deps/debs (Criterion) and .deps/peers/splatt (the cpu step).
#
# A run worth keeping becomes a record: copy RESULTS_DIR to perf/results/DATE-MACHINE-WHAT/,
# write its README.md (what was measured, the machine, the date and revision, the commands,
# the figures as tables), then run tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:-${OUT:-$PWD}}
mkdir -p "$out"
steps=${STEPS:-build tests scale big cpu dense dense-big dense-cpu peaks}
gpu=${TP_BUILD_DIR:-build-dist-cuda}
cpu=${TP_CPU_BUILD_DIR:-build-dist-openmp}
data=${TP_DATA_DIR:-/tmp/tenport-dist}
iters=${ITERS:-10}
run_limit=${RUN_TIMEOUT:-590} # seconds per run
mkdir -p "$data"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. tools/gpu/setup-deps.sh >/dev/null 2>&1 || echo "run-dist: no .deps (tests will not build)"
want() { [[ " $steps " == *" $1 "* ]]; }
say() { echo "== $* ($(date -u '+%H:%M:%S'))"; }
revision=${TP_REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "tenport $revision, $(date -u '+%Y-%m-%dT%H:%M:%SZ'): run-dist.sh, steps: $steps"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | sed 's/^/GPU: /'
nvidia-smi topo -m 2>/dev/null | head -n 6
echo "host: $(lscpu | sed -n 's/^Model name: *//p' | head -n1), $(nproc) cores;" \
     "$(mpirun --version | head -n1); NCCL $(ls /usr/lib/x86_64-linux-gnu/libnccl.so.* 2>/dev/null | head -n1)"
gpus=$(nvidia-smi -L | wc -l)
cores=$(nproc) # the host threads of a run are shared among its ranks

if want build; then
  say build
  [[ -f $gpu/build.ninja ]] || meson setup "$gpu" -Dtenport_backend=cuda -Dnvcc_arch=sm_90 \
    -Dtests=enabled -Dmpi=enabled -Dnccl=enabled >"$out/setup-cuda.log" 2>&1 ||
    { tail -n 30 "$out/setup-cuda.log"; exit 1; }
  ninja -C "$gpu" tools/tenport tests/mpi/test_mpi_comm tests/mpi/test_mpi_cp_sparse_dist \
    tests/mpi/test_mpi_read_share tests/mpi/test_mpi_cp_dense_dist tests/mpi/test_mpi_npy_dist \
    >"$out/build-cuda.log" 2>&1 || { tail -n 40 "$out/build-cuda.log"; exit 1; }
  if want cpu; then
    [[ -f $cpu/build.ninja ]] || meson setup "$cpu" -Dtenport_backend=openmp -Dtests=disabled \
      -Dmpi=enabled -Dcpu_native=true >/dev/null
    ninja -C "$cpu" tools/tenport >"$out/build-openmp.log" 2>&1 || { tail -n 30 "$out/build-openmp.log"; exit 1; }
    tools/peers/build-splatt.sh single 64 mpi >"$out/build-splatt.log" 2>&1 || tail -n 20 "$out/build-splatt.log"
  fi
  "$gpu/tools/tenport" version
fi

if want tests; then
  for np in ${TEST_RANKS:-1 2 $gpus}; do
    for t in comm cp_sparse_dist read_share cp_dense_dist npy_dist; do
      say "test_$t on $np GPUs (NCCL)"
      timeout 300 mpirun --oversubscribe -np "$np" -x NCCL_NVLS_ENABLE "$gpu/tests/mpi/test_mpi_$t" ||
        echo "FAILED: test_$t np=$np"
    done
    say "test_comm on $np GPUs (staged through the host)"
    TENPORT_NO_NCCL=1 timeout 300 mpirun --oversubscribe -x TENPORT_NO_NCCL -np "$np" \
      "$gpu/tests/mpi/test_mpi_comm" || echo "FAILED: test_comm staged np=$np"
  done
fi

# cp-als on np GPUs of a tensor drawn in place: the rank-0 report.
drawn() { # np dims nnz skew label
  say "$5: $3 nonzeros, $2, skew $4, on $1 GPU(s)"
  timeout "$run_limit" mpirun --oversubscribe -np "$1" --bind-to none -x NCCL_NVLS_ENABLE \
    -x OMP_NUM_THREADS=$((cores / $1 > 0 ? cores / $1 : 1)) "$gpu/tools/tenport" cp-als \
    --gen-dims "$2" --gen-nnz "$3" --gen-skew "$4" --rank 32 \
    --precision f32 --tol 0 --maxiters "$iters" ${SPARSE_QUIET---quiet} 2>&1 | tee "$out/$5-np$1.log"
}

if want scale; then
  for np in ${RANKS_LIST:-1 2 4}; do
    ((np <= gpus)) && drawn "$np" 1000000x1000000x1000000 "${SCALE_NNZ:-1000000000}" 4 scale3
  done
fi

if want big; then
  drawn "$gpus" 200000x100000x50000x1000 "${BIG_NNZ:-2000000000}" 4 big4
fi

if want cpu; then
  tns=$data/t3.tns
  [[ -f $tns ]] || "$cpu/tools/tenport" gen sparse --dims 1000000x1000000x1000000 \
    --nnz 20000000 --skew 4 --precision f32 --output "$tns" >/dev/null
  say "CPU: tenport, 4 ranks x 4 threads, its grid, 20 M nonzeros, R = 32, $iters iterations"
  OMP_NUM_THREADS=4 OMP_WAIT_POLICY=passive timeout "$run_limit" mpirun --oversubscribe -np 4 \
    --bind-to none -x OMP_NUM_THREADS -x OMP_WAIT_POLICY "$cpu/tools/tenport" cp-als \
    --input "$tns" --rank 32 --precision f32 --tol 0 --maxiters "$iters" \
    2>&1 | tee "$out/cpu-tenport.log"
  say "CPU: SPLATT MPI, 4 ranks x 4 threads, its own medium-grained grid, same file"
  # its BLAS may come from .deps (setup-deps.sh): the ranks need the library path too
  timeout "$run_limit" mpirun --oversubscribe -np 4 --bind-to none -x LD_LIBRARY_PATH \
    .deps/peers/bin/splatt-mpi-f32-i64 cpd "$tns" -r 32 -t 4 -i "$iters" --tol 0 --nowrite \
    2>&1 | tee "$out/cpu-splatt.log"
fi
# dense cp-als on np ranks of a planted tensor made in place: the rank-0 report.
planted() { # np shape rank label [extra mpirun args...]
  local np=$1 shape=$2 r=$3 label=$4
  shift 4
  say "$label: planted $shape, f64, R = $r, on $np rank(s)"
  local threads=(-x OMP_NUM_THREADS=$((cores / np > 0 ? cores / np : 1)))
  [[ " $* " == *" -x OMP_NUM_THREADS "* ]] && threads=()
  timeout "$run_limit" mpirun --oversubscribe -np "$np" --bind-to none -x NCCL_NVLS_ENABLE \
    "${threads[@]}" "$@" \
    "${TENPORT:-$gpu/tools/tenport}" cp-als --gen-shape "$shape" --gen-rank 10 --rank "$r" \
    --precision f64 --tol 0 --maxiters "${DENSE_ITERS:-5}" ${DENSE_QUIET---quiet} 2>&1 |
    tee "$out/$label-np$np.log"
}

B=129x129x129x12x39
if want dense; then
  for r in 32 2000; do
    for np in ${RANKS_LIST:-1 2 4}; do
      ((np <= gpus)) && planted "$np" $B "$r" "denseB-R$r"
    done
  done
fi

if want dense-big; then
  for r in 32 500; do
    planted "$gpus" "${DENSE_BIG_SHAPE:-2500x2500x3000}" "$r" "dense-big-R$r"
  done
fi

if want dense-cpu; then
  say "CPU: dense B, R = 32: 4 ranks x 4 threads, then 1 rank x 16 threads"
  (export TENPORT=$cpu/tools/tenport OMP_NUM_THREADS=4 OMP_WAIT_POLICY=passive
   planted 4 $B 32 dense-cpu-4x4 -x OMP_NUM_THREADS -x OMP_WAIT_POLICY)
  (export TENPORT=$cpu/tools/tenport OMP_NUM_THREADS=16 OMP_WAIT_POLICY=passive
   planted 1 $B 32 dense-cpu-1x16 -x OMP_NUM_THREADS -x OMP_WAIT_POLICY)
fi

if want peaks; then
  voxels=${PEAKS_VOXELS:-4194304}
  sh=$data/sh-$voxels.npy
  if [[ ! -f $sh ]]; then
    (cd "$data" && "$OLDPWD/$gpu/tools/tenport" peaks --example --output phantom >/dev/null)
    python3 - "$data/phantom_sh.npy" "$sh" "$voxels" <<'PY'
import sys, numpy as np
one = np.load(sys.argv[1]).reshape(-1, 45)
n = int(sys.argv[3])
np.save(sys.argv[2], np.tile(one, (n // one.shape[0] + 1, 1))[:n].reshape(n // 256, 256, 45))
PY
  fi
  for np in ${RANKS_LIST:-1 2 4}; do
    ((np <= gpus)) || continue
    say "peaks: $voxels voxels, lmax 8, 64 starts, f32, on $np GPU(s)"
    timeout "$run_limit" mpirun --oversubscribe -np "$np" --bind-to none \
      -x OMP_NUM_THREADS=$((cores / np > 0 ? cores / np : 1)) "$gpu/tools/tenport" peaks \
      --sh "$sh" --output "$data/peaks-np$np" 2>&1 | tee "$out/peaks-np$np.log"
    if ((np > 1)); then
      for f in directions amplitudes counts; do
        cmp "$data/peaks-np1_$f.npy" "$data/peaks-np${np}_$f.npy" &&
          echo "peaks-np${np}_$f.npy: identical to the 1-GPU file"
      done
    fi
  done
fi
say "done"
