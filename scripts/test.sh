#!/usr/bin/env bash
# Run the whole test suite (or `bash scripts/test.sh ARGS` for pytest ARGS;
# paths are relative to the repo root). Sets the machine up first.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh

rc=0
.venv/bin/python -m pytest "$@" || rc=$?

# pytest exits 5 when it collected no tests; a green run with no tests would hide
# a broken suite, so fail loudly.
if (( rc == 5 )); then
    echo "test.sh: FAILED: pytest collected no tests (exit 5)." >&2
fi
exit "$rc"
