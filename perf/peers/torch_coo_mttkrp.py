#!/usr/bin/env python3
"""Peer for the sparse MTTKRP benchmarks: COO MTTKRP with plain PyTorch ops (no torch.sparse).

The tensor comes from a FROSTT .tns file (1-based indices then the value per line, '#'
comments; dims are each mode's largest index) or a tenport .tpb file (recognised by its
magic "TPCOO\\0\\0\\1"; layout in algorithms/sparse/tpb.c), is moved to the device with
int64 indices and values in --dtype (default float32), and the factors are I_n x R,
uniform in [0, 1). Mode-k MTTKRP as a user would write it:
  index_add  P = vals[:, None] * U_a[idx_a] * U_b[idx_b] ...  (rows of every other mode
             gathered, multiplied elementwise), then G = zeros(I_k, R).index_add_(0,
             idx_k, P); --chunk N does it N nonzeros at a time to bound the temporaries.
Timed with CUDA events on GPUs (time.perf_counter on CPUs): median of --reps after
--warmup, per mode and averaged over modes. Extra memory (GPUs): the allocator's peak
during the calls minus what was allocated before them (the tensor and the factors).
GFLOP/s with f = nnz R d (d the order; the GenTen paper's count with N = nnz); GB/s:
the COO tensor's bytes (indices and values) once per call. Check: for --check-rows
output rows per mode (rows of randomly drawn nonzeros), the same MTTKRP in float64 on
the CPU; error = max |G - ref| / (the MTTKRP of |values| and |factors|), which rounding
keeps near the unit roundoff times a small factor. The last line is the JSON record.
.tns reading: pandas (C parser) when installed, else numpy.loadtxt (much slower).

Usage: torch_coo_mttkrp.py TENSOR.tns|TENSOR.tpb [--ranks 32] [--modes all|0,2]
                           [--dtype float32|float64] [--device cuda|cpu] [--threads N]
                           [--reps 5] [--warmup 1] [--chunk NNZ] [--check-rows 64]
                           [--seed 2026] [--json FILE]
"""
import argparse
import json
import os
import statistics
import struct
import sys
import time

import numpy as np
import torch

from peer_common import Timer, parse_list

MICRO_MAGIC = b'TPCOO\0\0\1'
MICRO_FIXED = struct.Struct('<8sIIIIQ')  # magic, version, index width, value width, order, nnz




def read_tpb(path):
    """(indices: list of int64 arrays, zero-based; values; dims) from a .tpb file."""
    size = os.path.getsize(path)
    with open(path, 'rb') as f:
        fixed = f.read(MICRO_FIXED.size)
        if len(fixed) < MICRO_FIXED.size:
            sys.exit('%s: truncated .tpb header' % path)
        magic, version, iw, vw, order, nnz = MICRO_FIXED.unpack(fixed)
        if version != 1 or iw not in (4, 8) or vw not in (4, 8) or not 1 <= order <= 16:
            sys.exit('%s: unsupported .tpb header (version %d, index width %d, value width %d,'
                     ' order %d)' % (path, version, iw, vw, order))
        dims = struct.unpack('<%dQ' % order, f.read(8 * order))
    offset = MICRO_FIXED.size + 8 * order
    if size != offset + nnz * (order * iw + vw):
        sys.exit('%s: the file holds %d bytes, the header says %d'
                 % (path, size, offset + nnz * (order * iw + vw)))
    itype, vtype = np.dtype('<u%d' % iw), np.dtype('<f%d' % vw)
    indices = []
    for m in range(order):
        indices.append(np.fromfile(path, dtype=itype, count=nnz, offset=offset).astype(np.int64))
        offset += nnz * iw
    values = np.fromfile(path, dtype=vtype, count=nnz, offset=offset)
    return indices, values, [int(d) for d in dims], 'tpb'


def read_tns(path):
    """(indices, values, dims, reader) from a FROSTT .tns file; dims from the largest index."""
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith('#'):
                break
        else:
            sys.exit('%s: no nonzeros' % path)
    order = len(fields) - 1
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        dtypes = {m: np.int64 for m in range(order)}
        dtypes[order] = np.float64
        frame = pd.read_csv(path, sep=r'\s+', header=None, comment='#', dtype=dtypes,
                            engine='c')
        columns = [frame[m].to_numpy() for m in range(order + 1)]
        reader = 'pandas %s' % pd.__version__
    else:
        table = np.loadtxt(path, comments='#', ndmin=2)
        columns = [table[:, m].astype(np.int64) for m in range(order)] + [table[:, order]]
        reader = 'numpy.loadtxt'
    indices = [c - 1 for c in columns[:order]]
    if any(i.size and i.min() < 0 for i in indices):
        sys.exit('%s: an index is below 1' % path)
    dims = [int(i.max()) + 1 if i.size else 1 for i in indices]
    return indices, columns[order], dims, reader


