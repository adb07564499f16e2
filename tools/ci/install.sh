#!/usr/bin/env bash
# tools/test.sh's install stage: the README's install recipe run verbatim into a
# temporary prefix (tools/ci/install-recipe.sh), then the embedding examples built against
# a staged install of build/openmp and of build/cuda (tools/ci/examples.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/ci/install-recipe.sh
tools/ci/examples.sh
