"""bench/starved.py --quick stops a real daemon in mid-shot and prints each figure (their values are not asserted)."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "starved.py"


def test_the_quick_starved_daemon_benchmark_prints_each_figure():
    out = subprocess.run([sys.executable, str(BENCH), "--quick", "--no-pin"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    for table in ("strike sensor", "no strike sensor"):
        for stall in (1, 4):
            pattern = (rf"^{table}, stopped {stall} s: pocket (in the shot|amended as a slow ball|began a new shot) "
                       rf"1/1; shot ended [\d.]+-[\d.]+ s \(median [\d.]+\) after the cushion$")
            assert re.search(pattern, out.stdout, re.MULTILINE), (pattern, out.stdout)
