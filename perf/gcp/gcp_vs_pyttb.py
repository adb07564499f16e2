#!/usr/bin/env python3
"""GCP: tenport gcp against pyttb's gcp_opt on the same tensor, start and settings.

Two cases, each run in one process after the other on the same machine:
  dense-lbfgsb  a dense Poisson count tensor (numpy, seeded), L-BFGS-B from the same
                start for --iters iterations: seconds per iteration and the losses
  sparse-adam   a sparse 0/1 tensor with skewed modes (a knowledge-graph-like incidence
                tensor), Bernoulli-odds, Adam for --epochs epochs of --epoch-iters steps
                with the same sample counts: seconds per epoch and the final estimates

tenport is timed by its own --json summary (the solver's seconds: the tensor on the
device, no file reading); pyttb by its main_time. The median of --repeats runs after
one warm-up run is reported.

Usage:
  perf/gcp/gcp_vs_pyttb.py --tenport build/openmp/tools/tenport --pyttb DIR \\
      [--case dense-lbfgsb|sparse-adam|all] [--dims 200x150x100] [--rank 16] ...
DIR holds the package folder pyttb/ (pyttb's source); pyttb needs numpy, scipy and
numpy_groupies (Debian: python3-numpy-groupies).
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


def parse_dims(text):
    return tuple(int(v) for v in text.split("x"))


def planted_counts(dims, rank, seed):
    rng = np.random.default_rng(seed)
    factors = [rng.uniform(0, 1, (n, rank)) for n in dims]
    m = np.einsum("ir,jr,kr->ijk", *factors) if len(dims) == 3 else None
    return rng.poisson(3.0 * m / m.mean()).astype(np.float64)


def skewed_binary(dims, nnz, seed):
    """nnz distinct coordinates, each index drawn as floor(n u^2): skewed modes."""
    rng = np.random.default_rng(seed)
    coords = set()
    while len(coords) < nnz:
        batch = np.floor(np.array(dims) * rng.uniform(size=(nnz, len(dims))) ** 2).astype(int)
        coords.update(map(tuple, batch))
    return np.array(sorted(coords)[:nnz], dtype=np.int64)


def start_factors(dims, rank, seed):
    rng = np.random.default_rng(seed + 1000)
    return [rng.uniform(0, 1, (n, rank)) for n in dims]


def run_tenport(tenport, args, workdir):
    summary = os.path.join(workdir, "summary.json")
    cmd = [tenport, "gcp", *map(str, args), "-q", "--json", summary, "--force"]
    subprocess.run(cmd, check=True, capture_output=True, env=dict(os.environ, TENPORT_NO_PROGRESS="1"))
    with open(summary) as f:
        return json.load(f)["results"]


def median_of(runs):
    return statistics.median(runs)


def case_dense_lbfgsb(a, ttb, workdir):
    from pyttb.gcp.handles import Objectives
    from pyttb.gcp.optimizers import LBFGSB
    dims = parse_dims(a.dims)
    x = planted_counts(dims, a.rank, a.seed)
    np.save(os.path.join(workdir, "X.npy"), x)
    factors = start_factors(dims, a.rank, a.seed)
    for k, f in enumerate(factors):
        np.save(os.path.join(workdir, f"start_factor{k}.npy"), f)
    common = ["-i", os.path.join(workdir, "X.npy"), "-r", a.rank, "--loss", "poisson",
              "--init", os.path.join(workdir, "start"), "--max-iters", a.iters,
              "--factr", 0, "--pgtol", 0, "--no-normalize"]
    tp, py = [], []
    tp_res = py_res = None
    X = ttb.tensor(x)
    for rep in range(a.repeats + 1):
        tp_res = run_tenport(a.tenport, common, workdir)
        M, _, info = ttb.gcp_opt(X, a.rank, objective=Objectives.POISSON,
                                 optimizer=LBFGSB(maxiter=a.iters, factr=0, pgtol=0),
                                 init=[f.copy() for f in factors], printitn=0)
        py_res = info
        if rep > 0:
            tp.append(tp_res["seconds"] / max(tp_res["iterations"], 1))
            py.append(info["main_time"] / max(info["nit"], 1))
    return {"case": "dense-lbfgsb", "dims": a.dims, "rank": a.rank, "entries": int(x.size),
            "iterations": [tp_res["iterations"], int(py_res["nit"])],
            "evaluations": [tp_res["evaluations"], int(py_res["funcalls"])],
            "loss": [tp_res["loss"], float(py_res["final_f"])],
            "initial_loss": tp_res["initial_loss"],
            "seconds_per_iteration": [median_of(tp), median_of(py)],
            "speedup": median_of(py) / median_of(tp)}


def case_sparse_adam(a, ttb, workdir):
    from pyttb.gcp.handles import Objectives
    from pyttb.gcp.optimizers import Adam
    from pyttb.gcp.samplers import GCPSampler, StratifiedCount
    dims = parse_dims(a.sparse_dims)
    coords = skewed_binary(dims, a.nnz, a.seed)
    path = os.path.join(workdir, "kg.tns")
    with open(path, "w") as f:
        f.write(f"{len(dims)}\n{' '.join(map(str, dims))}\n")
        np.savetxt(f, np.hstack([coords + 1, np.ones((len(coords), 1), dtype=np.int64)]), fmt="%d")
    factors = start_factors(dims, a.rank, a.seed)
    for k, f in enumerate(factors):
        np.save(os.path.join(workdir, f"kgstart_factor{k}.npy"), 0.1 * f)
    common = ["-i", path, "-r", a.rank, "--loss", "bernoulli-odds", "--solver", "adam",
              "--init", os.path.join(workdir, "kgstart"), "--epochs", a.epochs,
              "--epoch-iters", a.epoch_iters, "--samples", a.samples, "--zero-samples",
              a.samples, "--function-samples", a.fsamples, "--function-zero-samples",
              a.fsamples, "--max-fails", a.epochs, "--no-normalize"]
    X = ttb.sptensor(coords, np.ones((len(coords), 1)), dims)
    tp, py = [], []
    tp_res = py_info = None
    for rep in range(a.repeats + 1):
        tp_res = run_tenport(a.tenport, common, workdir)
        sampler = GCPSampler(X, gradient_samples=StratifiedCount(a.samples, a.samples),
                             function_samples=StratifiedCount(a.fsamples, a.fsamples))
        opt = Adam(epoch_iters=a.epoch_iters, max_iters=a.epochs, max_fails=a.epochs, printitn=0)
        start = time.perf_counter()
        M, _, py_info = ttb.gcp_opt(X, a.rank, objective=Objectives.BERNOULLI_ODDS, optimizer=opt,
                                    init=[0.1 * f for f in factors], sampler=sampler, printitn=0)
        wall = time.perf_counter() - start
        if rep > 0:
            tp.append(tp_res["seconds"] / max(tp_res["iterations"], 1))
            py.append(py_info.get("main_time", wall) / a.epochs)
    return {"case": "sparse-adam", "dims": a.sparse_dims, "nnz": a.nnz, "rank": a.rank,
            "epochs": a.epochs, "epoch_iters": a.epoch_iters, "samples": a.samples,
            "function_samples": a.fsamples,
            "estimate": [tp_res["loss"], float(py_info["f_est_trace"][-1])],
            "initial_estimate": [tp_res["initial_loss"], float(py_info["f_est_trace"][0])],
            "seconds_per_epoch": [median_of(tp), median_of(py)],
            "speedup": median_of(py) / median_of(tp)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tenport", required=True)
    p.add_argument("--pyttb", required=True, help="folder holding pyttb/")
    p.add_argument("--case", default="all", choices=["dense-lbfgsb", "sparse-adam", "all"])
    p.add_argument("--dims", default="200x150x100")
    p.add_argument("--rank", type=int, default=16)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--sparse-dims", default="20000x15000x10000")
    p.add_argument("--nnz", type=int, default=1000000)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--epoch-iters", type=int, default=100)
    p.add_argument("--samples", type=int, default=10000)
    p.add_argument("--fsamples", type=int, default=100000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    sys.path.insert(0, a.pyttb)
    import pyttb as ttb
    import logging
    logging.disable(logging.WARNING)
    out = []
    with tempfile.TemporaryDirectory() as workdir:
        if a.case in ("dense-lbfgsb", "all"):
            out.append(case_dense_lbfgsb(a, ttb, workdir))
            print(json.dumps(out[-1]), flush=True)
        if a.case in ("sparse-adam", "all"):
            out.append(case_sparse_adam(a, ttb, workdir))
            print(json.dumps(out[-1]), flush=True)


if __name__ == "__main__":
    main()
