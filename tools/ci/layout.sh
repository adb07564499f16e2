#!/usr/bin/env bash
# tools/test.sh's format stage: the sources follow .clang-format (tools/ci/format.sh) and
# the layout's rules (tools/ci/code_metrics.py --check: no backend includes an algorithm's
# header, and every header included more than once is named *_template.h).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/ci/format.sh
python3 tools/ci/code_metrics.py --check
