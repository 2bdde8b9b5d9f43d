#!/usr/bin/env bash
# Run Devetka. With no arguments: the demo, a simulated table playing a match
# through the real daemon at ten times real speed (devetka demo --speed 10).
# With arguments: `bash scripts/run.sh ARGS` runs `devetka ARGS`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
bash "$root/scripts/setup.sh"

if (( $# == 0 )); then
    exec "$root/.venv/bin/devetka" demo --speed 10
fi
# Stay in the caller's directory so relative paths in ARGS mean what they say.
exec "$root/.venv/bin/devetka" "$@"
