"""bench/sound.py runs the real Speaker through SDL's drivers and prints each figure (their values are not asserted:
speed is the benchmark's to tell, not the suite's); the disk driver's device opens, a driver SDL has not does not."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "sound.py"
NUMBER = r"[\d.]+"


def test_the_sound_benchmark_prints_each_driver_with_whether_its_device_opened():
    out = subprocess.run([sys.executable, str(BENCH), "--runs", "1"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3, out.stdout
    for line, driver, ready in zip(lines, ("disk", "none", "default"), ("True", "False", "(True|False)"), strict=True):
        assert re.fullmatch(rf"{driver}: ready \[{ready}\], p50 {NUMBER} ms, max {NUMBER} ms \(1 runs\)", line), line
