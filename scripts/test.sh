#!/usr/bin/env bash
# Run the whole test suite (or `bash scripts/test.sh ARGS` for pytest ARGS;
# paths are relative to the repo root). Sets the machine up first.
# The suite runs on DEVETKA_TEST_WORKERS pytest-xdist workers (default 4: most tests wait on a daemon, a
# broker, Chromium or a shot clock rather than compute, so two cores keep four busy); `-n 0` in ARGS runs it
# in one process. A test using a fixture made once per module or package stays on one worker with the rest
# of them (tests/conftest.py, --dist loadgroup).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh

rc=0
.venv/bin/python -m pytest -n "${DEVETKA_TEST_WORKERS:-4}" --dist loadgroup "$@" || rc=$?

# pytest exits 5 when it collected no tests; a green run with no tests would hide
# a broken suite, so fail loudly.
if (( rc == 5 )); then
    echo "test.sh: FAILED: pytest collected no tests (exit 5)." >&2
fi
exit "$rc"
