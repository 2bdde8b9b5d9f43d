#!/usr/bin/env bash
# Run Devetka. With no arguments: replay the bundled example match and print its
# rulings in words. With arguments: `bash scripts/run.sh ARGS` runs `devetka ARGS`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
bash "$root/scripts/setup.sh"

if (( $# == 0 )); then
    cd "$root"
    exec .venv/bin/devetka replay --explain examples/match.jsonl
fi
# Stay in the caller's directory so relative paths in ARGS mean what they say.
exec "$root/.venv/bin/devetka" "$@"
