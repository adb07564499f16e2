#!/usr/bin/env python3
"""Draws PNG charts from the JSON files that `tenport bench --json` writes.

Usage: plot_bench.py RUN.json [RUN2.json ...] --output-dir DIR [--baseline LABEL]

Writes into DIR:
  roofline.png          one log-log panel per file: GFLOP/s against flops per byte,
                        under the machine's measured ceilings
  speedup-peers.png     peer time / tenport time for every peer result
  speedup-backends.png  with two or more files: each tenport benchmark against the
                        baseline file (the first, or the one whose machine label
                        contains LABEL)
  ceiling.png           each tenport result's share of the ceiling that bounds it

Needs matplotlib: tools/setup/deps.sh plot
"""
import argparse
import json
import math
import os
import sys
import textwrap

SCHEMA = 'tenport-bench/1'
SYSTEM_PYTHON = '/usr/bin/python3'
REEXEC_FLAG = 'TENPORT_PLOT_SYSTEM_PYTHON'

# Figures are 7.5 in wide at 120 dpi: 900 px, the width of a README column.
FIG_WIDTH = 7.5
DPI = 120

METHOD_COLOURS = {
    'dense-mttkrp': '#1f77b4', 'cp-als': '#17becf', 'sshopm': '#d62728',
    'sparse-mttkrp': '#2ca02c', 'sparse-cp-als': '#8c564b', 'sttid': '#9467bd',
    'primitives': '#7f7f7f',
}
KNOWN_METHODS = list(METHOD_COLOURS)
EXTRA_COLOURS = ['#e377c2', '#bcbd22', '#ff7f0e', '#393b79', '#637939']
MACHINE_COLOURS = ['#3b5b92', '#e8853d', '#4aa37a', '#c44e8a', '#8a7a3a', '#5fb3d9']
METHOD_SHORT = {
    'dense-mttkrp': 'mttkrp', 'cp-als': 'cp-als', 'sshopm': 'sshopm',
    'sparse-mttkrp': 'sp-mttkrp', 'sparse-cp-als': 'sp-cp-als', 'sttid': 'sttid',
    'primitives': 'prim',
}
CEILING_NAMES = {'copy': 'copy', 'gemm_f64': 'FP64 GEMM', 'fma_f32': 'FP32 FMA'}


class InputError(Exception):
    """A run file that cannot be plotted."""


# ---------------------------------------------------------------- reading the runs

