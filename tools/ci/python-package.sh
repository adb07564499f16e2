#!/usr/bin/env bash
# The Python package as a user installs it: `pip install --no-build-isolation .` into a
# fresh virtual environment that sees Debian's numpy (--system-site-packages; offline,
# with Debian's meson-python), then `import tenport` and the pytest suite run from
# outside the source tree against the installed package. Default backend: openmp.
# When build/openmp exists (tools/test.sh's openmp stage made it, with the Python package),
# pip builds in it (meson-python's builddir): the package is made from the objects the
# suites ran, not compiled a second time.
# Usage: tools/ci/python-package.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/setup/deps.sh build test
root=$PWD
work=$root/build/python-package
rm -rf "$work"
mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
echo "== pip install --no-build-isolation . (into $work/venv)"
start=$(date +%s)
reuse=()
if [ -f "$root/build/openmp/build.ninja" ]; then
  # (Debian 12's pip 23.0 takes the long form only; meson-python 0.12 calls it builddir)
  reuse=(--config-settings="builddir=$root/build/openmp"
         --config-settings=setup-args=-Dtests=enabled)
  echo "(building in build/openmp)"
fi
"$work/venv/bin/pip" install --no-build-isolation --no-index "${reuse[@]}" "$root" \
  >"$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; exit 1; }
echo "(built and installed in $(($(date +%s) - start)) s)"
cd "$work"
"$work/venv/bin/python" -c "import tenport; print('tenport', tenport.__version__, tenport.backend(), tenport.__file__)"
case "$("$work/venv/bin/python" -c "import tenport; print(tenport.__file__)")" in
  "$work"/venv/*) ;;
  *) echo "python-package.sh: tenport was not imported from the virtual environment" >&2; exit 1 ;;
esac
OMP_WAIT_POLICY=passive "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
echo "== python package: OK"
