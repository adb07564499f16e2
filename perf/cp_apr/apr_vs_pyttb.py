#!/usr/bin/env python3
"""CP-APR: tenport cp-apr against pyttb's cp_apr (algorithm "mu") on the same sparse count
tensor, start and rule for the inadmissible zeros (--inadmissible-phi 0, pyttb's), so that
both run the same iterations: seconds per outer iteration, inner iterations, and the
final log-likelihoods.

The tensor: a planted nonnegative rank-R model's Poisson counts over --dims, scaled so
that about --density of the entries are nonzero; or, with --nnz N, tenport's power-law
0/1 counts (`tenport gen sparse --skew 2 --values ones`: N draws, duplicates kept at 1).
tenport is timed by its --json solver seconds (the tensor in the space; no reading);
pyttb by the wall time of cp_apr. The median of --repeats runs after a warm-up run is
reported; pyttb runs once, for --pyttb-iters iterations (default --iters: on large
tensors fewer, since it takes minutes per iteration), and the ratio is per iteration.
tenport's inner iterations are also given as the bytes Phi must move per inner iteration
(Pi read twice, the nonzeros' row index and value, the ratio written and read) over the
iterations' time (setup_seconds, the layout of the nonzeros per mode, left out): a lower
bound on Phi's bandwidth, since the mode's other steps are in that time.

Usage:
  perf/cp_apr/apr_vs_pyttb.py --tenport build/openmp/tools/tenport --pyttb DIR \\
      [--dims 300x200x100] [--rank 8] [--iters 20] [--repeats 3] [--nnz N]
      [--pyttb-iters K] [--precision f64|f32]
DIR holds pyttb's source (the package folder pyttb/); pyttb needs numpy, scipy and
numpy_groupies (Debian: python3-numpy-groupies). OpenMP runs want
OMP_WAIT_POLICY=passive on shared machines.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def planted_counts(dims, rank, density, seed):
    """(coords, counts) of a Poisson draw of a planted model whose mean gives about
    `density` nonzeros."""
    rng = np.random.default_rng(seed)
    factors = [rng.uniform(0, 1, (n, rank)) ** 4 for n in dims]
    m = np.einsum("ir,jr,kr->ijk", *factors)
    m *= -np.log(1 - density) / m.mean()
    x = rng.poisson(m)
    coords = np.argwhere(x > 0)
    return coords, x[x > 0].astype(np.float64)


def power_law_counts(args, work, dims):
    """(coords, counts) of tenport's power-law 0/1 tensor, read back from its .tns."""
    base = [args.tenport[0], "gen", "sparse", "--dims", args.dims, "--nnz", str(args.nnz),
            "--skew", "2", "--values", "ones", "--seed", "3"]
    made = subprocess.run(base + ["-o", f"{work}/X.tpb", "--force"], check=True,
                          capture_output=True, text=True).stdout
    nnz = int(re.search(r"nnz (\d+)", made).group(1))
    if args.skip_pyttb:
        return None, None, nnz
    subprocess.run([args.tenport[0], "convert", "-i", f"{work}/X.tpb", "-o", f"{work}/X.tns",
                    "--force"], check=True, capture_output=True)
    with open(f"{work}/X.tns") as f:
        lines = [line for line in f if not line.startswith("#")]
    order = len(dims)
    body = np.loadtxt(lines[2:], dtype=np.float64, ndmin=2)  # order, dims, then entries
    return body[:, :order].astype(np.int64) - 1, body[:, order].copy(), nnz


def write_tns(path, dims, coords, vals):
    with open(path, "w") as f:
        f.write(f"{len(dims)}\n{' '.join(map(str, dims))}\n")
        for c, v in zip(coords, vals):
            f.write(" ".join(str(i + 1) for i in c) + f" {int(v)}\n")


def run_tenport(args, tenport, work, iters):
    data = f"{work}/X.tpb" if args.nnz else f"{work}/X.tns"
    cmd = [tenport, "cp-apr", "-i", data, "-r", str(args.rank), "--init",
           f"{work}/init", "--max-iters", str(iters), "--inadmissible-phi", "0", "-q",
           "--precision", args.precision, "--json", f"{work}/s.json", "--force"]
    subprocess.run(cmd, check=True, capture_output=True)
    return json.load(open(f"{work}/s.json"))["results"]


