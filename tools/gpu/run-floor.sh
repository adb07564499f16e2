#!/usr/bin/env bash
# What bounds the kernels that run below their floor, on the GPU machine: builds the
# CUDA benchmarks, then
#   sparse  FLYCOO on the 3-mode 20 M-nonzero tensor (tp-bench-sparse-mttkrp) and BLCO on
#           the same file in the same job (run-sparse.sh's t3 step), then Nsight Compute's
#           DRAM and L2 byte counts of one launch per mode of each, to set against the
#           bench's byte model;
#   dense   tensor A at R = 32, 500 and 2000: the CP-ALS iteration against its MTTKRPs
#           alone and against two tensor reads at the copy speed (tp-bench-mttkrp
#           --cp-als), then Nsight Compute's speed-of-light section for the kernels of
#           one R = 32 MTTKRP per mode;
#   sshopm  Nsight Compute's instruction mix of the SS-HOPM (4,3) and (6,3) f32 kernels
#           (FMA pipe, issue slots, occupancy) next to tp-bench-sshopm's FMA share;
#   primitives  the radix sort (2^27 u64 keys + u32 values) and the exclusive scan (2^28
#           i32) against CUB (tp-bench-primitives), then Nsight Compute's speed of light,
#           warp stalls, occupancy and DRAM bytes of one run of each, tenport's kernels and
#           CUB's.
# Output: RESULTS_DIR/<step>.log; Nsight Compute is run with --clock-control none.
#
# Usage: tools/gpu/run-floor.sh [RESULTS_DIR]   (default $OUT, else ./)
#        STEPS="build sparse sparse-ncu dense dense-ncu sshopm primitives" (default all)
# Run from the repository root with .deps/ carried along (peers' sources in .deps/peers).
#
# A run worth keeping becomes a record: copy RESULTS_DIR to perf/results/DATE-MACHINE-WHAT/,
# write its README.md (what was measured, the machine, the date and revision, the commands,
# the figures as tables), then run tools/perf/pack-record.sh on that folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:-${OUT:-$PWD}}
mkdir -p "$out"
steps=${STEPS:-build sparse sparse-ncu dense dense-ncu sshopm primitives}
build=${TP_BUILD_DIR:-build-gpu}
data=${TP_DATA_DIR:-/tmp/tenport-sparse}
want() { [[ " $steps " == *" $1 "* ]]; }
say() { echo "== $* ($(date -u '+%H:%M:%S'))"; }
revision=${TP_REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "tenport $revision, $(date -u '+%Y-%m-%dT%H:%M:%SZ'): run-floor.sh, steps: $steps"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
  --format=csv,noheader | sed 's/^/GPU: /'
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -n1)
ncu_metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers

if want build; then
  say build
  [[ -f $build/build.ninja ]] || meson setup "$build" -Dtenport_backend=cuda -Dnvcc_arch=sm_90 \
    -Dtests=disabled >/dev/null || exit 1
  ninja -C "$build" perf/tp-bench-sparse-mttkrp perf/tp-bench-mttkrp perf/tp-bench-sshopm \
    perf/tp-bench-primitives >/dev/null || exit 1
  tools/peers/build-blco.sh f32 64 >/dev/null || echo "BLCO did not build"
fi

t3dims=1000000x1000000x1000000
if want sparse; then
  say "sparse: FLYCOO and BLCO on the 3-mode 20 M tensor"
  TP_BUILD_DIR=$build STEPS="t3 peers" PEERS=blco ITERS=10 TP_REVISION=$revision \
    timeout 420 tools/gpu/run-sparse.sh "$out" >"$out/sparse.log" 2>&1
  tail -n 30 "$out/sparse.log"
fi

