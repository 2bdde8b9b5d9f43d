#!/usr/bin/env bash
# Run the whole test suite (or `bash scripts/test.sh ARGS` for pytest ARGS;
# paths are relative to the repo root). Sets the machine up first.
# The suite runs on DEVETKA_TEST_WORKERS pytest-xdist workers (default 8: most tests wait on a daemon, a
# broker, Chromium or a shot clock rather than compute; on 2 cores 8 finished before 6 and 10, docs/testing.md);
# `-n 0` in ARGS runs it in one process. A test using a fixture made once per module or package stays on one worker with the rest
# of them (tests/conftest.py, --dist loadgroup); the workers take the longest work first, in the order tests/conftest.py
# puts the tests in (--no-loadscope-reorder: pytest-xdist would otherwise hand out the groups with the most tests first).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The installed packages' modules are not compiled into the venv: this run compiles what it imports into its own
# cache (below), and never reads the venv's.
DEVETKA_SETUP_PIP_COMPILE=no bash scripts/setup.sh

# The tests' temporary folders (tmp_path: the stores, sockets and configs of every daemon) on a RAM filesystem
# where there is one (/dev/shm on Debian), removed after the run: the store fsyncs every input before answering
# it (synchronous=FULL), and on a shared disk those waits were over half of an in-process referee test.
# A kill -9 loses nothing on tmpfs either: the kernel keeps what a killed process wrote.
basetemp=()
if [[ -d /dev/shm && -w /dev/shm && "$(stat -f -c %T /dev/shm)" == tmpfs ]]; then
    run=$(mktemp -d /dev/shm/dv.XXXXXX)
    basetemp=(--basetemp "$run/tmp")
else
    run=$(mktemp -d)
fi
trap 'rm -rf "$run" || true' EXIT

# Every Python process of the run (the workers, and the hundreds of daemons, demos and commands the tests start)
# shares one cache of compiled modules outside the clone, written once: with bytecode writing off (some
# machines set PYTHONDONTWRITEBYTECODE) each of them compiled the project's modules again, and each worker
# rewrote the test modules' asserts again.
export PYTHONPYCACHEPREFIX="$run/pycache"
unset PYTHONDONTWRITEBYTECODE
.venv/bin/python -m compileall -q scoreboard hardware firmware_bridge tests >/dev/null
# One collection first, in one process, writes the test modules' rewritten asserts into that cache; the workers,
# which start together, then read them instead of each rewriting all of them (a worker's collection: 6.6 s of CPU
# cold, 1.7 s warm). Its errors, if any, are the run's to report.
.venv/bin/python -m pytest --collect-only -q -p no:cacheprovider "${basetemp[@]}" "$@" -n 0 >/dev/null 2>&1 || true

rc=0
.venv/bin/python -m pytest -n "${DEVETKA_TEST_WORKERS:-8}" --dist loadgroup --no-loadscope-reorder "${basetemp[@]}" "$@" || rc=$?

# pytest exits 5 when it collected no tests; a green run with no tests would hide
# a broken suite, so fail loudly.
if (( rc == 5 )); then
    echo "test.sh: FAILED: pytest collected no tests (exit 5)." >&2
fi
exit "$rc"
