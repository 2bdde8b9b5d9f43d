"""bench/daemon.py --quick runs against the real daemon and prints every figure (their values are not asserted)."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "daemon.py"
NUMBER = r"[\d,.]+"


def test_the_quick_daemon_benchmark_prints_each_figure():
    out = subprocess.run([sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    expected = [
        rf"^\(a\) one request at a time: {NUMBER} committed inputs/s \({NUMBER} inputs of 3 racks",
        rf"^\(a\) pipelined, up to 64 in flight: {NUMBER} committed inputs/s",
        rf"^\(b\) sensor frame to state on the local API, {NUMBER} frames: p50 {NUMBER} ms, p99 {NUMBER} ms, "
        rf"max {NUMBER} ms",
        rf"^\(c\) memory at start: VmRSS {NUMBER} MB \(VmHWM {NUMBER} MB",
        rf"^\(c\) memory after a whole match \({NUMBER} inputs\): VmRSS {NUMBER} MB",
        rf"^\(c\) memory after a long match \({NUMBER} more inputs\): VmRSS {NUMBER} MB",
        rf"^\(c\) goal at most 40.0 MB resident: (met|NOT met) \(the highest VmHWM measured: {NUMBER} MB\)$",
        rf"^\(c\) start-up memory by import, MB: the interpreter {NUMBER}, orjson \+{NUMBER}, ",
        rf"^\(c\) memory with deploy/table.example.toml \(\d+ GPIO lines on mock pins, the serial bridge, "
        rf"MQTT [^)]*\): "
        rf"at start VmRSS {NUMBER} MB",
        r"^\(d\) kill -9: 3 kills in \d+ match(es)?, \d+ acknowledged inputs, 0 lost; the state was the fold",
        rf"^\(d\) restart after kill -9 to serving: p50 {NUMBER} ms",
        r"^load average after \(d\): ",
    ]
    for pattern in expected:
        assert re.search(pattern, out.stdout, re.MULTILINE), (pattern, out.stdout)
