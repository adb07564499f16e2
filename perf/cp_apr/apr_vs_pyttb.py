#!/usr/bin/env python3
"""CP-APR: tenport cp-apr against pyttb's cp_apr (algorithm "mu") on the same sparse count
tensor, start and rule for the inadmissible zeros (--inadmissible-phi 0, pyttb's), so that
both run the same iterations: seconds per outer iteration, inner iterations, and the
final log-likelihoods.

The tensor: a planted nonnegative rank-R model's Poisson counts over --dims, scaled so
that about --density of the entries are nonzero. tenport is timed by its --json solver
seconds (the tensor in the space; no reading); pyttb by its totalTime. The median of
--repeats runs after a warm-up run is reported (pyttb: one run when it takes long).

Usage:
  perf/cp_apr/apr_vs_pyttb.py --tenport build/openmp/tools/tenport --pyttb DIR \\
      [--dims 300x200x100] [--rank 8] [--iters 20] [--repeats 3]
DIR holds pyttb's source (the package folder pyttb/); pyttb needs numpy, scipy and
numpy_groupies (Debian: python3-numpy-groupies). OpenMP runs want
OMP_WAIT_POLICY=passive on shared machines.
"""
import argparse
import json
import os
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


def write_tns(path, dims, coords, vals):
    with open(path, "w") as f:
        f.write(f"{len(dims)}\n{' '.join(map(str, dims))}\n")
        for c, v in zip(coords, vals):
            f.write(" ".join(str(i + 1) for i in c) + f" {int(v)}\n")


def run_tenport(args, work, iters):
    cmd = [args.tenport, "cp-apr", "-i", f"{work}/X.tns", "-r", str(args.rank), "--init",
           f"{work}/init", "--max-iters", str(iters), "--inadmissible-phi", "0", "-q",
           "--json", f"{work}/s.json", "--force"]
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tenport", required=True)
    p.add_argument("--pyttb", required=True)
    p.add_argument("--dims", default="300x200x100")
    p.add_argument("--rank", type=int, default=8)
    p.add_argument("--density", type=float, default=0.05)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    dims = [int(v) for v in args.dims.split("x")]
    coords, vals = planted_counts(dims, args.rank, args.density, 1)
    rng = np.random.default_rng(2)
    init = [rng.uniform(0, 1, (n, args.rank)) for n in dims]
    with tempfile.TemporaryDirectory() as work:
        write_tns(f"{work}/X.tns", dims, coords, vals)
        for k, f in enumerate(init):
            np.save(f"{work}/init_factor{k}.npy", f)
        run_tenport(args, work, args.iters)  # warm-up
        runs = [run_tenport(args, work, args.iters) for _ in range(args.repeats)]
    tp_seconds = statistics.median(r["seconds"] for r in runs)
    py_seconds, py_obj, py_inner, py_outer = run_pyttb(args, dims, coords, vals, init, args.iters)
    r = runs[0]
    print(f"tensor {args.dims}, {len(vals)} nonzeros, rank {args.rank}, {args.iters} iterations, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'all')}")
    print(f"tenport: {tp_seconds:.4f} s ({tp_seconds / r['iterations'] * 1e3:.2f} ms / iteration), "
          f"{r['iterations']} iterations, {r['inner']} inner, loglik {r['loglik']:.10e}")
    print(f"pyttb:   {py_seconds:.4f} s ({py_seconds / py_outer * 1e3:.2f} ms / iteration), "
          f"{py_outer} iterations, {py_inner} inner, loglik {py_obj:.10e}")
    print(f"ratio (pyttb / tenport per iteration): "
          f"{(py_seconds / py_outer) / (tp_seconds / r['iterations']):.1f}x")


if __name__ == "__main__":
    main()
