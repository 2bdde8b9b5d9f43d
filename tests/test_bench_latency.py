"""bench/latency.py --quick runs through the real simulator, daemon and broker and prints every figure (their values
are not asserted: speed is the benchmark's to tell, not the suite's)."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "latency.py"
NUMBER = r"[\d,.]+"


def test_the_quick_latency_benchmark_prints_each_figure():
    out = subprocess.run([sys.executable, str(BENCH), "--quick", "--without-mqtt"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    expected = [
        r"^code: \S+ .*\| cpus: \d+",
        rf"^\(a\) the same frames to the state on the local API .*: p50 {NUMBER} ms, p99 {NUMBER} ms, max {NUMBER} ms$",
        rf"^\(a\) sensor frame to MQTT event, 200 inputs 10 ms apart: p50 {NUMBER} ms, p99 {NUMBER} ms, "
        rf"max {NUMBER} ms; goal p99 at most 5 ms: (met|NOT met)$",
        rf"^\(b\) kill -9 to 'offline' \(the last will\), 2 kills: median {NUMBER} ms, max {NUMBER} ms$",
        rf"^\(c\) the same frames to the local API's state with MQTT off: p50 {NUMBER} ms, p99 {NUMBER} ms, ",
        r"^load average after \(a\): ",
    ]
    for pattern in expected:
        assert re.search(pattern, out.stdout, re.MULTILINE), (pattern, out.stdout)