def read_tensor(path):
    with open(path, 'rb') as f:
        head = f.read(len(MICRO_MAGIC))
    return read_tpb(path) if head == MICRO_MAGIC else read_tns(path)


def mttkrp_index_add(idx, vals, factors, mode, chunk):
    rank = factors[0].shape[1]
    out = torch.zeros((factors[mode].shape[0], rank), dtype=vals.dtype, device=vals.device)
    others = [m for m in range(len(factors)) if m != mode]
    nnz = vals.shape[0]
    step = chunk if chunk > 0 else max(nnz, 1)
    for k0 in range(0, nnz, step):
        sl = slice(k0, min(nnz, k0 + step))
        prod = factors[others[0]][idx[others[0]][sl]]
        for m in others[1:]:
            prod.mul_(factors[m][idx[m][sl]])
        prod.mul_(vals[sl, None])
        out.index_add_(0, idx[mode][sl], prod)
    return out




def time_mode(fn, args, timer):
    """Median ms of --reps calls after --warmup calls (at least one)."""
    out = None
    for _ in range(max(1, args.warmup)):
        out, _ms = timer.run(fn)
    times = []
    for _ in range(args.reps):
        out, ms = timer.run(fn)
        times.append(ms)
    return out, statistics.median(times)


def check_mode(g, idx, vals, factors, mode, rows_wanted, gen):
    """Largest error of G's sampled rows against float64 on the CPU (see the docstring)."""
    nnz = vals.shape[0]
    if rows_wanted <= 0 or nnz == 0:
        return None
    picks = torch.randint(0, nnz, (rows_wanted,), generator=gen, device='cpu')
    rows = torch.unique(idx[mode][picks.to(idx[mode].device)])
    sel = torch.isin(idx[mode], rows).nonzero().squeeze(1)
    cpu = lambda t: t.to('cpu', torch.float64)  # noqa: E731
    slot = torch.searchsorted(rows, idx[mode][sel]).cpu()
    prod = torch.ones((sel.shape[0], factors[0].shape[1]), dtype=torch.float64)
    for m in range(len(factors)):
        if m != mode:
            prod *= cpu(factors[m][idx[m][sel]])
    v = cpu(vals[sel])[:, None]
    ref = torch.zeros((rows.shape[0], prod.shape[1]), dtype=torch.float64)
    scale = torch.zeros_like(ref)
    ref.index_add_(0, slot, prod * v)
    scale.index_add_(0, slot, prod.abs() * v.abs())
    err = (cpu(g[rows]) - ref).abs() / scale.clamp_min(1e-300)
    return err.max().item(), int(rows.shape[0])


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('tensor', help='.tns or .tpb file')
    p.add_argument('--ranks', type=lambda s: parse_list(s, ',', 'ranks'), default=[32])
    p.add_argument('--modes', default='all')
    p.add_argument('--dtype', default='float32', choices=['float32', 'float64'])
    p.add_argument('--device', default='cuda', choices=['cuda', 'cpu'])
    p.add_argument('--threads', type=int, default=0, help='CPU threads (0: torch default)')
    p.add_argument('--reps', type=int, default=5)
    p.add_argument('--warmup', type=int, default=1)
    p.add_argument('--chunk', type=int, default=0,
                   help='nonzeros per index_add_ step (0: all at once)')
    p.add_argument('--check-rows', type=int, default=64,
                   help='output rows per mode checked in float64 (0: no check)')
    p.add_argument('--seed', type=int, default=2026)
    p.add_argument('--json')
    args = p.parse_args()
    if min(args.ranks) < 1 or args.reps < 1 or args.chunk < 0:
        p.error('ranks and reps must be positive, chunk not negative')
    return args


def describe(dev):
    if dev.type == 'cuda':
        name = torch.cuda.get_device_name(dev)
    else:
        name = 'CPU, %d threads' % torch.get_num_threads()
    return 'torch %s on %s' % (torch.__version__, name)


