#!/usr/bin/env bash
# The soak tests at full size (tests/soak.py): `bash scripts/soak.sh [pytest ARGS]`. The suite runs them cut
# (20 kill -9 of the daemon instead of 100, 5 killed store writers instead of 20); this runs each at the size
# docs/reliability.md gives figures for, one at a time, with their durations.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
DEVETKA_SOAK=1 exec bash scripts/test.sh -m soak -n 0 -p no:cacheprovider --durations=0 -q "$@"
