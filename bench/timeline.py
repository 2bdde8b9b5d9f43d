"""Where the suite's wall time goes on its workers: a pytest plugin stamping each test's start and end, and a report.

    PYTHONPATH=bench SUITE_TIMELINE=/tmp/tl bash scripts/test.sh -p timeline
    .venv/bin/python bench/timeline.py report /tmp/tl
        the span, each worker's busy time, the tests of the tail and the longest
    .venv/bin/python bench/timeline.py long /tmp/tl > tests/long_tests.txt
        the tests of 2 s or more, longest first: tests/conftest.py hands the workers the longest first

Each worker (or the one process) appends ``start end node-id`` lines to ``<worker>.txt`` in SUITE_TIMELINE; the
start is taken before the test's set-up, the end after its tear-down (a module fixture's set-up counts in its first
test). Nothing is asserted: figures go to docs/testing.md and bench/README.md."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

_LONG_S = 2.0  # a test this long or longer goes into tests/long_tests.txt
_TAIL_S = 90.0


_log = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _log
    if _log is None:
        folder = Path(os.environ.get("SUITE_TIMELINE", "/tmp/devetka-timeline"))
        folder.mkdir(parents=True, exist_ok=True)
        _log = open(folder / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.txt", "a", buffering=1)
    start = time.time()
    try:
        return (yield)
    finally:
        _log.write(f"{start:.3f} {time.time():.3f} {item.nodeid}\n")


def plain_id(nodeid: str) -> str:
    """A test's id without the ``@group`` that names a grouped test's group for pytest-xdist's scheduler."""
    return nodeid.rsplit("@", 1)[0] if nodeid.rfind("@") > nodeid.rfind("]") else nodeid


def read(folder: str) -> list[tuple[str, float, float, str]]:
    rows = []
    for path in sorted(Path(folder).glob("*.txt")):
        for line in path.read_text().splitlines():
            start, end, nodeid = line.split(" ", 2)
            rows.append((path.stem, float(start), float(end), nodeid))
    if not rows:
        sys.exit(f"timeline: no stamps in {folder}")
    return rows


def report(folder: str) -> None:
    rows = read(folder)
    t0, t1 = min(r[1] for r in rows), max(r[2] for r in rows)
    print(f"span {t1 - t0:.0f} s, {len(rows)} tests")
    for worker in sorted({r[0] for r in rows}):
        mine = sorted((r for r in rows if r[0] == worker), key=lambda r: r[1])
        busy = sum(r[2] - r[1] for r in mine)
        print(f"{worker}: first {mine[0][1] - t0:.0f} s, last end {mine[-1][2] - t0:.0f} s, busy {busy:.0f} s, "
              f"{len(mine)} tests")
    for title, chosen, count in ((f"tests ending in the last {_TAIL_S:g} s, longest first:",
                                  [r for r in rows if r[2] > t1 - _TAIL_S], 15), ("the longest:", rows, 25)):
        print(title)
        for worker, start, end, nodeid in sorted(chosen, key=lambda r: r[1] - r[2])[:count]:
            print(f"  {worker} {start - t0:6.0f} -> {end - t0:6.0f} ({end - start:5.1f} s) {plain_id(nodeid)[:110]}")


def long(folder: str) -> None:
    rows = sorted(read(folder), key=lambda r: (r[1] - r[2], r[3]))
    workers = len({r[0] for r in rows})
    print(f"# The tests of {_LONG_S:g} s or more in a whole run on {workers} workers, wall seconds: tests/conftest.py"
          " hands the longest out first. Made by bench/timeline.py (docs/testing.md).")
    for _, start, end, nodeid in rows:
        if end - start >= _LONG_S:
            print(f"{end - start:.1f} {plain_id(nodeid)}")


if __name__ == "__main__":
    commands = {"report": report, "long": long}
    if len(sys.argv) != 3 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](sys.argv[2])