def number(value):
    """The value as a finite float, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def positive(value):
    value = number(value)
    return value if value is not None and value > 0 else None


def normalise_result(raw, index, path):
    if not isinstance(raw, dict):
        raise InputError('%s: results[%d] is not an object' % (path, index))
    for key in ('method', 'case'):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise InputError('%s: results[%d] has no "%s"' % (path, index, key))
    return {
        'method': raw['method'], 'case': raw['case'],
        'kernel': str(raw.get('kernel') or ''), 'tool': str(raw.get('tool') or 'tenport'),
        'ms': positive(raw.get('ms')), 'flops': positive(raw.get('flops')),
        'bytes': positive(raw.get('bytes')), 'gflops': positive(raw.get('gflops')),
        'gbps': positive(raw.get('gbps')), 'items_per_s': positive(raw.get('items_per_s')),
        'items': raw.get('items') if isinstance(raw.get('items'), str) else None,
        'ceiling': raw.get('ceiling') if isinstance(raw.get('ceiling'), str) else None,
        'percent': number(raw.get('percent_of_ceiling')),
        'verified': raw.get('verified') is not False,
    }


def load_run(path):
    try:
        with open(path, encoding='utf-8') as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise InputError('%s: no such file' % path)
    except (OSError, UnicodeDecodeError) as e:
        raise InputError('%s: cannot read: %s' % (path, e))
    except json.JSONDecodeError as e:
        raise InputError('%s: invalid JSON: %s' % (path, e))
    if not isinstance(doc, dict):
        raise InputError('%s: not a JSON object; expected a %r document' % (path, SCHEMA))
    if doc.get('schema') != SCHEMA:
        raise InputError('%s: schema is %r, expected %r' % (path, doc.get('schema'), SCHEMA))
    results = doc.get('results')
    if not isinstance(results, list) or not results:
        raise InputError('%s: no results' % path)
    machine = doc.get('machine') if isinstance(doc.get('machine'), dict) else {}
    ceilings = doc.get('ceilings') if isinstance(doc.get('ceilings'), dict) else {}
    return {
        'path': path, 'size': doc.get('size'), 'machine': machine, 'ceilings': ceilings,
        'label': str(machine.get('label') or machine.get('device') or os.path.basename(path)),
        'date': str(machine.get('date') or '')[:10], 'revision': str(machine.get('revision') or ''),
        'results': [normalise_result(r, i, path) for i, r in enumerate(results)],
    }


def name_runs(runs):
    """Gives every run a distinct display name: its label, plus revision or date if shared."""
    for run in runs:
        run['name'] = run['label']
    for extra in ('revision', 'date', 'path'):
        names = [run['name'] for run in runs]
        for run in runs:
            if names.count(run['name']) > 1 and run[extra]:
                run['name'] += ' @ ' + run[extra]


def pick_baseline(runs, wanted):
    if wanted is None:
        return runs[0]
    matches = [run for run in runs if wanted.lower() in run['label'].lower()]
    if not matches:
        raise InputError('--baseline %r matches no machine label (%s)'
                         % (wanted, '; '.join(run['label'] for run in runs)))
    if len(matches) > 1:
        print('note: --baseline %r matches %d files; using %s'
              % (wanted, len(matches), matches[0]['path']))
    return matches[0]


# ---------------------------------------------------------------- formatting

def method_rank(method):
    """Sort key: the known methods in their usual order, then the rest by name."""
    if method in KNOWN_METHODS:
        return (KNOWN_METHODS.index(method), '')
    return (len(KNOWN_METHODS), method)


def method_colour(method):
    """A fixed colour per known method; methods new to this script take the next spare."""
    if method not in METHOD_COLOURS:
        spare = len(METHOD_COLOURS) - len(KNOWN_METHODS)
        METHOD_COLOURS[method] = EXTRA_COLOURS[spare % len(EXTRA_COLOURS)]
    return METHOD_COLOURS[method]


def machine_colour(runs, run):
    return MACHINE_COLOURS[runs.index(run) % len(MACHINE_COLOURS)]


def compact(value):
    """1234 -> '1.23k', 0.05 -> '0.05'; for axis ticks."""
    for scale, suffix in ((1e12, 'T'), (1e9, 'G'), (1e6, 'M'), (1e3, 'k')):
        if abs(value) >= scale:
            return ('%.3g' % (value / scale)) + suffix
    return '%.3g' % value


def rate(gflops):
    return '%.3g TFLOP/s' % (gflops / 1e3) if gflops >= 1e3 else '%.3g GFLOP/s' % gflops


def bandwidth(gbps):
    return '%.3g TB/s' % (gbps / 1e3) if gbps >= 1e3 else '%.3g GB/s' % gbps


def times(speedup):
    if speedup >= 10:
        return '%.0f×' % speedup
    return ('%.1f×' if speedup >= 1 else '%.2g×') % speedup


def shorten(text, width):
    return text if len(text) <= width else text[:width - 1] + '…'


def who(result):
    """'blocked' for tenport kernels, 'pytorch einsum' for peers."""
    if result['tool'] == 'tenport':
        return result['kernel'] or 'tenport'
    if not result['kernel'] or result['kernel'] == result['tool']:
        return result['tool']
    return result['tool'] + ' ' + result['kernel']


def unverified(result):
    return '' if result['verified'] else ' (unverified)'


def run_line(run):
    parts = [run['name'], run['date'], run['revision'] and 'rev ' + run['revision'],
             run['size'] == 'quick' and 'quick size']
    return ', '.join(p for p in parts if p)


def title_lines(heading, runs):
    return heading + ''.join('\n' + shorten(run_line(run), 95) for run in runs)


# ---------------------------------------------------------------- roofline

def roofs(run):
    """The run's flat compute roofs, [(key, GFLOP/s, label)], lowest first."""
    ceilings = run['ceilings']
    found = []
    gemm = positive(ceilings.get('gemm_f64_gflops'))
    if gemm:
        provider = ceilings.get('gemm_provider')
        found.append(('gemm_f64', gemm, 'FP64 GEMM%s %s' % (
            ' (%s)' % provider if provider else '', rate(gemm))))
    fma = positive(ceilings.get('fma_f32_gflops'))
    if fma:
        found.append(('fma_f32', fma, 'FP32 FMA %s' % rate(fma)))
    return sorted(found, key=lambda roof: roof[1])