def run_pyttb(args, dims, coords, vals, init, iters):
    sys.path.insert(0, args.pyttb)
    import pyttb as ttb
    X = ttb.sptensor(coords, vals[:, None], tuple(dims))
    K0 = ttb.ktensor([f.copy() for f in init], np.ones(args.rank))
    t0 = time.perf_counter()
    out = ttb.cp_apr(X, args.rank, algorithm="mu", init=K0, printitn=0, maxiters=iters)
    seconds = time.perf_counter() - t0
    info = out[2]
    return seconds, info["obj"], int(info["nTotalIters"]), len(info["kktViolations"])


def time_tenport(args, tenport, work):
    """(median solver seconds, the first timed run's results) after a warm-up run."""
    run_tenport(args, tenport, work, args.iters)
    runs = [run_tenport(args, tenport, work, args.iters) for _ in range(args.repeats)]
    return statistics.median(r["seconds"] for r in runs), runs[0]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tenport", required=True, action="append",
                   help="a tenport command; given twice or more, each is timed")
    p.add_argument("--pyttb", required=True)
    p.add_argument("--dims", default="300x200x100")
    p.add_argument("--rank", type=int, default=8)
    p.add_argument("--density", type=float, default=0.05)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--nnz", type=int, default=0)
    p.add_argument("--pyttb-iters", type=int, default=0)
    p.add_argument("--precision", default="f64", choices=("f64", "f32"))
    p.add_argument("--skip-pyttb", action="store_true")
    args = p.parse_args()
    dims = [int(v) for v in args.dims.split("x")]
    rng = np.random.default_rng(2)
    init = [rng.uniform(0, 1, (n, args.rank)) for n in dims]
    with tempfile.TemporaryDirectory() as work:
        if args.nnz:
            coords, vals, nnz = power_law_counts(args, work, dims)
        else:
            coords, vals = planted_counts(dims, args.rank, args.density, 1)
            write_tns(f"{work}/X.tns", dims, coords, vals)
            nnz = len(vals)
        for k, f in enumerate(init):
            np.save(f"{work}/init_factor{k}.npy", f)
        timed = [time_tenport(args, tenport, work) for tenport in args.tenport]
    print(f"tensor {args.dims}, {nnz} nonzeros, rank {args.rank}, {args.precision}, "
          f"{args.iters} iterations, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'all')}", flush=True)
    eb = 8 if args.precision == "f64" else 4
    phi_bytes = nnz * (2 * args.rank * eb + 8 + eb + 2 * 8)
    for tenport, (tp_seconds, r) in zip(args.tenport, timed):
        iterating = tp_seconds - r["setup_seconds"]
        print(f"tenport {tenport}: {tp_seconds:.4f} s "
              f"({tp_seconds / r['iterations'] * 1e3:.2f} ms / iteration), "
              f"{r['iterations']} iterations ({iterating / r['iterations'] * 1e3:.2f} ms each "
              f"without the {r['setup_seconds']:.3f} s of setup), {r['inner']} inner "
              f"({r['inner'] / iterating:.1f} / s, Phi's bytes at "
              f"{phi_bytes * r['inner'] / iterating / 1e9:.1f} GB/s at least), "
              f"loglik {r['loglik']:.10e}", flush=True)
    if args.skip_pyttb:
        return
    py_iters = args.pyttb_iters or args.iters
    py_seconds, py_obj, py_inner, py_outer = run_pyttb(args, dims, coords, vals, init, py_iters)
    print(f"pyttb:   {py_seconds:.4f} s ({py_seconds / py_outer * 1e3:.2f} ms / iteration), "
          f"{py_outer} iterations, {py_inner} inner, loglik {py_obj:.10e}")
    for tenport, (tp_seconds, r) in zip(args.tenport, timed):
        print(f"ratio (pyttb / {tenport} per iteration): "
              f"{(py_seconds / py_outer) / (tp_seconds / r['iterations']):.1f}x")


if __name__ == "__main__":
    main()