if want sparse-ncu && [[ -n $ncu_bin ]]; then
  say "sparse: Nsight Compute, FLYCOO (every mode, the remapping launch and not) and BLCO"
  timeout 240 "$ncu_bin" --clock-control none --metrics "$ncu_metrics" \
    --kernel-name regex:flycoo_n3 --launch-count 12 \
    "$build/perf/tp-bench-sparse-mttkrp" --dims $t3dims --nnz 20000000 --skew 4 --rank 32 \
    --precision f32 --reps 1 --warmup 0 --build-reps 1 --no-baseline \
    >"$out/sparse-ncu-flycoo.log" 2>&1
  tail -n 60 "$out/sparse-ncu-flycoo.log"
  bin=.deps/peers/bin/blco-f32-cpd64
  if [[ -x $bin && -f $data/t3.tns ]]; then
    for m in 0 1 2; do
      timeout 150 "$ncu_bin" --clock-control none --metrics "$ncu_metrics" \
        --kernel-name regex:'mttkrp|MTTKRP' --launch-count 2 \
        env CUDA_MODULE_LOADING=EAGER "$bin" -i "$data/t3.tns" -k 10 -r 32 -m 2 -p -t "$m" \
        >"$out/sparse-ncu-blco-mode$m.log" 2>&1
      grep -E "mttkrp|MTTKRP|bytes|duration|throughput|registers|occupancy" \
        "$out/sparse-ncu-blco-mode$m.log" | tail -n 24
    done
  fi
fi

if want dense; then
  say "dense: tensor A, the CP-ALS iteration against its MTTKRPs and two tensor reads"
  timeout 300 "$build/perf/tp-bench-mttkrp" --tensor A --ranks 32 --variants auto,blocked \
    --cp-als 6 --cp-ranks 32,500,2000 --reps 7 --warmup 2 --json "$out/dense-A.json" \
    >"$out/dense-A.log" 2>&1
  tail -n 24 "$out/dense-A.log"
fi

if want dense-ncu && [[ -n $ncu_bin ]]; then
  say "dense: Nsight Compute, the kernels of one R = 32 MTTKRP of tensor A per mode"
  timeout 240 "$ncu_bin" --clock-control none --metrics "$ncu_metrics" \
    --kernel-name regex:'gemm|mttkrp|cutlass|xmma' \
    --launch-count 60 \
    "$build/perf/tp-bench-mttkrp" --tensor A --ranks 32 --variants auto --reps 1 --warmup 0 \
    --no-check --ceilings small >"$out/dense-ncu.log" 2>&1
  tail -n 120 "$out/dense-ncu.log"
fi
if want sshopm; then
  say "sshopm: the FMA share, then Nsight Compute's instruction mix of one launch per shape"
  timeout 120 "$build/perf/tp-bench-sshopm" --shapes 4x3,6x3 >"$out/sshopm.log" 2>&1
  tail -n 12 "$out/sshopm.log"
  if [[ -n $ncu_bin ]]; then
    sshopm_metrics=gpu__time_duration.sum,sm__inst_executed.sum,sm__inst_executed_pipe_fma.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_lsu.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__thread_inst_executed_per_inst_executed.ratio
    timeout 200 "$ncu_bin" --clock-control none --metrics "$sshopm_metrics" \
      --kernel-name regex:'sshopm_m[0-9]n[0-9]_kernel' --launch-count 6 \
      "$build/perf/tp-bench-sshopm" --shapes 4x3,6x3 --reps 1 --warmup 0 \
      >"$out/sshopm-ncu.log" 2>&1
    grep -vE "Warning|^==PROF" "$out/sshopm-ncu.log" | tail -n 60
  fi
fi
if want primitives; then
  say "primitives: sort and scan against CUB, then Nsight Compute on one run of each"
  timeout 120 "$build/perf/tp-bench-primitives" --only sort >"$out/sort.log" 2>&1
  timeout 120 "$build/perf/tp-bench-primitives" --only scan >"$out/scan.log" 2>&1
  tail -n 4 "$out/sort.log" "$out/scan.log"
  if [[ -n $ncu_bin ]]; then
    prim_metrics=$ncu_metrics,lts__t_sector_hit_rate.pct,smsp__inst_executed.sum
    for what in sort scan; do
      # tenport's kernels (sort_*, scan_*) and CUB's (DeviceRadixSort*, DeviceScan*)
      timeout 240 "$ncu_bin" --clock-control none --metrics "$prim_metrics" \
        --section SpeedOfLight --section WarpStateStats --section Occupancy \
        --section SchedulerStats --section LaunchStats \
        --kernel-name regex:"$what|Device(RadixSort|Scan)" --launch-count 40 \
        "$build/perf/tp-bench-primitives" --only $what --reps 1 --warmup 0 \
        >"$out/$what-ncu.log" 2>&1
      grep -E "^  [A-Za-z_].*\(|Duration|dram__bytes|inst_executed|Issued Warp|Achieved Occ|Registers Per" \
        "$out/$what-ncu.log" | tail -n 80
    done
  fi
fi
say done