def roofline_points(run):
    """Numbered points (tenport before peers within a case) and the results left off."""
    points, notes = [], []
    order = sorted(run['results'], key=lambda r: (method_rank(r['method']), r['case'],
                                                   r['tool'] != 'tenport', who(r)))
    for r in order:
        perf = r['gflops'] or (r['flops'] / r['ms'] / 1e6 if r['flops'] and r['ms'] else None)
        if r['flops'] and r['bytes'] and perf:
            points.append(dict(r, x=r['flops'] / r['bytes'], y=perf, n=len(points) + 1))
        else:
            notes.append(r)
    return points, notes


def point_key(point):
    """The key's text for a point, short enough for half the figure's width."""
    tail = ' · ' + rate(point['y']).replace('FLOP/s', 'F/s') + unverified(point)
    head = '%s %s · %s' % (METHOD_SHORT.get(point['method'], point['method']), who(point),
                           point['case'])
    return shorten(head, 62 - len(tail)) + tail


def note_text(r):
    if r['items_per_s']:
        value = '%s %s/s' % (compact(r['items_per_s']), r['items'] or 'items')
    elif r['gbps']:
        value = bandwidth(r['gbps'])
    elif r['ms']:
        value = '%.3g ms' % r['ms']
    else:
        value = 'no time'
    if r['percent'] is not None and r['ceiling']:
        value += ' (%.0f%% of %s)' % (r['percent'], CEILING_NAMES.get(r['ceiling'], r['ceiling']))
    return '%s %s · %s: %s%s' % (r['method'], who(r), r['case'], value, unverified(r))


def roofline_limits(run, points):
    copy = positive(run['ceilings'].get('copy_gbps'))
    peaks = [roof[1] for roof in roofs(run)]
    xs = [p['x'] for p in points] + ([peak / copy for peak in peaks] if copy else []) or [1.0]
    ys = [p['y'] for p in points] + peaks or [1.0]
    return (min(xs) / 4, max(xs) * 4), (min(ys) / 6, max(ys) * 4)


