"""Pieces the PyTorch peers share: option lists and device-side timing."""
import argparse
import time

import torch


def parse_list(text, sep, what):
    try:
        values = [int(v) for v in text.split(sep)]
    except ValueError:
        raise argparse.ArgumentTypeError('bad %s: %r' % (what, text))
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError('bad %s: %r' % (what, text))
    return values


class Timer:
    """Milliseconds of one call: CUDA events on GPUs, the wall clock on CPUs."""

    def __init__(self, device):
        self.cuda = device.type == 'cuda'

    def run(self, fn):
        if self.cuda:
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            out = fn()
            stop.record()
            torch.cuda.synchronize()
            return out, start.elapsed_time(stop)
        t = time.perf_counter()
        out = fn()
        return out, (time.perf_counter() - t) * 1e3
