"""bench/board_socket.py runs, short, and prints each size's line with both hops (their values are not asserted)."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "board_socket.py"
NUMBER = r"-?[\d.]+"
FIGURES = rf"p50 {NUMBER}, p90 {NUMBER}, max {NUMBER}"


def test_the_socket_benchmark_prints_both_hops_for_each_size_and_the_load():
    out = subprocess.run([sys.executable, str(BENCH), "--sizes", "1,16", "--count", "5", "--rate", "10",
                          "--busy", "5"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    for size in (1, 16):
        pattern = (rf"^ *{size} KB at 10/s \(QoS 1, retained 1, page busy 5 ms a message\), 5 of 5, ms after the "
                   rf"paho WebSocket client: the page's WebSocket {FIGURES}; the page's MQTT.js {FIGURES}$")
        assert re.search(pattern, out.stdout, re.MULTILINE), (pattern, out.stdout)
    assert re.search(rf"^load average {NUMBER} {NUMBER} {NUMBER}$", out.stdout, re.MULTILINE), out.stdout
