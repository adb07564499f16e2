#!/usr/bin/env python3
"""Peers for `tenport bench`: PyTorch on the suite's cases, added to the bench JSON.

Reads a JSON file written by `tenport bench --json` and, for the cases a PyTorch peer
exists for, runs that peer on the same problem on the same machine and appends its
results (tool "pytorch") to a copy of the file, matched by (method, case):
  dense-mttkrp   perf/peers/torch_mttkrp.py --methods einsum on the case's shape, rank
                 and precision (torch's C order), mean of the modes
  sshopm (4,3)   perf/peers/torch_sshopm.py with the case's tensors, starts and
                 iterations (CUDA only; the peer exists for (4,3) alone)
  sparse-mttkrp  the case's tensor generated again by `tenport gen sparse` (same
                 generator, seed 2026, skew 4, f32) as .tpb, then
                 perf/peers/torch_coo_mttkrp.py (index_add), mean of the modes
The peer's flops and bytes are tenport's (the same problem), so rates compare directly.

Usage: bench_peers.py BENCH.json --tenport PATH/tenport --output MERGED.json
                      [--device cuda|cpu] [--threads N] [--only dense,sshopm,sparse]
                      [--workdir DIR] [--timeout SECONDS]
"""
import argparse
import copy
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, timeout):
    """Runs a peer; its output goes to our stdout (the log); returns it, or None on failure."""
    print('$ ' + ' '.join(cmd), flush=True)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print('peer timed out after %d s' % timeout, flush=True)
        return None
    sys.stdout.write(p.stdout)
    sys.stdout.write(p.stderr)
    if p.returncode != 0:
        print('peer failed with exit code %d' % p.returncode, flush=True)
        return None
    return p.stdout


def peer_result(base, kernel, ms, note, verified=False):
    """A result of the peer for base's case; verified only where the peer checked itself."""
    r = copy.deepcopy(base)
    r.update({'tool': 'pytorch', 'kernel': kernel, 'ms': ms, 'model_ms': None, 'model': '',
              'check': note, 'verified': verified})
    for key, amount, scale in (('gflops', 'flops', 1e9), ('gbps', 'bytes', 1e9)):
        r[key] = r[amount] / (ms * 1e-3) / scale if r.get(amount) else None
    if r.get('items_per_s') and base.get('ms'):
        r['items_per_s'] = base['items_per_s'] * base['ms'] / ms
    r['percent_of_ceiling'] = (base['percent_of_ceiling'] * base['ms'] / ms
                               if base.get('percent_of_ceiling') else None)
    return r


def mean_of_modes(res, path, kernel, what):
    """The peer result of a peer's JSON file: the mean time of its per-mode rows."""
    with open(path) as f:
        record = json.load(f)
    rows = [r for r in record['rows'] if r.get('ms')]
    if not rows:
        return None
    return peer_result(res, kernel, statistics.mean(r['ms'] for r in rows),
                       '%s, mean of %d modes' % (what, len(rows)),
                       verified=bool(record.get('check_ok')))


def dense_peer(res, args):
    m = re.search(r'(\d+(?:x\d+)+) (f32|f64) R=(\d+)', res['case'])
    if not m:
        return None
    out = os.path.join(args.workdir, 'torch-mttkrp.json')
    cmd = [sys.executable, os.path.join(HERE, 'torch_mttkrp.py'), '--shape', m.group(1),
           '--ranks', m.group(3), '--methods', 'einsum',
           '--dtype', 'float32' if m.group(2) == 'f32' else 'float64',
           '--device', args.device, '--reps', '5', '--warmup', '1', '--json', out]
    if args.threads:
        cmd += ['--threads', str(args.threads)]
    if run(cmd, args.timeout) is None:
        return None
    return mean_of_modes(res, out, 'einsum', 'torch einsum, C order')


def sshopm_peer(res, args):
    m = re.match(r'\(4,3\) f32, (\d+) tensors x (\d+) starts, (\d+) its', res['case'])
    if not m or args.device != 'cuda':
        return None
    cmd = [sys.executable, os.path.join(HERE, 'torch_sshopm.py'), '--tensors', m.group(1),
           '--starts', m.group(2), '--iterations', m.group(3)]
    text = run(cmd, args.timeout)
    ms = re.search(r': ([0-9.]+) ms,', text or '')
    if not ms:
        return None
    return peer_result(res, 'einsum', float(ms.group(1)), 'torch batched einsum, full storage')


def sparse_peer(res, args):
    m = re.match(r'power-law (\d+)\^3, ([0-9.e+]+) nnz f32 R=(\d+)', res['case'])
    if not m:
        return None
    dim, nnz, rank = m.group(1), int(float(m.group(2))), m.group(3)
    tpb = os.path.join(args.workdir, 'sparse-case.tpb')
    gen = [args.tenport, 'gen', 'sparse', '--dims', 'x'.join([dim] * 3), '--nnz', str(nnz),
           '--skew', '4', '--seed', '2026', '--precision', 'f32', '--output', tpb]
    if run(gen, args.timeout) is None:
        return None
    out = os.path.join(args.workdir, 'torch-coo.json')
    cmd = [sys.executable, os.path.join(HERE, 'torch_coo_mttkrp.py'), tpb, '--ranks', rank,
           '--device', args.device, '--json', out]
    if args.threads:
        cmd += ['--threads', str(args.threads)]
    text = run(cmd, args.timeout)
    os.remove(tpb)
    if text is None:
        return None
    return mean_of_modes(res, out, 'index_add', 'torch index_add')


PEERS = {'dense-mttkrp': ('dense', dense_peer), 'sshopm': ('sshopm', sshopm_peer),
         'sparse-mttkrp': ('sparse', sparse_peer)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('bench')
    p.add_argument('--tenport', required=True, help='the tenport executable (gen sparse)')
    p.add_argument('--output', required=True)
    p.add_argument('--device', default='cuda', choices=['cuda', 'cpu'])
    p.add_argument('--threads', type=int, default=0)
    p.add_argument('--only', default='dense,sshopm,sparse')
    p.add_argument('--workdir')
    p.add_argument('--timeout', type=int, default=300)
    args = p.parse_args()
    with open(args.bench) as f:
        bench = json.load(f)
    if bench.get('schema') != 'tenport-bench/1':
        sys.exit('%s: not a tenport bench file (schema %r)' % (args.bench, bench.get('schema')))
    wanted = set(args.only.split(','))
    added, done = [], set()
    with tempfile.TemporaryDirectory(dir=args.workdir) as work:
        args.workdir = work
        for res in bench['results']:
            group, fn = PEERS.get(res['method'], (None, None))
            key = (res['method'], res['case'])
            if res.get('tool') != 'tenport' or group not in wanted or key in done:
                continue
            done.add(key)
            peer = fn(res, args)
            print('%s / %s: %s' % (res['method'], res['case'],
                                   '%.3f ms' % peer['ms'] if peer else 'no peer result'),
                  flush=True)
            if peer:
                added.append(peer)
    bench['results'] += added
    with open(args.output, 'w') as f:
        json.dump(bench, f, indent=1, allow_nan=False)
    print('%d peer results added; written to %s' % (len(added), args.output))


if __name__ == '__main__':
    main()
