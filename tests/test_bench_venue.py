"""bench/venue.py runs, short, on either engine, on a LAN's MTU or the machine's loopback, and prints every hop's
line (their values are not asserted)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "venue.py"
NUMBER = r"[\d,.-]+"
HOPS = ("input to tile", "table broker -> readers' broker", "readers' broker -> page \\(WebSocket\\)",
        "page: arrival -> repaint")


@pytest.mark.parametrize(("engine", "network", "said"), [
    ("mosquitto", [], r"a network namespace of its own, loopback at a LAN's MTU \(1500\)"),
    ("nats", ["--loopback"], r"the machine's loopback \(MTU 65,536; --loopback\)")])
def test_the_venue_benchmark_prints_each_hop_with_the_load(engine, network, said):
    out = subprocess.run([sys.executable, str(BENCH), "--engine", engine, "--tables", "2", "--seconds", "10",
                          "--speed", "20", *network], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(rf"^network: {said}$", out.stdout, re.MULTILINE), out.stdout
    name = rf"\({engine}, 2 tables\)"
    expected = [rf"^{name} load average before {NUMBER} {NUMBER} {NUMBER}, after {NUMBER} {NUMBER} {NUMBER}$",
                *(rf"^{name} {hop}: \d+ states of \d+ over \d+ s at 20x: p50 {NUMBER} ms, p99 {NUMBER} ms, "
                  rf"max {NUMBER} ms$" for hop in HOPS),
                rf"^{name} venue's brokers \(\d processes\): {NUMBER}% of a core, {NUMBER} MB resident$"]
    for pattern in expected:
        assert re.search(pattern, out.stdout, re.MULTILINE), (pattern, out.stdout)
