#!/usr/bin/env python3
"""Peer for tp-bench-mttkrp: dense mode-k MTTKRP with PyTorch on the same problems.

The tensor is a torch tensor of the given shape in torch's default layout (C order,
last index fastest; tenport's default is first index fastest: compare with
tp-bench-mttkrp --layout right for the same memory order), values uniform in [0, 1),
factors I_n x R uniform in [0, 1). Two ways a user would write it:
  einsum  torch.einsum('abcd,bz,cz,dz->az', X, U1, U2, U3) built for any order and mode
  gemm    unfold + Khatri-Rao + GEMM: X.movedim(k, 0).reshape(I_k, -1) @ KR, with the
          Khatri-Rao product KR of the other factors formed explicitly (row order matching
          the C-order unfolding); skipped when its memory does not fit.
Timed with CUDA events on GPUs (time.perf_counter on CPUs): median of --reps after
--warmup, per mode and averaged over modes. Extra memory (GPUs): the allocator's peak
during the calls minus what was allocated before them (the tensor and the factors).
GFLOP/s with f = N R d (the GenTen paper's count) and 2 N R; GFLOP = 1e9 flops.

Usage: torch_mttkrp.py [--tensor A|B | --shape 401x201x12x501] [--ranks 10,32,500,2000]
                       [--methods einsum,gemm] [--modes all|0,2] [--dtype float64|float32]
                       [--device cuda|cpu] [--threads N] [--reps 5] [--warmup 1]
                       [--budget SECONDS] [--json FILE]
"""
import argparse
import json
import statistics
import string
import sys

import torch

from peer_common import Timer, parse_list

TENSORS = {'A': (401, 201, 12, 501), 'B': (129, 129, 129, 12, 39)}
RANK_LETTER = 'z'




def einsum_expression(order, mode):
    """'abcd,bz,cz,dz->az' for order 4, mode 0: every factor but the mode's own."""
    letters = string.ascii_lowercase[:order]
    operands = [letters] + ['%s%s' % (letters[m], RANK_LETTER)
                            for m in range(order) if m != mode]
    return '%s->%s%s' % (','.join(operands), letters[mode], RANK_LETTER)


def mttkrp_einsum(x, factors, mode):
    others = [f for m, f in enumerate(factors) if m != mode]
    return torch.einsum(einsum_expression(x.dim(), mode), x, *others)


def khatri_rao(mats):
    """Rows indexed by (i_1, ..., i_n) with the last index fastest (C order)."""
    kr = mats[0]
    for m in mats[1:]:
        kr = (kr[:, None, :] * m[None, :, :]).reshape(-1, kr.shape[1])
    return kr


def mttkrp_gemm(x, factors, mode):
    unfolded = x.movedim(mode, 0).reshape(x.shape[mode], -1)
    kr = khatri_rao([f for m, f in enumerate(factors) if m != mode])
    return unfolded @ kr


METHODS = {'einsum': mttkrp_einsum, 'gemm': mttkrp_gemm}