def line_boxes(ax, start, end, renderer):
    """Small boxes along a straight segment (in display space), to keep labels off it."""
    from matplotlib.transforms import Bbox
    (x0, y0), (x1, y1) = ax.transData.transform([start, end])
    steps = max(1, int(math.hypot(x1 - x0, y1 - y0) / 4))
    half = renderer.points_to_pixels(1.0)
    return [Bbox([[x - half, y - half], [x + half, y + half]])
            for x, y in ((x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
                         for i in range(steps + 1))]


def draw_roofs(ax, run, xlim, renderer):
    """Draws the memory roof and the flat roofs; returns boxes around lines and labels."""
    copy = positive(run['ceilings'].get('copy_gbps'))
    flat = roofs(run)
    boxes = []
    if copy:
        x_end = flat[-1][1] / copy if flat else xlim[1]
        start, end = (xlim[0], copy * xlim[0]), (x_end, copy * x_end)
        ax.plot(*zip(start, end), color='#333333', lw=1.4)
        boxes += line_boxes(ax, start, end, renderer)
        boxes.append(label_memory_roof(ax, copy, xlim).get_window_extent(renderer))
    for i, (key, peak, label) in enumerate(flat):
        start, end = (max(peak / copy, xlim[0]) if copy else xlim[0], peak), (xlim[1], peak)
        ax.plot(*zip(start, end), color='#333333', lw=1.4, ls='-' if key == 'gemm_f64' else '--')
        boxes += line_boxes(ax, start, end, renderer)
        above = i == len(flat) - 1
        text = ax.annotate(label, (xlim[1], peak), xytext=(-4, 3 if above else -3),
                           textcoords='offset points', ha='right',
                           va='bottom' if above else 'top', fontsize=8, color='#333333')
        boxes.append(text.get_window_extent(renderer))
    return boxes


def label_memory_roof(ax, copy, xlim):
    """The copy bandwidth written along the sloped roof, near its left end."""
    x = max(xlim[0] * 1.6, ax.get_ylim()[0] * 2.5 / copy)
    p0 = ax.transData.transform((x, copy * x))
    p1 = ax.transData.transform((x * 10, copy * x * 10))
    angle = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
    return ax.annotate('copy ' + bandwidth(copy), (x, copy * x), xytext=(0, 4),
                       textcoords='offset points', rotation=angle, rotation_mode='anchor',
                       ha='left', va='bottom', fontsize=8, color='#333333')


def overlap(a, b):
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def candidate_offsets():
    """Offsets in points around a marker: near ones first, right before left."""
    for radius in (8, 13, 19, 26, 34, 44):
        for degrees in (0, 30, -30, 60, -60, 90, -90, 120, -120, 150, -150, 180):
            a = math.radians(degrees)
            yield radius, (radius * math.cos(a), radius * math.sin(a))


def marker_boxes(ax, points, renderer):
    from matplotlib.transforms import Bbox
    r = 4.5 * renderer.points_to_pixels(1.0)
    centres = ax.transData.transform([(p['x'], p['y']) for p in points])
    return [Bbox([[cx - r, cy - r], [cx + r, cy + r]]) for cx, cy in centres]


def place_numbers(ax, points, obstacles, renderer):
    """Puts each point's number where it covers no marker, line or label placed before."""
    placed = list(obstacles) + marker_boxes(ax, points, renderer)
    frame = ax.get_window_extent(renderer)
    for p in points:
        text = ax.annotate(str(p['n']), (p['x'], p['y']), xytext=(8, 0),
                           textcoords='offset points', ha='center', va='center',
                           fontsize=7.5, fontweight='bold', color=method_colour(p['method']))
        best = None
        for radius, offset in candidate_offsets():
            text.xyann = offset
            box = text.get_window_extent(renderer)
            cost = sum(overlap(box, other) for other in placed)
            if not (frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)):
                cost += 1e6
            if best is None or cost < best[0]:
                best = (cost, radius, offset, box)
            if cost == 0:
                break
        _, radius, offset, box = best
        text.xyann = offset
        if radius > 13:
            ax.annotate('', (p['x'], p['y']), xytext=offset, textcoords='offset points',
                        arrowprops=dict(arrowstyle='-', color='#999999', lw=0.6,
                                        shrinkA=4, shrinkB=3))
        placed.append(box)


def draw_points(ax, points):
    for p in points:
        colour = method_colour(p['method'])
        if p['tool'] == 'tenport':
            ax.plot(p['x'], p['y'], 'o', ms=6.5, color=colour, mec='white', mew=0.6, zorder=3)
        else:
            ax.plot(p['x'], p['y'], 'D', ms=6, mfc='white', mec=colour, mew=1.6, zorder=3)


def style_log_axes(ax):
    from matplotlib.ticker import FuncFormatter, LogLocator
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(base=10))
        axis.set_major_formatter(FuncFormatter(lambda v, _: compact(v)))
    ax.grid(True, which='major', color='#e5e5e5', lw=0.6)
    ax.set_xlabel('arithmetic intensity (flop / byte)')
    ax.set_ylabel('GFLOP/s')


def roofline_legend(ax, points):
    from matplotlib.lines import Line2D
    methods = list(dict.fromkeys(p['method'] for p in points))
    handles = [Line2D([], [], ls='', marker='o', ms=6, color=method_colour(m), label=m)
               for m in methods]
    if any(p['tool'] != 'tenport' for p in points):
        handles.append(Line2D([], [], ls='', marker='D', ms=5.5, mfc='white', mec='#555555',
                              mew=1.4, label='peer'))
    return ax.legend(handles=handles, loc='upper left', fontsize=7.5, framealpha=0.9,
                     handletextpad=0.3, borderpad=0.4, labelspacing=0.3)


