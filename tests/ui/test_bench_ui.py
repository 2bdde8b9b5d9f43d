"""bench/ui.py --quick runs the real UI under Xvfb against the real daemon and prints every figure (their values
are not asserted: speed is the benchmark's to tell, not the suite's)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "ui.py"


def test_the_quick_ui_benchmark_prints_each_figure():
    out = subprocess.run([sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    assert re.search(r"^\(a\) state change to the screen: p50 [\d.]+ ms \([\d.]+ frames\), p95 ", text, re.M), text
    assert re.search(r"^\(d\) tap to screen: p50 [\d.]+ ms \([\d.]+ frames\), p95 [\d.]+ ms .*5 taps", text, re.M), text
    assert re.search(r"^\(e\) a screen's first opening, tap to screen: more [\d.]+ ms, setup [\d.]+ ms, "
                     r"settings [\d.]+ ms$", text, re.M), text
    assert re.search(r"^\(f\) screens made ahead after the first state: the longest frame [\d.]+ ms \([\d.]+ frames "
                     r"of 60 Hz\), all made in \d+ ms over \d+ frames$", text, re.M), text
    assert re.search(r"^\(b\) cold start, spawn to the state drawn: min [\d.]+ s, median ", text, re.M), text
    assert re.search(r"^\(c\) devetka ui resident memory: [\d.]+ MiB once showing; [\d.]+ MiB after 10 ", text,
                     re.M), text
