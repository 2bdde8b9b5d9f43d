"""bench/event.py --quick plays a small double elimination through the event store and prints every figure (their
values are not asserted)."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "event.py"
NUMBER = r"[\d,.]+"


def test_the_quick_event_benchmark_prints_each_figure():
    out = subprocess.run([sys.executable, str(BENCH), "--quick", "--no-pin"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    for pattern in (r"^a true double elimination of 16 players: 3[01] results, winner P\d+$",
                    rf"^result taken: median {NUMBER} ms, p90 {NUMBER} ms, max {NUMBER} ms, the last {NUMBER} ms$",
                    rf"^the finished event folded with its state: {NUMBER} ms$"):
        assert re.search(pattern, out.stdout, re.MULTILINE), (pattern, out.stdout)
