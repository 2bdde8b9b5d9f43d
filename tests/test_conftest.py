"""tests/conftest.py under pytest-xdist's ``--dist loadgroup``, as scripts/test.sh runs the suite: the tests using a
module's fixture run on one worker, which makes the fixture once; the measured long tests are handed out first; each
worker draws its ports from a slice of its own."""

import subprocess
import sys

from tests.paths import REPO

MODULE = """\
import os
import pytest

@pytest.fixture(scope="module")
def made(tmp_path_factory):
    with open(os.environ["MADE"], "a") as log:
        log.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")

@pytest.mark.parametrize("n", range(6))
def test_with_the_module_fixture(made, n):
    with open(os.environ["RAN"], "a") as log:
        log.write(f"{n} {os.environ['PYTEST_XDIST_WORKER']}\\n")

@pytest.mark.parametrize("n", range(6))
def test_without(n):
    pass
"""


def test_a_modules_fixture_is_made_once_on_the_worker_running_every_test_using_it(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text("from tests.conftest import pytest_collection_modifyitems  # noqa: F401\n")
    (suite / "test_grouped.py").write_text(MODULE)
    made, ran = tmp_path / "made", tmp_path / "ran"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "3", "--dist", "loadgroup", "--no-loadscope-reorder",
         "-p", "no:cacheprovider", "--rootdir", str(suite), str(suite)],
        cwd=suite, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "MADE": str(made), "RAN": str(ran)})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "12 passed" in run.stdout, run.stdout
    (maker,) = made.read_text().split()
    assert sorted(ran.read_text().splitlines()) == [f"{n} {maker}" for n in range(6)]


SLICED = """\
import os
import pytest

@pytest.mark.parametrize("n", range(9))
def test_the_workers_slice(n):
    with open(os.environ["SEEN"], "a") as log:
        log.write(os.environ["PYTEST_XDIST_WORKER"] + " " + os.environ.get("DEVETKA_PORT_SLICE", "none") + "\\n")
"""


def test_each_worker_draws_its_ports_from_a_slice_of_its_own(tmp_path):
    """scoreboard/sim/ports.py's DEVETKA_PORT_SLICE, set for every worker (and so every process it starts)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text("import tests.conftest  # noqa: F401\n")
    (suite / "test_sliced.py").write_text(SLICED)
    seen = tmp_path / "seen"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "3", "-p", "no:cacheprovider", "--rootdir", str(suite),
         str(suite)],
        cwd=suite, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "SEEN": str(seen)})
    assert run.returncode == 0, run.stdout + run.stderr
    lines = seen.read_text().split("\n")[:-1]
    assert len(lines) == 9 and all(line == f"{line[:3]} {line[2]}/3" for line in lines), lines
