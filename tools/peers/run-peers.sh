#!/usr/bin/env bash
# Runs the sparse MTTKRP peers on one FROSTT .tns file, one after the other, and tees
# each one's output, under header lines (command, date, host), to $OUT/peer-<name>.log;
# a per-mode summary goes to $OUT/summary.txt. Needs no network: build the peers first
# (tools/peers/build-blco.sh, build-splatt.sh) from .deps/peers (fetch-peers.sh).
#   blco    GPU, f32: .deps/peers/bin/blco-f32-cpd64 (cpd128 when the modes' index bits
#           sum past 64), one process per mode: -k 10 (its automatic kernel choice)
#           -r RANK -m ITERS -p -t MODE; it prints "Total time for MTTKRP: T (time per
#           iter: X ms)", X the mean of ITERS CUDA-event-timed calls, the first one
#           included (CUDA_MODULE_LOADING=EAGER keeps module loading out of it). Each
#           run parses the .tns again (its -f/-b binary copy crashed when read back in a
#           test; that build still had the AltoTensor bug that build-blco.sh fixes).
#           Orders other than 3 and 4 are skipped: BLCO's GPU kernels take only those.
#   splatt  CPU, f32, THREADS threads: splatt cpd -r RANK -t THREADS -i ITERS --tol 0
#           -v -v: per iteration "MTTKRP mode M: avg: As max: Bs" (thread times, 1 ms
#           resolution) and "reduction-time: Cs" when privatized; at the end "MTTKRP Ts",
#           all MTTKRP calls together (ITERS x order of them).
#   torch   GPU, f32: perf/peers/torch_coo_mttkrp.py --ranks RANK (median of 5).
#
# Usage: tools/peers/run-peers.sh TENSOR.tns [RANK] [THREADS]   (default 32 16)
#        PEERS=blco,splatt,torch  ITERS=25  OUT=./peers-out  PYTHON=python3
#        BLCO_ARGS, SPLATT_ARGS, TORCH_ARGS: extra arguments (e.g. SPLATT_ARGS="--csf all")
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
(($# >= 1)) && [[ -f $1 ]] || { sed -n '2,22p' "$0"; exit 2; }
tns=$(readlink -f "$1")
rank=${2:-32}
threads=${3:-16}
iters=${ITERS:-25}
peers=,${PEERS:-blco,splatt,torch},
out=${OUT:-$PWD/peers-out}
bin=$root/.deps/peers/bin
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Order, nonzeros and linearized index bits (sum of ceil(log2(dim))) in one pass.
read -r order nnz bits < <(awk '!/^#/ && NF {
        if (!n) d = NF - 1
        for (i = 1; i <= d; i++) if ($i + 0 > m[i] + 0) m[i] = $i + 0
        n++ }
    END { b = 0; for (i = 1; i <= d; i++) { x = 1; while (x < m[i]) { x *= 2; b++ } }
          print d, n, b }' "$tns")
echo "run-peers: $tns: order $order, $nnz nonzeros, $bits index bits; rank $rank," \
     "$threads CPU threads, $iters iterations; logs in $out"

header() { printf '### %s\n### %s, %s\n' "$1" "$(date -u '+%Y-%m-%dT%H:%M:%SZ')" "$(hostname)"; }
failed=0
# run NAME LOG COMMAND...: header, then the command's output, appended to LOG.
run() {
    local name=$1 log=$2
    shift 2
    { header "$name: (cd $work && $*)"; (cd "$work" && "$@") 2>&1; } | tee -a "$log" ||
        { echo "### $name FAILED" | tee -a "$log"; failed=1; }
}

if [[ $peers == *,blco,* ]]; then
    log=$out/peer-blco.log
    : > "$log"
    if ((order < 3 || order > 4)); then
        echo "### blco: skipped, order $order (its GPU kernels take 3 or 4 modes)" | tee "$log"
    else
        mask=64
        ((bits <= 64)) || mask=128
        for ((m = 0; m < order; m++)); do
            run "blco mode $m" "$log" env CUDA_MODULE_LOADING=EAGER "$bin/blco-f32-cpd$mask" \
                -k 10 -r "$rank" -m "$iters" -p -t "$m" -i "$tns" ${BLCO_ARGS:-}
        done
    fi
fi
if [[ $peers == *,splatt,* ]]; then
    log=$out/peer-splatt.log
    : > "$log"
    run splatt "$log" env OMP_NUM_THREADS="$threads" OPENBLAS_NUM_THREADS=1 \
        "$bin/splatt-f32-i64" cpd "$tns" -r "$rank" -t "$threads" -i "$iters" --tol 0 \
        --nowrite -v -v ${SPLATT_ARGS:-}
fi
if [[ $peers == *,torch,* ]]; then
    log=$out/peer-torch.log
    : > "$log"
    run torch "$log" "${PYTHON:-python3}" "$root/perf/peers/torch_coo_mttkrp.py" "$tns" \
        --ranks "$rank" --json "$out/peer-torch.json" ${TORCH_ARGS:-}
fi

# Per-mode ms: BLCO's per-iteration means; SPLATT's mean over iterations 2.. of the
# slowest thread plus the reduction, and its MTTKRP total over all calls; torch's row.
{
    echo "summary: $tns, rank $rank (ms per MTTKRP call, modes in order)"
    [[ $peers != *,blco,* || ! -s $out/peer-blco.log ]] ||
        awk '/Total time for MTTKRP/ { sub(/.*time per iter: /, ""); sub(/ ms.*/, ""); s = s " " $0 }
             END { print "  blco   ", (s == "" ? "no times" : s) }' "$out/peer-blco.log"
    [[ $peers != *,splatt,* || ! -s $out/peer-splatt.log ]] ||
        awk -v iters="$iters" -v order="$order" '
            /^MTTKRP mode/ { m = $3 + 0; if (++seen[m] > 1) { t[m] += $7 + 0; c[m]++ }; last = m; next }
            /reduction-time/ { if (seen[last] > 1) t[last] += $2 + 0; next }
            /^  MTTKRP / { total = $2 + 0 }
            END { s = ""; for (m = 1; m <= order; m++) s = s sprintf(" %.1f", c[m] ? 1e3 * t[m] / c[m] : -1)
                  printf "  splatt  %s   (all calls: %.1f)\n", s, 1e3 * total / (iters * order) }' \
            "$out/peer-splatt.log"
    [[ $peers != *,torch,* || ! -s $out/peer-torch.log ]] ||
        awk -v order="$order" '$2 == "index_add" { s = ""; for (i = 3; i < 3 + order; i++) s = s " " $i
                                   print "  torch  ", s }' "$out/peer-torch.log"
} | tee "$out/summary.txt"
exit "$failed"
