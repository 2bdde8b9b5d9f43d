"""tests/conftest.py under pytest-xdist's ``--dist loadgroup``, as scripts/test.sh runs the suite: the tests using a
module's fixture run on one worker, which makes the fixture once; the measured long tests are handed out first."""

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
