#!/usr/bin/env bash
# Builds the Python package for a GPU backend and runs its pytest suite (python/tests,
# with PyTorch CUDA tensors, and CuPy arrays where installed) on a machine with a GPU.
# The extension is built for the Python that has torch (TP_PYTHON, default: the first
# of /opt/torch/.venv/bin/python and python3 that imports torch); pytest comes from
# that Python or from .deps/pytest (a copy of Debian's, pure Python). Logs to
# $OUT/gpu-python.log (or ./gpu-python.log).
# Usage: tools/gpu/test-python.sh [extra meson options...]
#
# A run worth keeping becomes a record: copy the logs folder ($OUT) to
# perf/results/DATE-MACHINE-WHAT/, write its README.md (what was measured, the machine, the
# date and revision, the commands, the figures as tables), then run
# tools/perf/pack-record.sh on that folder.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
out=${OUT:-$PWD}
log=$out/gpu-python.log
build=${TP_BUILD_DIR:-build-gpu-python}
backend=${TP_BACKEND:-cuda}

python=${TP_PYTHON:-}
if [[ -z $python ]]; then
  for p in /opt/torch/.venv/bin/python python3; do
    if command -v "$p" >/dev/null && "$p" -c "import torch" 2>/dev/null; then python=$p; break; fi
  done
fi
[[ -n $python ]] || { echo "test-python.sh: no Python with torch (set TP_PYTHON)" >&2; exit 1; }
pythonpath=$root/$build/python
"$python" -c "import pytest" 2>/dev/null || pythonpath+=":$root/.deps/pytest"

{
  echo "tenport Python package on a GPU"
  date -u '+%Y-%m-%dT%H:%M:%SZ'
  echo "revision: ${TP_REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  nvidia-smi -L || true
  "$python" -c "import sys, numpy, torch; print('python', sys.version.split()[0], 'numpy', numpy.__version__, 'torch', torch.__version__, 'cuda', torch.version.cuda)"
} >"$log" 2>&1

native=$(mktemp)
printf '[binaries]\npython = '"'%s'"'\n' "$(command -v "$python")" >"$native"
if [[ ! -f $build/build.ninja ]]; then
  meson setup "$build" --native-file "$native" -Dtenport_backend="$backend" -Dpython=enabled \
    -Dtests=disabled "$@" >>"$log" 2>&1
fi
# The extension and the package's .py files copied beside it (without them the build
# tree's tenport would be a namespace package).
ext=$("$python" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
ninja -C "$build" "python/tenport/_tenport$ext" python/tenport/__init__.py \
  python/tenport/_arrays.py >>"$log" 2>&1
cd "$out"
PYTHONPATH=$pythonpath "$python" -m pytest -v -p no:cacheprovider "$root/python/tests" 2>&1 | tee -a "$log"
