"""The private Mosquitto helper (scoreboard/sim/broker.py) that the tests, the benchmarks and the demo start."""

from __future__ import annotations

import socket

import pytest

from scoreboard.sim.broker import BrokerError, PrivateBroker


def test_it_listens_on_loopback_and_a_restart_keeps_the_port(broker):
    port = broker.port
    assert broker.host == "127.0.0.1" and broker.running()
    assert "allow_anonymous true" in (broker.folder / "mosquitto.conf").read_text()
    broker.stop()
    assert not broker.running()
    with pytest.raises(OSError):
        socket.create_connection((broker.host, port), timeout=5).close()
    broker.start()
    assert broker.port == port and broker.running()


def test_a_port_in_use_is_an_error_that_carries_the_brokers_words(broker):
    second = PrivateBroker(port=broker.port)
    try:
        with pytest.raises(BrokerError, match="mosquitto exited with status") as caught:
            second.start()
        assert "Address already in use" in str(caught.value)
    finally:
        second.close()
    assert broker.running()


def test_users_get_a_password_file_and_no_one_else_gets_in():
    with PrivateBroker(users={"ana": "pw"}, acl="user ana\ntopic read #\n") as broker:
        config = (broker.folder / "mosquitto.conf").read_text()
        assert "allow_anonymous false" in config and "password_file" in config and "acl_file" in config
        assert (broker.folder / "passwords").read_text().startswith("ana:$")  # hashed, never the password itself
    assert not broker.folder.exists()  # closing removes its folder
