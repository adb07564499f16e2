#!/usr/bin/env python3
"""Runs `tenport sshopm` and `tenport peaks` built for two backends on the same inputs
(same seeds) and checks that their outputs agree.

Usage: compare_backends.py TENPORT_A TENPORT_B WORKDIR
"""
import os
import subprocess
import sys

import numpy as np


def run(cmd):
    print('$ ' + ' '.join(cmd), flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main():
    tool_a, tool_b, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(7)
    tensors = rng.uniform(-1, 1, size=(1000, 15))
    np.save(os.path.join(work, 'A.npy'), tensors)
    ok = True
    for precision, tol in (('f64', 1e-9), ('f32', 1e-3)):
        outs = []
        for name, tool in (('a', tool_a), ('b', tool_b)):
            prefix = os.path.join(work, '%s_%s' % (name, precision))
            run([tool, 'sshopm', '--input', os.path.join(work, 'A.npy'), '--order', '4',
                 '--dim', '3', '--starts', '64', '--seed', '5', '--shift', '4',
                 '--tol', '0', '--maxits', '40', '--precision', precision,
                 '--output', prefix])
            outs.append({k: np.load(prefix + '_' + k + '.npy')
                         for k in ('lambda', 'x', 'flag', 'iterations')})
        a, b = outs
        dl = np.max(np.abs(a['lambda'] - b['lambda']))
        dx = np.max(np.abs(a['x'] - b['x']))
        same = (a['flag'] == b['flag']).all() and (a['iterations'] == b['iterations']).all()
        print('sshopm %s, 1000 tensors x 64 starts x 40 iterations: max |dlambda| %.3g, '
              'max |dx| %.3g, flags and iterations equal: %s' % (precision, dl, dx, same))
        ok &= bool(same) and dl <= tol and dx <= tol * 100
    dirs = []
    for name, tool in (('a', tool_a), ('b', tool_b)):
        prefix = os.path.join(work, 'peaks_' + name)
        run([tool, 'peaks', '--example', '--output', prefix])
        dirs.append((np.load(prefix + '_directions.npy'), np.load(prefix + '_amplitudes.npy')))
    (da, aa), (db, ab) = dirs
    same_count = (np.isnan(aa) == np.isnan(ab)).all()
    cos = np.abs(np.nansum(da * db, axis=-1))[~np.isnan(aa)]
    worst = np.degrees(np.arccos(np.clip(cos.min(), -1, 1))) if cos.size else 0.0
    print('peaks example: same peak counts %s, largest angle between the backends %.4f deg'
          % (same_count, worst))
    ok &= bool(same_count) and worst < 0.05
    print('backends agree' if ok else 'BACKENDS DISAGREE')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