def gemm_extra_bytes(shape, mode, rank, itemsize):
    """The Khatri-Rao product, the unfolded copy (all modes but the first) and G."""
    n = 1
    for s in shape:
        n *= s
    rows = n // shape[mode]
    kr = rows * rank + (rows // shape[-1] * rank if len(shape) > 2 else 0)  # last two steps
    copy = n if mode != 0 else 0
    return itemsize * (kr + copy + shape[mode] * rank)


def einsum_extra_bytes(shape, mode, rank, itemsize):
    """Left-to-right contraction: the first step leaves N / I_m R elements (m the first
    mode that is not `mode`); an estimate, opt_einsum may choose another order."""
    n = 1
    for s in shape:
        n *= s
    first = 1 if mode == 0 else 0
    return itemsize * (n // shape[first] * rank)


def free_bytes(device):
    if device.type == 'cuda':
        return torch.cuda.mem_get_info(device)[0]
    try:
        with open('/proc/meminfo') as f:
            for line in f:
                if line.startswith('MemAvailable:'):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return float('inf')




def time_method(fn, args, timer):
    """Median ms; the first run is timed as a probe and counts as one warm-up run. With a
    budget, a call slower than the budget is timed by the probe alone, and slow calls get
    fewer repetitions."""
    out, probe = timer.run(fn)
    budget_ms = 1e3 * args.budget
    if budget_ms > 0 and probe >= budget_ms:
        return out, probe, 1
    reps = args.reps
    if budget_ms > 0 and probe * reps > budget_ms:
        reps = max(1, int(budget_ms / probe))
    warmup = max(0, args.warmup - 1)
    times = []
    for r in range(warmup + reps):
        out, ms = timer.run(fn)
        if r >= warmup:
            times.append(ms)
    return out, statistics.median(times), reps


def run_one(x, factors, mode, method, args, timer):
    """One (method, mode): a dict with ms, reps, extra bytes, state, and G."""
    dev = x.device
    itemsize = x.element_size()
    est = (gemm_extra_bytes if method == 'gemm' else einsum_extra_bytes)(
        tuple(x.shape), mode, factors[0].shape[1], itemsize)
    limit = args.max_extra if args.max_extra > 0 else 0.95 * free_bytes(dev)
    # einsum's own path is not known in advance: on GPUs it is tried (out of memory is
    # caught), on CPUs the estimate decides, as the kernel would not refuse the memory.
    if (method == 'gemm' or dev.type == 'cpu') and est > limit:
        return {'state': 'skipped', 'note': 'skipped: needs about %.1f GB' % (est / 1e9)}
    fn = lambda: METHODS[method](x, factors, mode)  # noqa: E731
    if dev.type == 'cuda':
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(dev)
        before = torch.cuda.memory_allocated(dev)
    try:
        g, ms, reps = time_method(fn, args, timer)
    except RuntimeError as e:  # torch.cuda.OutOfMemoryError is one
        if 'out of memory' not in str(e) and 'DefaultCPUAllocator' not in str(e):
            raise
        if dev.type == 'cuda':
            torch.cuda.empty_cache()
        return {'state': 'out of memory', 'note': 'out of memory'}
    extra = None
    if dev.type == 'cuda':
        extra = torch.cuda.max_memory_allocated(dev) - before
    return {'state': 'ok', 'ms': ms, 'reps': reps, 'extra': extra, 'g': g}


def rel_diff(a, b):
    return ((a - b).abs() / b.abs().clamp_min(1e-300)).max().item()


def print_rank(rank, results, modes, n, order, itemsize, out):
    f_paper, f_gemm = float(n) * rank * order, 2.0 * n * rank
    for method, per_mode in results.items():
        cells, ok = [], True
        for m in modes:
            r = per_mode[m]
            if r['state'] == 'ok':
                cells.append('%10.3f' % r['ms'])
            else:
                cells.append('%10s' % ('skipped' if r['state'] == 'skipped' else 'OOM'))
                ok = False
        line = '%5d %-7s %s' % (rank, method, ' '.join(cells))
        if ok:
            avg = statistics.mean(per_mode[m]['ms'] for m in modes)
            s = avg * 1e-3
            extras = [per_mode[m]['extra'] for m in modes]
            extra = '%9.2f' % (max(extras) / 1e9) if None not in extras else '%9s' % '-'
            line += ' %10.3f %9.1f %9.1f %8.1f %s' % (avg, f_paper / s * 1e-9, f_gemm / s * 1e-9,
                                                     n * itemsize / s * 1e-9, extra)
        else:
            notes = sorted({per_mode[m]['note'] for m in modes if per_mode[m]['state'] != 'ok'})
            line += '  (not every mode ran: %s)' % '; '.join(notes)
        out.append(line)
    return out


def check_line(results, modes):
    if len(results) < 2:
        return None
    a, b = results.get('einsum'), results.get('gemm')
    if not a or not b:
        return None
    diffs = [rel_diff(a[m]['g'].double(), b[m]['g'].double())
             for m in modes if a[m]['state'] == 'ok' and b[m]['state'] == 'ok']
    if not diffs:
        return None
    return max(diffs)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--tensor', choices=sorted(TENSORS))
    p.add_argument('--shape', type=lambda s: tuple(parse_list(s, 'x', 'shape')))
    p.add_argument('--ranks', type=lambda s: parse_list(s, ',', 'ranks'),
                   default=[10, 32, 500, 2000])
    p.add_argument('--methods', default='einsum,gemm')
    p.add_argument('--modes', default='all')
    p.add_argument('--dtype', default='float64', choices=['float32', 'float64'])
    p.add_argument('--device', default='cuda', choices=['cuda', 'cpu'])
    p.add_argument('--threads', type=int, default=0, help='CPU threads (0: torch default)')
    p.add_argument('--reps', type=int, default=5)
    p.add_argument('--warmup', type=int, default=1)
    p.add_argument('--budget', type=float, default=0,
                   help='seconds per measurement before repetitions are cut (0: no limit)')
    p.add_argument('--max-extra', type=float, default=0,
                   help='bytes a method may take beyond the inputs (0: the free memory)')
    p.add_argument('--seed', type=int, default=2026)
    p.add_argument('--json')
    args = p.parse_args()
    args.shape = args.shape or TENSORS[args.tensor or 'A']
    if len(args.shape) < 2 or min(args.shape) < 1 or min(args.ranks) < 1 or args.reps < 1:
        p.error('shape needs two or more positive sizes; ranks and reps must be positive')
    args.methods = args.methods.split(',')
    if any(m not in METHODS for m in args.methods):
        p.error('methods: einsum, gemm')
    order = len(args.shape)
    try:
        args.modes = (list(range(order)) if args.modes == 'all'
                      else parse_list(args.modes, ',', 'modes'))
    except argparse.ArgumentTypeError as e:
        p.error(str(e))
    if max(args.modes) >= order:
        p.error('a mode is past the tensor order %d' % order)
    return args


def describe(args, dev):
    if dev.type == 'cuda':
        name = torch.cuda.get_device_name(dev)
    else:
        name = 'CPU, %d threads' % torch.get_num_threads()
    opt_einsum = getattr(torch.backends, 'opt_einsum', None)  # torch >= 2.0
    opt = opt_einsum is not None and opt_einsum.is_available() and opt_einsum.enabled
    return ('torch %s on %s; einsum contraction order: %s' %
            (torch.__version__, name, 'opt_einsum' if opt else 'left to right'))


def main():
    args = parse_args()
    if args.device == 'cuda' and not torch.cuda.is_available():
        sys.exit('torch_mttkrp.py: no CUDA device (use --device cpu)')
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    dtype = getattr(torch, args.dtype)
    shape = tuple(args.shape)
    n = 1
    for s in shape:
        n *= s
    g = torch.Generator(device=dev).manual_seed(args.seed)
    x = torch.rand(shape, generator=g, device=dev, dtype=dtype)
    itemsize = x.element_size()
    timer = Timer(dev)
    name = [k for k, v in TENSORS.items() if v == shape]
    print('torch_mttkrp: %s' % describe(args, dev))
    print('tensor %s%s %s, layout: torch default (C order, last index fastest), N = %d '
          '(%.3f GB), uniform [0, 1)' % (name[0] + ' = ' if name else '',
                                         'x'.join(map(str, shape)), args.dtype, n,
                                         n * itemsize / 1e9))
    print('median of %d after %d warm-up%s; flops f = N R d (the paper\'s) and 2 N R; '
          'extra GB: allocator peak minus what the tensor and factors hold'
          % (args.reps, args.warmup, ', fewer repetitions past the time budget'
             if args.budget > 0 else ''))
    header = '%5s %-7s %s %10s %9s %9s %8s %9s' % (
        'R', 'method', ' '.join('%10s' % ('mode %d ms' % m) for m in args.modes), 'avg ms',
        'GF/s NRd', 'GF/s 2NR', 'GB/s', 'extra GB')
    records = []
    for rank in args.ranks:
        factors = [torch.rand((s, rank), generator=g, device=dev, dtype=dtype) for s in shape]
        results = {}
        for method in args.methods:
            results[method] = {m: run_one(x, factors, m, method, args, timer) for m in args.modes}
        lines = print_rank(rank, results, args.modes, n, len(shape), itemsize, [])
        print('\n' + header)
        print('\n'.join(lines))
        diff = check_line(results, args.modes)
        if diff is not None:
            print('      einsum vs gemm: largest relative difference %.1e' % diff)
        for method, per_mode in results.items():
            for m, r in per_mode.items():
                rec = {'rank': rank, 'method': method, 'mode': m, 'state': r['state']}
                rec.update({k: r[k] for k in ('ms', 'reps', 'extra', 'note') if k in r})
                records.append(rec)
        del factors, results
        if dev.type == 'cuda':
            torch.cuda.empty_cache()
        sys.stdout.flush()
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'torch': torch.__version__, 'device': describe(args, dev),
                       'shape': shape, 'dtype': args.dtype, 'layout': 'C order',
                       'rows': records}, f, indent=1)


if __name__ == '__main__':
    main()
