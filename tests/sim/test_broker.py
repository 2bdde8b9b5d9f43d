"""The private Mosquitto helper (scoreboard/sim/broker.py) that the tests, the benchmarks and the demo start."""

from __future__ import annotations

import socket

import pytest

from scoreboard.sim.broker import BrokerError, PrivateBroker
from scoreboard.sim.ports import free_port


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


def held_port() -> tuple[socket.socket, int]:
    """A port something else listens on, as another process of the run that drew the same port would."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", free_port()))
    holder.listen()
    return holder, holder.getsockname()[1]


def test_a_port_drawn_that_another_took_meanwhile_is_swapped_for_a_free_one():
    holder, taken = held_port()
    broker = PrivateBroker()
    broker.port = taken
    try:
        broker.start()
        assert broker.port != taken and broker.running()
    finally:
        broker.close()
        holder.close()


class WebSocketsBroker(PrivateBroker):
    """A broker with a WebSockets listener beside its MQTT one, as the venue's."""

    def __init__(self, ws_port: int) -> None:
        super().__init__()
        self.ws_port = ws_port

    def new_ports(self) -> None:
        super().new_ports()
        self.ws_port = free_port()

    def _write_config(self):
        config = super()._write_config()
        config.write_text(config.read_text() + f"listener {self.ws_port} 127.0.0.1\nprotocol websockets\n")
        return config


def test_a_websockets_port_another_took_meanwhile_is_swapped_too():
    """libwebsockets says it otherwise ("Unable to create websockets listener"): a whole run's venue broker failed
    on it once."""
    holder, taken = held_port()
    try:
        with WebSocketsBroker(taken) as broker:
            assert broker.ws_port != taken and broker.running()
            with socket.create_connection(("127.0.0.1", broker.ws_port), timeout=5):
                pass
    finally:
        holder.close()