def key_layout(points, notes):
    """The lines under a panel: numbered points in two columns, then wrapped notes."""
    half = (len(points) + 1) // 2
    columns = [points[:half], points[half:]]
    note_rows = textwrap.wrap('Not on the chart (no flop or byte count): '
                              + '; '.join(note_text(r) for r in notes), 125) if notes else []
    return columns, note_rows


PANEL = dict(title=0.4, axes=3.7, xlabel=0.5, key_line=0.16, gap=0.3)


def panel_height(columns, note_rows):
    lines = len(columns[0]) + (len(note_rows) + 0.5 if note_rows else 0)
    return (PANEL['title'] + PANEL['axes'] + PANEL['xlabel'] + PANEL['key_line'] * lines
            + PANEL['gap'])


def draw_key(fig, top_in, height, columns, note_rows):
    """Writes the key starting top_in inches below the figure's top."""
    for column, points in enumerate(columns):
        x = 0.03 + column * 0.49
        for row, p in enumerate(points):
            y = 1 - (top_in + row * PANEL['key_line']) / height
            fig.text(x, y, str(p['n']), color=method_colour(p['method']), fontsize=7,
                     fontweight='bold', va='top', ha='right')
            fig.text(x + 0.006, y, point_key(p), color='#222222', fontsize=7, va='top', ha='left')
    y_in = top_in + PANEL['key_line'] * (len(columns[0]) + 0.5)
    for line in note_rows:
        fig.text(0.012, 1 - y_in / height, line, fontsize=7, va='top', ha='left', color='#555555')
        y_in += PANEL['key_line']


def plot_roofline(runs, out_dir, plt):
    panels = [roofline_points(run) for run in runs]
    keys = [key_layout(points, notes) for points, notes in panels]
    header = 0.4
    height = header + sum(panel_height(*key) for key in keys)
    fig = plt.figure(figsize=(FIG_WIDTH, height), dpi=DPI)
    fig.text(0.5, 1 - 0.12 / height, 'Roofline: tenport (filled) and peers (hollow)',
             ha='center', va='top', fontsize=11, fontweight='bold')
    renderer = fig.canvas.get_renderer()
    top = header
    for run, (points, _), key in zip(runs, panels, keys):
        draw_roofline_panel(fig, run, points, top, height, renderer)
        draw_key(fig, top + PANEL['title'] + PANEL['axes'] + PANEL['xlabel'], height, *key)
        top += panel_height(*key)
    return save(fig, out_dir, 'roofline.png', plt)


def draw_roofline_panel(fig, run, points, top, height, renderer):
    left, right = 0.85, 0.2
    bottom_in = top + PANEL['title'] + PANEL['axes']
    ax = fig.add_axes([left / FIG_WIDTH, 1 - bottom_in / height,
                       1 - (left + right) / FIG_WIDTH, PANEL['axes'] / height])
    ax.set_xscale('log')
    ax.set_yscale('log')
    xlim, ylim = roofline_limits(run, points)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    style_log_axes(ax)
    ax.set_title(shorten(run_line(run), 100), fontsize=9, loc='left', fontweight='bold')
    obstacles = draw_roofs(ax, run, xlim, renderer)
    if not obstacles:
        ax.text(0.98, 0.03, 'no ceilings in this file', transform=ax.transAxes, ha='right',
                fontsize=8, color='#666666')
    draw_points(ax, points)
    if not points:
        ax.text(0.5, 0.5, 'no result has both a flop and a byte count', transform=ax.transAxes,
                ha='center', va='center', color='#666666')
        return
    obstacles.append(roofline_legend(ax, points).get_window_extent(renderer))
    place_numbers(ax, points, obstacles, renderer)


# ---------------------------------------------------------------- bar charts
# Rows are laid out in inches from the top of the axes, so that bars keep one
# thickness whatever their number; a header row is a bold group title.

SLOT = 0.17          # inches of one bar
HEADER_ROW = 0.3


def stack_rows(heights):
    """Centres of rows of the given heights (inches), top down, and the total."""
    centres, y = [], 0.0
    for h in heights:
        centres.append(y + h / 2)
        y += h
    return centres, y


