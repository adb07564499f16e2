#!/usr/bin/env python3
"""Peer for tp-bench-sshopm: batched SS-HOPM with PyTorch einsum on the same problem.

T random symmetric tensors of order 4 and dimension 3 (full 3^4 storage, as einsum
needs), V shared random unit starts, a fixed convex shift, exactly I iterations:
  y = A x^3 (three einsum contractions), lambda = x.y, x <- normalise(y + alpha x).
Timed with CUDA events (median of --reps after --warmup); prints tensor-start
iterations per second and the largest |A x^3 - lambda x| after the run, for
comparison with tp-bench-sshopm in the same session.

Usage: torch_sshopm.py [--tensors T] [--starts V] [--iterations I] [--dtype float32|float64]
"""
import argparse
import itertools
import statistics

import torch


def symmetric_tensors(count, dim, order, dtype, device, generator):
    """Random symmetric tensors: a random tensor averaged over all index permutations."""
    a = torch.rand((count,) + (dim,) * order, generator=generator, device=device,
                   dtype=dtype) * 2 - 1
    perms = list(itertools.permutations(range(1, order + 1)))
    sym = sum(a.permute(0, *p) for p in perms) / len(perms)
    norm = sym.flatten(1).norm(dim=1).view((count,) + (1,) * order)
    return sym / norm


def run(a, x0, alpha, iterations):
    x = x0.expand(a.shape[0], -1, -1).contiguous()
    for _ in range(iterations):
        t = torch.einsum('tijkl,tvl->tvijk', a, x)
        t = torch.einsum('tvijk,tvk->tvij', t, x)
        y = torch.einsum('tvij,tvj->tvi', t, x)
        x = y + alpha * x
        x = x / x.norm(dim=2, keepdim=True)
    t = torch.einsum('tijkl,tvl->tvijk', a, x)
    t = torch.einsum('tvijk,tvk->tvij', t, x)
    y = torch.einsum('tvij,tvj->tvi', t, x)
    lam = (x * y).sum(dim=2, keepdim=True)
    return (y - lam * x).norm(dim=2).max().item()


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--tensors', type=int, default=1 << 20)
    p.add_argument('--starts', type=int, default=128)
    p.add_argument('--iterations', type=int, default=50)
    p.add_argument('--dtype', default='float32', choices=['float32', 'float64'])
    p.add_argument('--reps', type=int, default=5)
    p.add_argument('--warmup', type=int, default=1)
    args = p.parse_args()
    dev = torch.device('cuda')
    dtype = getattr(torch, args.dtype)
    g = torch.Generator(device=dev).manual_seed(2026)
    a = symmetric_tensors(args.tensors, 3, 4, dtype, dev, g)
    x0 = torch.rand((1, args.starts, 3), generator=g, device=dev, dtype=dtype) * 2 - 1
    x0 = x0 / x0.norm(dim=2, keepdim=True)
    alpha = 3.0  # (m - 1) for unit-norm tensors: convex
    times, residual = [], 0.0
    for r in range(args.warmup + args.reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        residual = run(a, x0, alpha, args.iterations)
        stop.record()
        torch.cuda.synchronize()
        if r >= args.warmup:
            times.append(start.elapsed_time(stop))
    ms = statistics.median(times)
    rate = args.tensors * args.starts * args.iterations / (ms * 1e-3)
    print('torch %s %s einsum SS-HOPM (4,3): %d tensors x %d starts x %d iterations: '
          '%.3f ms, %.3e tensor-start iterations/s, max residual %.2e, peak memory %.2f GB'
          % (torch.__version__, args.dtype, args.tensors, args.starts, args.iterations, ms,
             rate, residual, torch.cuda.max_memory_allocated() / 1e9))


if __name__ == '__main__':
    main()
