"""The event's cost on the venue box: each result taken (fold, check, commit) as a double elimination grows.

    python bench/event.py [--players 256] [--quick] [--no-pin]

Plays a true double elimination of ``--players`` to its end through ``EventStore.take`` on a temporary store
(SQLite, WAL, synchronous=FULL, as the director runs it): every result folds the whole stored event, checks the
record and commits it, so the last results of a big night are the dearest. Prints the take's median, p90 and
max over the night, the last one's, and one fold of the finished event with its state (what the director
publishes). Timings are never asserted in the tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import pin_to_one_core, print_header  # noqa: E402

from scoreboard.event.core.records import Draw, Result  # noqa: E402
from scoreboard.event.store import EventStore  # noqa: E402


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--players", type=int, default=256)
    options.add_argument("--quick", action="store_true", help="16 players: a check that it runs")
    options.add_argument("--no-pin", action="store_true", help="do not pin to CPU 0")
    args = options.parse_args()
    players = [f"P{i}" for i in range(16 if args.quick else args.players)]
    print_header("not pinned (--no-pin)" if args.no_pin else pin_to_one_core())
    with tempfile.TemporaryDirectory() as folder:
        store = EventStore.open(Path(folder) / "director.sqlite3", now=lambda: "2026-12-01T20:00:00+00:00")
        event_id = store.create({"name": "bench", "format": "double", "players": players, "race": 2,
                                 "final": "true_double"})
        store.take(event_id, Draw(tuple(players)))
        takes = []
        n = 0
        while True:
            ready = [m for m in store.event(event_id).matches() if m.status == "ready"]
            if not ready:
                break
            started = time.perf_counter()
            store.take(event_id, Result(ready[0].id, (2, n % 2) if n % 3 else (1, 2)))
            takes.append((time.perf_counter() - started) * 1000)
            n += 1
        started = time.perf_counter()
        event = store.event(event_id)
        event.to_json()
        folded = (time.perf_counter() - started) * 1000
        store.close()
    ordered = sorted(takes)
    print(f"a true double elimination of {len(players)} players: {len(takes)} results, winner {event.champion()}")
    print(f"result taken: median {statistics.median(ordered):.1f} ms, p90 {ordered[int(0.9 * len(ordered))]:.1f} ms, "
          f"max {ordered[-1]:.1f} ms, the last {takes[-1]:.1f} ms")
    print(f"the finished event folded with its state: {folded:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
