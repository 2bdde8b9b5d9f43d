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


def test_a_worker_s_slice_is_the_only_place_its_ports_are_drawn(monkeypatch):
    """Under pytest-xdist each worker draws from its own slice (tests/conftest.py sets DEVETKA_PORT_SLICE), so two
    workers never draw the same port; every process a worker starts inherits it."""
    low, high = ports.drawn_from(None, ports.FLOOR, max(ports.ephemeral_range()[0], ports.FLOOR + 1000))
    monkeypatch.setenv("DEVETKA_PORT_SLICE", "2/4")
    floor, ceiling = ports.drawn_from("2/4", low, high)
    drawn = [ports.free_port() for _ in range(50)]
    assert all(floor <= port < ceiling for port in drawn)
    assert [ports.drawn_from(f"{n}/4", low, high) for n in range(4)] == [
        (low + n * ((high - low) // 4), high if n == 3 else low + (n + 1) * ((high - low) // 4)) for n in range(4)]



def test_a_process_that_drew_most_of_its_slice_draws_again_among_the_ports_now_free(monkeypatch, seeded):
    """Never twice in a process, until three quarters of its slice are drawn: then the ports drawn long ago (their
    brokers long gone) may be drawn again, each still checked free by binding it."""
    monkeypatch.setenv("DEVETKA_PORT_SLICE", "0/1000")
    floor, ceiling = ports.drawn_from("0/1000", ports.FLOOR, max(ports.ephemeral_range()[0], ports.FLOOR + 1000))
    seeded(3)
    drawn = [ports.free_port() for _ in range(3 * (ceiling - floor))]
    assert all(floor <= port < ceiling for port in drawn)
