"""bench/state.py --quick builds the served state in both languages and prints every figure (their values are not
asserted)."""

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "state.py"
NUMBER = r"[\d,.]+"


def test_the_quick_state_benchmark_prints_each_figure():
    out = subprocess.run([sys.executable, str(BENCH), "--quick", "--no-pin"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    expected = [
        r"^a simulated match of 2 racks: \d+ inputs after its match_start; the state built once after each, 3 runs, "
        r"each input's best kept$",
        rf"^state built, \[table\] language 'en': median {NUMBER} us, p90 {NUMBER} us, max {NUMBER} us$",
        rf"^state built, \[table\] language 'hr': median {NUMBER} us, p90 {NUMBER} us, max {NUMBER} us$",
        rf"^input handled, its state not read, \[table\] language 'en': median {NUMBER} us, p90 {NUMBER} us, "
        rf"max {NUMBER} us$",
        rf"^input handled, its state not read, \[table\] language 'hr': median {NUMBER} us, p90 {NUMBER} us, "
        rf"max {NUMBER} us$",
        rf"^Croatian against English: [+-]{NUMBER} % at the median$",
    ]
    for pattern in expected:
        assert re.search(pattern, out.stdout, re.MULTILINE), (pattern, out.stdout)