def bar_figure(plt, title, rows_in, legend_lines=0):
    height = 0.75 + 0.19 * (title.count('\n') + 1) + 0.18 * legend_lines + rows_in
    fig, ax = plt.subplots(figsize=(FIG_WIDTH, height), dpi=DPI, layout='constrained')
    fig.suptitle(title, fontsize=9.5)
    return fig, ax


def set_row_labels(ax, centres, labels, headers, total):
    ax.set_yticks(centres)
    ax.set_yticklabels(labels, fontsize=7.5)
    for i, tick in enumerate(ax.get_yticklabels()):
        if i in headers:
            tick.set_fontweight('bold')
            tick.set_fontsize(8.5)
    ax.tick_params(axis='y', length=0)
    ax.set_ylim(total, 0)


def slot_centre(centre, slots, index):
    """The centre of bar index of the slots bars in a row."""
    return centre - slots * SLOT / 2 + SLOT * (index + 0.5)


def grouped_row_height(bars, minimum):
    return max(minimum, SLOT * bars + 0.1)


def speedup_axis(ax, values, xlabel):
    """Log x when the speedups span a wide range; a line at 1x."""
    lo, hi = min(values + [1.0]), max(values + [1.0])
    if hi / lo > 12:
        from matplotlib.ticker import FuncFormatter
        ax.set_xscale('log')
        ax.set_xlim(lo / 3.5, hi * 3.5)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: compact(v) + '×'))
    else:
        ax.set_xlim(lo * 0.75 if lo < 1 else 0, hi * 1.22)
    ax.axvline(1.0, color='#222222', lw=1)
    ax.grid(True, axis='x', color='#e5e5e5', lw=0.6)
    ax.set_axisbelow(True)
    ax.set_xlabel(xlabel, fontsize=8.5)


def speedup_bar(ax, y, speedup, colour, height, fontsize=7.5):
    """A bar from 1x to the speedup, its value written just beyond its end."""
    ax.barh(y, speedup - 1, left=1, height=height, color=colour)
    left = speedup < 1
    ax.annotate(times(speedup), (speedup, y), xytext=(-3 if left else 3, 0),
                textcoords='offset points', ha='right' if left else 'left', va='center',
                fontsize=fontsize)


def machine_legend(ax, runs, shown):
    """Machine colours above the axes, each with its date and revision."""
    from matplotlib.patches import Patch
    handles = [Patch(color=machine_colour(runs, run), label=shorten(run_line(run), 90))
               for run in shown]
    ax.legend(handles=handles, fontsize=7.5, loc='lower right', bbox_to_anchor=(1, 1.01),
              frameon=False, borderaxespad=0, handlelength=1.2)


def fastest_tenport(results):
    """(method, case) -> the tenport result with the shortest time."""
    best = {}
    for r in results:
        if r['tool'] == 'tenport' and r['ms']:
            key = (r['method'], r['case'])
            if key not in best or r['ms'] < best[key]['ms']:
                best[key] = r
    return best


def peer_pairs(run):
    """(peer, fastest tenport result of the same benchmark) in this run."""
    best = fastest_tenport(run['results'])
    pairs = [(r, best.get((r['method'], r['case']))) for r in run['results']
             if r['tool'] != 'tenport' and r['ms']]
    alone = sum(1 for _, ours in pairs if not ours)
    if alone:
        print('note: %s: %d peer result(s) without a timed tenport result of the same '
              'method and case' % (run['path'], alone))
    return sorted([(peer, ours) for peer, ours in pairs if ours],
                  key=lambda pair: (method_rank(pair[0]['method']), pair[0]['case'], who(pair[0])))


