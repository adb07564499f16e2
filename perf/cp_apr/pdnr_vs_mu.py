#!/usr/bin/env python3
"""CP-APR: would the projected damped Newton method on row subproblems (PDNR; Hansen,
Plantenga & Kolda, "Newton-based optimization for Kullback-Leibler nonnegative tensor
factorizations", Optim. Methods Softw. 2015) reach a log-likelihood sooner than the
multiplicative updates (MU) tenport runs? This measures the two algorithms' progress from
one start on one count tensor and prices each in the work it must do.

PDNR: pyttb's cp_apr(algorithm="pdnr") (the Tensor Toolbox's algorithm in Python), its
log-likelihood after every outer iteration, its row-subproblem Newton steps and function
evaluations. MU: tenport cp-apr with pyttb's rule for inadmissible zeros
(--inadmissible-phi 0, the same iterations as pyttb's "mu" from the same start), run for
K outer iterations for each K of a ladder, its log-likelihood and inner iterations.

For each target (PDNR's log-likelihood after outer iterations 1, 2, 5, 10, 20, ... and
its last), the outer and inner iterations each method takes to reach it, and the
multiply-adds that takes, counted as a GPU or CPU kernel would do them:
  MU, per inner iteration of a mode: the model value and Phi's sum, 2R per nonzero;
      per mode and outer iteration: Pi, R (N - 1) per nonzero.
  PDNR, per Newton step of a row of n nonzeros: the model value and gradient (2R n),
      the Hessian's upper triangle (R (R + 1) / 2 n), its Cholesky solve (R^3 / 3);
      per function evaluation of its line search, R n; per mode and outer iteration,
      Pi as for MU. pyttb reports steps and evaluations summed over the rows, so a
      step is priced at the average row (N nnz / sum(I_n) nonzeros).
Both methods read the same nonzeros and Pi; the ratio of multiply-adds is the ratio of
time on a machine where both run at the same rate (a bound in MU's favour on GPUs,
where MU's per-nonzero work maps to lanes with no per-row solve).
pyttb's seconds are given too, but its PDNR is a Python loop over rows and its MU whole
arrays: not a fair clock, so the decision rests on the counted work.

Usage:
  perf/cp_apr/pdnr_vs_mu.py --tenport build/openmp/tools/tenport --pyttb DIR \\
      [--dims 100x80x60] [--rank 8] [--density 0.05] [--pdnr-iters 30] [--mu-iters 2000]
"""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from apr_vs_pyttb import planted_counts, write_tns  # noqa: E402


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tenport", required=True)
    p.add_argument("--pyttb", required=True, help="folder holding pyttb/")
    p.add_argument("--dims", default="100x80x60")
    p.add_argument("--rank", type=int, default=8)
    p.add_argument("--density", type=float, default=0.05)
    p.add_argument("--pdnr-iters", type=int, default=30)
    p.add_argument("--mu-iters", type=int, default=2000)
    return p.parse_args()


def run_pdnr(ttb, X, init, rank, iters):
    """PDNR's log-likelihood, Newton steps and function evaluations per outer iteration,
    and its seconds."""
    K0 = ttb.ktensor([f.copy() for f in init], np.ones(rank))
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # printitn=1 makes it keep fnVals
        _, _, out = ttb.cp_apr(X, rank, algorithm="pdnr", init=K0, printitn=1,
                               maxiters=iters, stoptol=1e-8)
    seconds = time.perf_counter() - t0
    n = len(out["nInnerIters"])
    return (-np.asarray(out["fnVals"][:n]), np.asarray(out["nInnerIters"][:n]),
            np.asarray(out["fnEvals"][:n]), np.asarray(out["times"][:n]), seconds)


