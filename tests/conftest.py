"""Hypothesis profile for the suite: deterministic, so CI runs the same examples every time.

Choose another profile for a run with ``--hypothesis-profile NAME``. The suite runs in the source language,
English: ``devetka replay --explain`` follows the environment's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), and
a machine set up in Croatian must not change what a test that names no language reads; tests of Croatian say so.
"""

import os

import pytest
from hypothesis import settings

for _variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"

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