def plot_speedup_peers(runs, out_dir, plt):
    groups = [(run, peer_pairs(run)) for run in runs]
    groups = [(run, pairs) for run, pairs in groups if pairs]
    if not groups:
        return skip(out_dir, 'speedup-peers.png', 'no peer result has a tenport result of '
                    'the same benchmark')
    labels, heights, headers, bars = [], [], set(), []
    for run, pairs in groups:
        if len(groups) > 1:
            headers.add(len(labels))
            labels.append(shorten(run['name'], 60))
            heights.append(HEADER_ROW)
        for peer, ours in pairs:
            bars.append((len(labels), peer, ours))
            labels.append('%s · %s\n%s vs %s%s' % (
                peer['method'], shorten(peer['case'], 36), who(peer), who(ours),
                unverified(peer) or unverified(ours)))
            heights.append(0.36)
    centres, total = stack_rows(heights)
    title = title_lines('Speedup of tenport over peers (peer time / tenport time)',
                        [run for run, _ in groups])
    fig, ax = bar_figure(plt, title, total)
    values = []
    for row, peer, ours in bars:
        values.append(peer['ms'] / ours['ms'])
        speedup_bar(ax, centres[row], values[-1], method_colour(peer['method']), 0.22)
    set_row_labels(ax, centres, labels, headers, total)
    speedup_axis(ax, values, 'speedup (right of 1×: tenport is faster; left: the peer is)')
    return save(fig, out_dir, 'speedup-peers.png', plt)


def tenport_times(run):
    return {(r['method'], r['case'], r['kernel']): r for r in run['results']
            if r['tool'] == 'tenport' and r['ms']}


def backend_groups(runs, baseline):
    """[(benchmark, [(run, speedup)])] for the benchmarks the baseline shares with others."""
    base = tenport_times(baseline)
    others = [(run, tenport_times(run)) for run in runs if run is not baseline]
    groups, skipped = [], 0
    keys = set(base).union(*[set(t) for _, t in others])
    for key in sorted(keys, key=lambda k: (method_rank(k[0]), k[1], k[2])):
        bars = [(run, base[key]['ms'] / t[key]['ms']) for run, t in others
                if key in t and key in base]
        if bars:
            groups.append((key, bars))
        elif sum(key in t for _, t in others) >= 2:
            skipped += 1
    if skipped:
        print('note: %d benchmark(s) ran on several machines but not on the baseline; '
              'left out of speedup-backends.png' % skipped)
    return groups


def plot_speedup_backends(runs, baseline, out_dir, plt):
    if len(runs) < 2:
        return skip(out_dir, 'speedup-backends.png', 'one input file')
    groups = backend_groups(runs, baseline)
    if not groups:
        return skip(out_dir, 'speedup-backends.png',
                    'no tenport benchmark of the baseline ran elsewhere')
    others = [run for run in runs if run is not baseline]
    centres, total = stack_rows([grouped_row_height(len(bars), 0.4) for _, bars in groups])
    title = 'Speedup of each tenport benchmark over %s\n(baseline time / time)' % shorten(
        baseline['name'], 70)
    fig, ax = bar_figure(plt, title, total, legend_lines=len(others))
    values, labels = [], []
    for centre, ((method, case, kernel), bars) in zip(centres, groups):
        labels.append('%s %s\n%s' % (method, kernel, shorten(case, 40)))
        for i, (run, speedup) in enumerate(bars):
            values.append(speedup)
            speedup_bar(ax, slot_centre(centre, len(bars), i), speedup,
                        machine_colour(runs, run), SLOT * 0.85)
    set_row_labels(ax, centres, labels, set(), total)
    speedup_axis(ax, values, 'speedup over %s (line at 1×)' % shorten(baseline['name'], 60))
    machine_legend(ax, runs, others)
    return save(fig, out_dir, 'speedup-backends.png', plt)


def ceiling_rows(runs):
    """{method: sorted [(case, kernel, ceiling)]} for tenport results with a percentage."""
    rows = {}
    for run in runs:
        for r in run['results']:
            if r['tool'] == 'tenport' and r['percent'] is not None:
                row = (r['case'], r['kernel'], r['ceiling'] or '')
                rows.setdefault(r['method'], set()).add(row)
    return [(method, sorted(rows[method])) for method in sorted(rows, key=method_rank)]