def main():
    args = parse_args()
    if args.device == 'cuda' and not torch.cuda.is_available():
        sys.exit('torch_coo_mttkrp.py: no CUDA device (use --device cpu)')
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    dtype = getattr(torch, args.dtype)

    t = time.perf_counter()
    indices, values, dims, reader = read_tensor(args.tensor)
    read_s = time.perf_counter() - t
    order, nnz = len(dims), int(values.shape[0])
    try:
        modes = list(range(order)) if args.modes == 'all' else parse_list(args.modes, ',', 'modes')
    except argparse.ArgumentTypeError as e:
        sys.exit('torch_coo_mttkrp.py: %s' % e)
    if max(modes) >= order:
        sys.exit('torch_coo_mttkrp.py: a mode is past the tensor order %d' % order)
    idx = [torch.from_numpy(i).to(dev) for i in indices]
    # A writable copy in the value type (pandas may hand out read-only arrays).
    vals = torch.from_numpy(np.array(values, dtype=np.float32 if args.dtype == 'float32'
                                     else np.float64)).to(dev)
    del indices, values
    itemsize = vals.element_size()
    tensor_bytes = nnz * (order * idx[0].element_size() + itemsize)
    timer = Timer(dev)

    print('torch_coo_mttkrp: %s' % describe(dev))
    print('tensor %s: order %d, dims %s, nnz %d, %s values, int64 indices (%.2f GB); read in '
          '%.1f s (%s)' % (args.tensor, order, 'x'.join(map(str, dims)), nnz, args.dtype,
                           tensor_bytes / 1e9, read_s, reader))
    print('median of %d after %d warm-up; flops f = nnz R d; GB/s: tensor bytes per call; '
          'extra GB: allocator peak minus what the tensor and factors hold%s'
          % (args.reps, max(1, args.warmup),
             '; %d nonzeros per step' % args.chunk if args.chunk else ''))
    header = '%5s %-9s %s %10s %9s %8s %9s' % (
        'R', 'method', ' '.join('%10s' % ('mode %d ms' % m) for m in modes), 'avg ms',
        'GF/s nRd', 'GB/s', 'extra GB')
    g = torch.Generator(device=dev).manual_seed(args.seed)
    check_gen = torch.Generator().manual_seed(args.seed + 1)
    tol = 1e-3 if args.dtype == 'float32' else 1e-10
    rows, ok = [], True
    for rank in args.ranks:
        factors = [torch.rand((s, rank), generator=g, device=dev, dtype=dtype) for s in dims]
        per_mode, cells, worst, extras = {}, [], None, []
        for m in modes:
            fn = lambda: mttkrp_index_add(idx, vals, factors, m, args.chunk)  # noqa: E731
            if dev.type == 'cuda':
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats(dev)
                before = torch.cuda.memory_allocated(dev)
            out, ms = time_mode(fn, args, timer)
            extra = torch.cuda.max_memory_allocated(dev) - before if dev.type == 'cuda' else None
            extras.append(extra)
            chk = check_mode(out, idx, vals, factors, m, args.check_rows, check_gen)
            per_mode[m] = (ms, extra, chk)
            cells.append('%10.3f' % ms)
            if chk is not None:
                worst = chk[0] if worst is None else max(worst, chk[0])
            rec = {'rank': rank, 'method': 'index_add', 'mode': m, 'ms': ms, 'reps': args.reps,
                   'extra': extra}
            if chk is not None:
                rec.update({'check_error': chk[0], 'check_rows': chk[1]})
            rows.append(rec)
            del out
        avg = statistics.mean(per_mode[m][0] for m in modes)
        s = avg * 1e-3
        extra = '%9.2f' % (max(extras) / 1e9) if None not in extras else '%9s' % '-'
        print('\n' + header)
        print('%5d %-9s %s %10.3f %9.1f %8.1f %s' % (
            rank, 'index_add', ' '.join(cells), avg, float(nnz) * rank * order / s * 1e-9,
            tensor_bytes / s * 1e-9, extra))
        if worst is not None:
            good = worst <= tol
            ok = ok and good
            print('      check vs float64 (%d rows per mode): largest error %.1e, %s (limit %.0e)'
                  % (args.check_rows, worst, 'ok' if good else 'FAILED', tol))
        del factors
        if dev.type == 'cuda':
            torch.cuda.empty_cache()
        sys.stdout.flush()
    record = {'peer': 'torch_coo_mttkrp', 'torch': torch.__version__, 'device': describe(dev),
              'tensor': args.tensor, 'order': order, 'dims': dims, 'nnz': nnz,
              'dtype': args.dtype, 'index_dtype': 'int64', 'chunk': args.chunk,
              'reader': reader, 'read_s': read_s, 'check_ok': ok, 'rows': rows}
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(record, f, indent=1)
    print(json.dumps(record))
    if not ok:
        sys.exit(1)


if __name__ == '__main__':
    main()
