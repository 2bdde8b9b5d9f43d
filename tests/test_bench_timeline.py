"""bench/timeline.py stamps each test of a run on its worker, and reads the stamps back: the report and the table of
long tests tests/conftest.py orders the suite by."""

import subprocess
import sys

from tests.paths import REPO

BENCH = REPO / "bench" / "timeline.py"


def test_a_run_on_two_workers_is_stamped_reported_and_its_long_test_listed(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_some.py").write_text(
        "import time\n\n"
        "def test_long():\n    time.sleep(2.1)\n\n"
        "def test_short():\n    pass\n\n"
        "def test_also_short():\n    pass\n")
    stamps = tmp_path / "stamps"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "timeline", "-p", "no:cacheprovider",
         "--rootdir", str(suite), str(suite)],
        cwd=suite, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO / "bench"), "SUITE_TIMELINE": str(stamps)})
    assert run.returncode == 0, run.stdout + run.stderr
    lines = [line.split(" ", 2) for path in stamps.glob("gw*.txt") for line in path.read_text().splitlines()]
    assert sorted(nodeid for _, _, nodeid in lines) == [
        "test_some.py::test_also_short", "test_some.py::test_long", "test_some.py::test_short"]
    assert all(float(start) <= float(end) for start, end, _ in lines)

    report = subprocess.run([sys.executable, str(BENCH), "report", str(stamps)], capture_output=True, text=True,
                            check=True).stdout
    assert report.startswith("span ") and ", 3 tests\n" in report.splitlines(keepends=True)[0]
    assert "test_some.py::test_long" in report.split("the longest:")[1].splitlines()[1]

    long = subprocess.run([sys.executable, str(BENCH), "long", str(stamps)], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    assert long[0].startswith("# The tests of 2 s or more in a whole run on ")
    (seconds, nodeid), = [line.split(" ", 1) for line in long[1:]]
    assert nodeid == "test_some.py::test_long" and float(seconds) >= 2.1