def plot_ceiling(runs, out_dir, plt):
    groups = ceiling_rows(runs)
    if not groups:
        return skip(out_dir, 'ceiling.png', 'no tenport result has a percent_of_ceiling')
    found = [{(r['method'], r['case'], r['kernel'], r['ceiling'] or ''): r
              for r in run['results'] if r['tool'] == 'tenport' and r['percent'] is not None}
             for run in runs]
    labels, heights, headers, bars = [], [], set(), []
    for method, rows in groups:
        headers.add(len(labels))
        labels.append(method)
        heights.append(HEADER_ROW)
        bars.append([])
        for case, kernel, ceiling in rows:
            key = (method, case, kernel, ceiling)
            bars.append([(run, got[key]) for run, got in zip(runs, found) if key in got])
            labels.append('%s · %s (%s)' % (kernel, shorten(case, 40),
                                            CEILING_NAMES.get(ceiling, ceiling or '?')))
            heights.append(grouped_row_height(len(bars[-1]), 0.24))
    centres, total = stack_rows(heights)
    title = 'Share of the measured ceiling that bounds each tenport kernel'
    fig, ax = bar_figure(plt, title, total, legend_lines=len(runs))
    for centre, row in zip(centres, bars):
        for i, (run, r) in enumerate(row):
            ceiling_bar(ax, slot_centre(centre, len(row), i), r, machine_colour(runs, run))
    set_row_labels(ax, centres, labels, headers, total)
    ax.set_xlim(0, max([r['percent'] for row in bars for _, r in row] + [100.0]) * 1.12)
    ax.axvline(100, color='#222222', lw=1)
    ax.grid(True, axis='x', color='#e5e5e5', lw=0.6)
    ax.set_axisbelow(True)
    ax.set_xlabel('% of the ceiling named in each row', fontsize=8.5)
    machine_legend(ax, runs, runs)
    return save(fig, out_dir, 'ceiling.png', plt)


def ceiling_bar(ax, y, result, colour):
    ax.barh(y, result['percent'], height=SLOT * 0.85, color=colour)
    ax.annotate('%.0f%%%s' % (result['percent'], unverified(result)), (result['percent'], y),
                xytext=(3, 0), textcoords='offset points', va='center', fontsize=7)


# ---------------------------------------------------------------- main

def save(fig, out_dir, name, plt):
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=DPI, facecolor='white')
    plt.close(fig)
    return path


def skip(out_dir, name, why):
    """Says why a chart is not drawn, and removes the one an earlier call left there."""
    path = os.path.join(out_dir, name)
    stale = os.path.exists(path)
    if stale:
        os.remove(path)
    print('note: %s not written (%s)%s' % (name, why, '; removed the old one' if stale else ''))
    return None


def load_matplotlib():
    """Imports matplotlib for drawing to files; tries Debian's python3 if this one lacks it."""
    try:
        import matplotlib
    except ImportError:
        here = os.path.realpath(sys.executable)
        if (os.path.exists(SYSTEM_PYTHON) and os.path.realpath(SYSTEM_PYTHON) != here
                and not os.environ.get(REEXEC_FLAG)):
            os.environ[REEXEC_FLAG] = '1'
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
        raise InputError('matplotlib is missing; run tools/setup/deps.sh plot')
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    plt.rcParams.update({'font.size': 9, 'axes.titlesize': 9, 'axes.spines.top': False,
                         'axes.spines.right': False})
    return plt


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description='Charts from `tenport bench --json` files.')
    parser.add_argument('runs', nargs='+', metavar='RUN.json')
    parser.add_argument('--output-dir', required=True, metavar='DIR')
    parser.add_argument('--baseline', metavar='LABEL',
                        help='machine label (or part of it) of the file that '
                             'speedup-backends.png compares against; default: the first file')
    return parser.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    try:
        runs = [load_run(path) for path in args.runs]
        name_runs(runs)
        baseline = pick_baseline(runs, args.baseline)
        plt = load_matplotlib()
        os.makedirs(args.output_dir, exist_ok=True)
    except (InputError, OSError) as e:
        print('plot_bench.py: %s' % e, file=sys.stderr)
        return 1
    written = [plot_roofline(runs, args.output_dir, plt),
               plot_speedup_peers(runs, args.output_dir, plt),
               plot_speedup_backends(runs, baseline, args.output_dir, plt),
               plot_ceiling(runs, args.output_dir, plt)]
    for path in written:
        if path:
            print(path)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
