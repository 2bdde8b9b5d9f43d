"""Hypothesis profile for the suite: deterministic, so CI runs the same examples every time.

Choose another profile for a run with ``--hypothesis-profile NAME``.
"""

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=100)
settings.load_profile("ci")


@pytest.fixture
def broker():
    """A Mosquitto of the test's own on a free port, anyone may connect (scoreboard/broker.py)."""
    from scoreboard.broker import PrivateBroker

    with PrivateBroker() as running:
        yield running
