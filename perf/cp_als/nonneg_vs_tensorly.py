#!/usr/bin/env python3
"""Nonnegative CP of a dense tensor: tenport cp-als --nonneg (one HALS sweep per mode and
iteration) against TensorLy's non_negative_parafac_hals (numpy backend, from its source;
up to 100 HALS sweeps per mode and iteration, stopping early as its hals_nnls decides),
and tenport's unconstrained CP-ALS iteration for scale.

The tensor: `tenport gen dense --rank R --noise 0.01` (a planted model of factors uniform
in [0, 1), so nonnegative, plus 1% noise). Both start from random factors and run K
iterations for each K of --iters, without tolerance stops (tenport --tol 0
--no-line-search, TensorLy tol=0); a run's time is tenport's solver seconds (--json: the
tensor already in memory) and TensorLy's wall time of the call, the median of --repeats
after one warm-up. The fit is 1 - ||X - M|| / ||X||, TensorLy's computed here with numpy.
Since the two do different work per iteration, the table gives the fit each reaches in
its time as well as the seconds per iteration, and then, for each fit TensorLy reached,
the iterations and seconds tenport --nonneg takes to reach it (the per-iteration seconds
of a run of 10 x the largest K, --history, summed).

Usage:
  OMP_WAIT_POLICY=passive perf/cp_als/nonneg_vs_tensorly.py \\
      --tenport build/openmp/tools/tenport --tensorly DIR \\
      [--dims 200x150x100] [--rank 16] [--iters 5,10,20,40] [--repeats 3] [--threads T]
DIR holds TensorLy's source (the package folder tensorly/). numpy's BLAS takes its
threads from OMP_NUM_THREADS (BLIS, OpenBLAS); the script sets it to --threads (default:
the cores), the count tenport gets with -t.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tenport", required=True)
    p.add_argument("--tensorly", required=True, help="folder holding tensorly/")
    p.add_argument("--dims", default="200x150x100")
    p.add_argument("--rank", type=int, default=16)
    p.add_argument("--iters", default="5,10,20,40")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--seed", type=int, default=3)
    return p.parse_args()


def median_of(repeats, run):
    """The median of `run()`'s (seconds, fit) pairs over repeats runs after a warm-up."""
    run()
    results = sorted(run() for _ in range(repeats))
    return results[len(results) // 2]


def tenport_run(args, tensor, work, iters, nonneg):
    cmd = [args.tenport, "cp-als", "-i", tensor, "-r", str(args.rank), "--tol", "0",
           "--max-iters", str(iters), "--no-line-search", "--init", "random", "-s", "1",
           "-t", str(args.threads), "-q", "--json", f"{work}/s.json", "--force"]
    if nonneg:
        cmd.append("--nonneg")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    r = json.load(open(f"{work}/s.json"))["results"]
    assert r["iterations"] == iters, r
    return r["solver_seconds"], r["fit"]


def tensorly_run(tl, hals, x, norm, rank, iters):
    t0 = time.perf_counter()
    cp = hals(x, rank, n_iter_max=iters, init="random", random_state=1, tol=0)
    seconds = time.perf_counter() - t0
    fit = 1 - float(tl.norm(x - tl.cp_to_tensor(cp))) / norm
    return seconds, fit


def main():
    args = parse()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before numpy loads its BLAS
    sys.path.insert(0, args.tensorly)
    import numpy as np
    import tensorly as tl
    from tensorly.decomposition import non_negative_parafac_hals
    tl.set_backend("numpy")
    iters = [int(k) for k in args.iters.split(",")]
    with tempfile.TemporaryDirectory() as work:
        tensor = f"{work}/X.npy"
        subprocess.run([args.tenport, "gen", "dense", "--dims", args.dims, "--rank",
                        str(args.rank), "--noise", "0.01", "--seed", str(args.seed), "-o",
                        tensor], check=True, stdout=subprocess.DEVNULL)
        x = np.load(tensor)
        norm = float(np.linalg.norm(x))
        print(f"tensor {args.dims} f64 (planted rank {args.rank}, 1% noise), rank "
              f"{args.rank}, {args.threads} threads, median of {args.repeats}; "
              f"numpy {np.__version__}, TensorLy {tl.__version__}")
        als = median_of(args.repeats, lambda: tenport_run(args, tensor, work, iters[-1], 0))
        print(f"tenport cp-als (unconstrained), {iters[-1]} iterations: "
              f"{als[0] / iters[-1] * 1e3:.2f} ms/iteration, fit {als[1]:.6f}")
        print(f"{'iters':>5} | {'tenport --nonneg s':>18} {'fit':>9} {'ms/it':>8} | "
              f"{'TensorLy HALS s':>15} {'fit':>9} {'ms/it':>8} | per-iteration ratio")
        reached = []
        for k in iters:
            ours = median_of(args.repeats, lambda: tenport_run(args, tensor, work, k, 1))
            theirs = median_of(args.repeats, lambda: tensorly_run(
                tl, non_negative_parafac_hals, x, norm, args.rank, k))
            print(f"{k:>5} | {ours[0]:>18.4f} {ours[1]:>9.6f} {ours[0] / k * 1e3:>8.2f} | "
                  f"{theirs[0]:>15.4f} {theirs[1]:>9.6f} {theirs[0] / k * 1e3:>8.2f} | "
                  f"{theirs[0] / ours[0]:.1f}x")
            reached.append((k, theirs[1], theirs[0]))
        # tenport's time to each fit TensorLy reached: a long run's history (seconds per
        # iteration), summed until its fit reaches TensorLy's
        long = 10 * iters[-1]
        subprocess.run([args.tenport, "cp-als", "-i", tensor, "-r", str(args.rank), "--tol",
                        "0", "--max-iters", str(long), "--no-line-search", "--init", "random",
                        "-s", "1", "-t", str(args.threads), "--nonneg", "-q", "--history",
                        f"{work}/h.json", "--force"], check=True, stdout=subprocess.DEVNULL)
        history = json.load(open(f"{work}/h.json"))["iterations"]
        for k, fit, seconds in reached:
            elapsed, needed = 0.0, None
            for it in history:
                elapsed += it["seconds"]
                if it["fit"] >= fit:
                    needed = (it["iteration"], elapsed)
                    break
            said = (f"tenport --nonneg reaches it after {needed[0]} iterations, "
                    f"{needed[1]:.4f} s: {seconds / needed[1]:.1f}x sooner" if needed else
                    f"tenport --nonneg does not reach it in {long} iterations")
            print(f"TensorLy's fit {fit:.6f} ({k} iterations, {seconds:.4f} s): {said}")
        print(f"--nonneg per iteration / unconstrained: "
              f"{ours[0] / iters[-1] / (als[0] / iters[-1]):.3f} (at {iters[-1]} iterations)")


if __name__ == "__main__":
    main()
