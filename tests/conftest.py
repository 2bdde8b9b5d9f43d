"""Hypothesis profile for the suite: deterministic, so CI runs the same examples every time.

Choose another profile for a run with ``--hypothesis-profile NAME``. The suite runs in the source language,
English: ``devetka replay --explain`` follows the environment's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), and
a machine set up in Croatian must not change what a test that names no language reads; tests of Croatian say so.
"""

import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import settings

for _variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"
# Each pytest-xdist worker, and every broker, daemon and demo it starts, draws ports from a slice of its own
# (scoreboard/sim/ports.py): two workers never draw the same port.
if os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw") and "PYTEST_XDIST_WORKER_COUNT" in os.environ:
    os.environ["DEVETKA_PORT_SLICE"] = (f"{int(os.environ['PYTEST_XDIST_WORKER'][2:])}/"
                                        f"{os.environ['PYTEST_XDIST_WORKER_COUNT']}")

settings.register_profile("ci", derandomize=True, max_examples=100)
settings.load_profile("ci")


@pytest.fixture
def broker():
    """A Mosquitto of the test's own on a free port, anyone may connect (scoreboard/sim/broker.py)."""
    from scoreboard.sim.broker import PrivateBroker

    with PrivateBroker() as running:
        yield running


@pytest.fixture
def referee(tmp_path):
    """The daemon's referee in process, on a store of the test's own."""
    from scoreboard.referee.referee import Referee

    ref = Referee.open(tmp_path / "devetka.db")
    yield ref
    ref.close()


@pytest.fixture
def daemon_config():
    """The config ``daemon`` starts with: a test module may add to it (a table's language)."""
    return '[ui]\npin = "0000"\n'


@pytest.fixture
def daemon(tmp_path, daemon_config):
    """``devetka run`` as a child process on a store and socket of the test's own (tests/live.py), PIN 0000."""
    from tests.live import Daemon

    d = Daemon(tmp_path, config=daemon_config)
    d.start()
    yield d
    d.kill()


_WIDER = ("package", "module", "class")
#: Where the long tests are (real daemons, Kivy, brokers, Chromium): after the measured ones (below), these folders'
#: tests are handed out before the rest, so that the short in-process ones fill the workers' last minutes.
_LONG_FIRST = ("tests/ui/", "tests/sim/", "tests/venue/", "tests/deploy/", "tests/adapters/")
#: The tests of 2 s or more in a measured whole run, with their seconds (``bench/timeline.py long`` writes it).
_LONG_TESTS = Path(__file__).with_name("long_tests.txt")


def _measured() -> dict[str, float]:
    lines = [line for line in _LONG_TESTS.read_text().splitlines() if line and not line.startswith("#")]
    return {nodeid: float(seconds) for seconds, nodeid in (line.split(" ", 1) for line in lines)}


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``scripts/test.sh`` runs the suite on several workers, ``--dist loadgroup``), a test
    using a fixture made once per module or package (a staged venue, a NATS cluster, an installed table) runs on
    the worker that runs the rest of that module or package, so the fixture is still made once; every other test
    goes to whichever worker is free. The workers take the work in the order of the items (``--no-loadscope-reorder``
    in scripts/test.sh): the longest first, a group by the sum of its tests, by the seconds tests/long_tests.txt
    measured, so that no long test starts in the run's last minute while the other workers run out of work; then
    the long tests' folders, then the rest, each in collection order."""
    # A worker's own options say ``dist = "no"``: pytest-xdist tells it of ``--dist loadgroup`` by ``loadgroup``.
    if config.getoption("dist", "no") != "loadgroup" and not config.getoption("loadgroup", False):
        return (yield)
    items.sort(key=lambda item: not item.nodeid.startswith(_LONG_FIRST))  # stable: each folder keeps its order
    groups = {}
    for item in items:
        defs = [chain[-1] for chain in item._fixtureinfo.name2fixturedefs.values() if chain]
        wide = [d for d in defs if d.scope in _WIDER]
        if not wide:
            continue
        widest = min(wide, key=lambda d: _WIDER.index(d.scope))
        groups[item] = widest.baseid if widest.scope == "package" else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(groups[item] or "root"))
    measured, seconds, first = _measured(), Counter(), {}
    for place, item in enumerate(items):
        unit = groups.get(item, item.nodeid)
        seconds[unit] += measured.get(item.nodeid, 0.0)
        first.setdefault(unit, place)
    items.sort(key=lambda item: (-seconds[groups.get(item, item.nodeid)], first[groups.get(item, item.nodeid)]))
    result = yield  # pytest-xdist's own hook names each grouped test "<node id>@<group>" for the scheduler
    for item, group in groups.items():
        _name_group(item, group or "root")
    return result


def _name_group(item, group):
    """Name a grouped test ``<node id>@<group>``, as pytest-xdist does where it can: pytest 9.2 keeps a test's id in
    ``_id``, and xdist 3.8's renaming of ``_nodeid`` no longer reaches the scheduler, which then spread a module's
    tests over the workers, each making the module's fixture again (pytest-dev/pytest-xdist#1386, fix not released)."""
    suffix = f"@{group}"
    if item.nodeid.endswith(suffix) or not hasattr(item, "_id"):
        return
    item._id = type(item._id).parse(item.nodeid + suffix)