def run_mu(args, work, iters):
    """tenport's MU after iters outer iterations: (log-likelihood, inner iterations)."""
    subprocess.run([args.tenport, "cp-apr", "-i", f"{work}/X.tns", "-r", str(args.rank),
                    "--init", f"{work}/init", "--max-iters", str(iters), "--tol", "0",
                    "--inadmissible-phi", "0", "-q", "--json", f"{work}/s.json", "--force"],
                   check=True, capture_output=True)
    r = json.load(open(f"{work}/s.json"))["results"]
    return r["loglik"], r["inner"], r["iterations"]


def mu_reaching(args, work, target, ladder_cache):
    """The fewest outer iterations (found by doubling, then bisection) after which MU's
    log-likelihood is at least target: (outer, inner), or None within --mu-iters."""
    def at(k):
        if k not in ladder_cache:
            ladder_cache[k] = run_mu(args, work, k)
        return ladder_cache[k]
    hi = 1
    while at(hi)[0] < target:
        if hi >= args.mu_iters:
            return None
        hi = min(2 * hi, args.mu_iters)
    lo = hi // 2  # at(lo) < target, or lo == 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at(mid)[0] >= target:
            hi = mid
        else:
            lo = mid
    return hi, at(hi)[1]


def main():
    args = parse()
    sys.path.insert(0, args.pyttb)
    import pyttb as ttb
    dims = [int(v) for v in args.dims.split("x")]
    N, R = len(dims), args.rank
    coords, vals = planted_counts(dims, R, args.density, 1)
    nnz = len(vals)
    init = [np.random.default_rng(2).uniform(0, 1, (n, R)) for n in dims]
    X = ttb.sptensor(coords, vals[:, None], tuple(dims))
    row_nnz = N * nnz / sum(dims)  # the average row of a mode's unfolding
    pi_work = N * nnz * R * (N - 1)  # Pi of every mode, once per outer iteration
    with tempfile.TemporaryDirectory() as work:
        write_tns(f"{work}/X.tns", dims, coords, vals)
        for k, f in enumerate(init):
            np.save(f"{work}/init_factor{k}.npy", f)
        ll, steps, evals, times, pdnr_seconds = run_pdnr(ttb, X, init, R, args.pdnr_iters)
        print(f"tensor {args.dims}, {nnz} nonzeros (planted rank {R} Poisson counts), rank "
              f"{R}; PDNR (pyttb): {len(ll)} outer iterations in {pdnr_seconds:.1f} s, "
              f"{int(steps.sum())} row Newton steps, {int(evals.sum())} function evaluations")
        print(f"{'target loglik':>16} | {'PDNR outer':>10} {'steps':>8} {'evals':>8} "
              f"{'madds':>10} {'pyttb s':>8} | {'MU outer':>8} {'inner':>7} {'madds':>10} | "
              f"PDNR/MU madds")
        cache = {}
        marks = sorted({i for i in (1, 2, 5, 10, 20, 50, 100) if i <= len(ll)} | {len(ll)})
        for m in marks:
            target = ll[m - 1]
            s, e = steps[:m].sum(), evals[:m].sum()
            pdnr_work = (m * pi_work + s * row_nnz * (2 * R + R * (R + 1) / 2)
                         + s * R ** 3 / 3 + e * row_nnz * R)
            mu = mu_reaching(args, work, target, cache)
            if mu is None:
                last = cache[args.mu_iters]
                print(f"{target:>16.8e} | {m:>10} {int(s):>8} {int(e):>8} {pdnr_work:>10.3e} "
                      f"{times[m - 1]:>8.2f} | not within {args.mu_iters} outer iterations "
                      f"({last[1]} inner, {args.mu_iters * pi_work + last[1] * nnz * 2 * R:.3e}"
                      f" madds): loglik {last[0]:.8e}")
                continue
            outer, inner = mu
            mu_work = outer * pi_work + inner * nnz * 2 * R
            print(f"{target:>16.8e} | {m:>10} {int(s):>8} {int(e):>8} {pdnr_work:>10.3e} "
                  f"{times[m - 1]:>8.2f} | {outer:>8} {inner:>7} {mu_work:>10.3e} | "
                  f"{pdnr_work / mu_work:.2f}")


if __name__ == "__main__":
    main()
