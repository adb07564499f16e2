#!/usr/bin/env python3
"""Sums an Nsight Compute CSV log (ncu --metrics gpu__time_duration.sum --csv) per kernel
name: launches, total and mean microseconds, share of the whole, and the total per step
when --steps is given. Usage: ncu_summary.py LOG.csv [--steps N]"""
import argparse
import collections
import csv


def main():
    p = argparse.ArgumentParser()
    p.add_argument("log")
    p.add_argument("--steps", type=int, default=0)
    args = p.parse_args()
    with open(args.log) as f:
        lines = [line for line in f if line.startswith('"')]  # ncu's own notes start with ==
    total = collections.defaultdict(float)
    count = collections.Counter()
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3,
                 "ms": 1e3}.get(row.get("Metric Unit", "nsecond"), 1e-3)
        name = row["Kernel Name"].split("(")[0]
        total[name] += value * scale
        count[name] += 1
    whole = sum(total.values())
    print(f"{'kernel':56} {'launches':>8} {'total us':>11} {'mean us':>9} {'share':>6}")
    for name, us in sorted(total.items(), key=lambda kv: -kv[1]):
        print(f"{name[:56]:56} {count[name]:8d} {us:11.1f} {us / count[name]:9.2f} "
              f"{100 * us / whole:5.1f}%")
    print(f"all kernels: {sum(count.values())} launches, {whole / 1e3:.3f} ms")
    if args.steps:
        print(f"per step (whole run / steps, setup included): {whole / args.steps / 1e3:.3f} ms")


if __name__ == "__main__":
    main()
