import random
import socket

import pytest

from scoreboard.sim import ports


@pytest.fixture
def seeded(monkeypatch):
    """free_port drawing from a known sequence, with none of this process's earlier ports counted."""
    monkeypatch.setattr(ports, "_given", set())

    def reseed(seed):
        monkeypatch.setattr(ports, "_draw", random.Random(seed))
    return reseed


def test_ports_are_drawn_below_the_kernels_ephemeral_range_where_no_outgoing_connection_is_given_one():
    low, _high = ports.ephemeral_range()
    drawn = [ports.free_port() for _ in range(50)]
    assert all(ports.FLOOR <= port < max(low, ports.FLOOR + 1000) for port in drawn)
    assert len(set(drawn)) == 50


def test_a_port_something_listens_on_is_never_given(seeded):
    seeded(7)
    first = ports.free_port()
    with socket.socket() as listener:
        listener.bind((ports.HOST, first))
        listener.listen()
        seeded(7)
        ports._given.clear()
        again = ports.free_port()
    assert again != first
    with socket.socket() as probe:
        probe.bind((ports.HOST, again))


def test_the_same_port_is_never_given_twice_in_one_process(seeded):
    seeded(11)
    first = ports.free_port()
    seeded(11)
    assert ports.free_port() != first
