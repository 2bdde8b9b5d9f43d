"""A venue on one machine, as the tests run it: the venue's broker and several tables, each its own Mosquitto and
its own ``devetka run``, every file staged by the real ``install.sh --root`` (``--venue-server``, ``--venue``) and
run with only its ports and paths moved (tests/deploy/broker.py) and the bridge's keepalive shortened."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from scoreboard.sim.nats_cluster import nats_server_binary, probe
from scoreboard.venue import bridge, nats
from tests.deploy.broker import ShippedBroker, free_port
from tests.deploy.staging import credentials, install
from tests.live import TIMEOUT, Daemon
from tests.served import valid
from tests.watcher import Watcher, served_kind

#: The bridge's keepalive in the tests: Mosquitto's least (5 s), so the power-pull test waits 1.5 of it, not 1.5 x
#: KEEPALIVE_S; DEVETKA_VENUE_KEEPALIVE_S=10 runs it on the shipped figure.
TEST_KEEPALIVE_S = int(os.environ.get("DEVETKA_VENUE_KEEPALIVE_S", "5"))
BRIDGE_FILE = "devetka-venue-bridge.conf"
# What Debian's /etc/mosquitto/mosquitto.conf says before it includes conf.d, the folder moved (its pid file left out:
# /run/mosquitto is root's): the venue's own file must win over its ``persistence true``.
DEBIAN_HEAD = "persistence true\npersistence_location {folder}/\n"


def venue_logins(root: Path) -> dict[str, str]:
    """The staged venue's table logins: id -> password (/etc/devetka/venue-tables)."""
    lines = (root / "etc/devetka/venue-tables").read_text().splitlines()
    return dict(line.split(" ", 1) for line in lines if line and not line.startswith("#"))


class VenueBroker(ShippedBroker):
    """The staged venue's box: its Mosquitto behind Debian's head (the tables' listener, the page's, the TLS one if
    staged) and its readers' nats-server (/etc/nats-server.conf), every port moved to a free loopback one.
    ``host``/``port`` are the readers' WebSocket, where the board (a ``Watcher``) reads; ``readers_port`` their
    MQTT. ``kill``, ``stop`` and ``start`` are the Mosquitto's (the venue's tables' broker); ``close`` ends both."""

    host = "127.0.0.1"

    def __init__(self, root: Path, folder: Path) -> None:
        self.folder = folder
        self.tables_port, self.page_port = free_port(), free_port()
        self.readers = StagedReaders(root, folder / "readers")
        self.readers_port, self.port = self.readers.mqtt_port, self.readers.websocket_port
        text = (root / bridge.VENUE_BROKER_FILE.lstrip("/")).read_text()
        moved = {f"listener {bridge.VENUE_TABLES_PORT}\n": f"listener {self.tables_port} 127.0.0.1\n",
                 f"listener {bridge.VENUE_PAGE_PORT}\n": f"listener {self.page_port} 127.0.0.1\n",
                 f"address 127.0.0.1:{bridge.VENUE_READERS_PORT}\n": f"address 127.0.0.1:{self.readers_port}\n"}
        self.tls_port = None
        if f"listener {bridge.VENUE_TLS_PORT}\n" in text:  # the tables over TLS (install.sh --venue-tls-cert)
            self.tls_port = free_port()
            moved[f"listener {bridge.VENUE_TLS_PORT}\n"] = f"listener {self.tls_port} 127.0.0.1\n"
        for shipped, here in moved.items():
            assert shipped in text, f"the venue broker's config no longer has {shipped!r}"
            text = text.replace(shipped, here)
        text = DEBIAN_HEAD.format(folder=folder) + text.replace("/etc/mosquitto/", f"{root}/etc/mosquitto/").replace(
            bridge.VENUE_BOARD_DIR, f"{root}{bridge.VENUE_BOARD_DIR}")
        text += "log_dest stderr\n" + ("user root\n" if os.geteuid() == 0 else "")
        self.config = folder / "mosquitto.conf"
        self.config.write_text(text)
        self.log = folder / "mosquitto.log"
        self.ports = [port for port in (self.tables_port, self.page_port, self.tls_port) if port]
        self.start()

    def board_url(self, query: str = "") -> str:
        """The page as the venue's Mosquitto serves it, pointed at the readers' WebSocket (not on 9002 here)."""
        return f"http://127.0.0.1:{self.page_port}/?broker=ws://127.0.0.1:{self.port}/mqtt{query}"

    def close(self) -> None:
        try:
            self.stop()
        finally:
            self.readers.close()


class StagedReaders:
    """The staged readers' nats-server, on its staged text with its ports and store moved; started at once."""

    def __init__(self, root: Path, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.mqtt_port, self.websocket_port = free_port(), free_port()
        text = (root / "etc/nats-server.conf").read_text()
        moved = {f'"0.0.0.0:{nats.READERS_MQTT_PORT}"': f'"127.0.0.1:{self.mqtt_port}"',
                 f'"0.0.0.0:{nats.READERS_WEBSOCKET_PORT}"': f'"127.0.0.1:{self.websocket_port}"',
                 f"127.0.0.1:{nats.CLIENT_PORT}\n": f"127.0.0.1:{free_port()}\n",
                 f"127.0.0.1:{nats.MONITOR_PORT}\n": f"127.0.0.1:{free_port()}\n",
                 f'"{nats.READERS_STORE_DIR}"': f'"{folder}/jetstream"'}
        for shipped, here in moved.items():
            assert shipped in text, f"the readers' config no longer has {shipped!r}"
            text = text.replace(shipped, here)
        self.config = folder / "nats.conf"
        self.config.write_text(text)
        self.log = folder / "nats.log"
        self.start()

    def start(self) -> None:
        binary = nats_server_binary()
        assert binary is not None, "nats-server is not installed"
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([binary, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + TIMEOUT
        while (why := probe(("127.0.0.1", self.mqtt_port), timeout=2.0)) is not None:
            assert self.process.poll() is None, f"nats-server exited: {self.log.read_text()}"
            assert time.monotonic() < deadline, f"the readers' broker is not ready ({why}): {self.log.read_text()}"
            time.sleep(0.1)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=TIMEOUT)


@dataclass
class Table:
    """One table: its staged root, its broker (bridged to the venue) and its daemon, logged in as install.sh made it."""

    id: str
    root: Path
    broker: ShippedBroker
    daemon: Daemon
    inputs: list[dict] = field(default_factory=list)  # every input the test sent, in order

    def request(self, message: dict) -> dict:
        """One request over the daemon's local API (tests/live.py), its answer asserted ``ok``."""
        client = self.daemon.client()
        try:
            answer = client.request(message)
        finally:
            client.close()
        assert answer["ok"], (self.id, message, answer)
        return answer

    def play(self, *inputs: dict) -> dict:
        """Send inputs and commands one by one, as the touchscreen and sensors would; the last state."""
        for step in inputs:
            state = self.request(step)["state"]
            self.inputs.append(step)
        return state

    def state(self) -> dict:
        return self.request({"cmd": "state"})["state"]

    def freeze(self) -> None:
        """The power pulled: daemon and broker stopped dead, their sockets left open, so only a keepalive tells."""
        for process in (self.daemon.process, self.broker.process):
            process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        for process in (self.daemon.process, self.broker.process):
            process.send_signal(signal.SIGCONT)

    def close(self) -> None:
        self.thaw()
        self.daemon.kill()
        self.broker.stop()


def stage_table(root: Path, table_id: str, venue_port: int, password: str, *more: str) -> Path:
    """A table's staged root: install.sh, the table id set in its config, install.sh --venue (and ``more``)."""
    assert install(root).returncode == 0
    config = root / "etc/devetka/table.toml"
    config.write_text(config.read_text().replace('id = "table1"', f'id = "{table_id}"', 1))
    secret = root.parent / f"{table_id}.venue-password"
    secret.write_text(password + "\n")
    run = install(root, "--venue", f"127.0.0.1:{venue_port}", "--venue-user", table_id,
                  "--venue-password-file", str(secret), *more)
    assert run.returncode == 0, run.stderr
    return root


def start_table(folder: Path, table_id: str, venue: VenueBroker, password: str, port: int | None = None,
                *more: str) -> Table:
    """A table staged, its broker and daemon started, bridged to ``venue`` (its tables' port, unless ``port``)."""
    root = stage_table(folder / "root", table_id, port or venue.tables_port, password, *more)
    broker = ShippedBroker(root, folder, replacements={BRIDGE_FILE: {
        f"keepalive_interval {bridge.KEEPALIVE_S}\n": f"keepalive_interval {TEST_KEEPALIVE_S}\n"}})
    secret = credentials(root)["devetka"]
    daemon = Daemon(folder, config=f'[table]\nid = "{table_id}"\n[mqtt]\nhost = "127.0.0.1"\n'
                                   f'port = {broker.table_port}\nusername = "devetka"\npassword = "{secret}"\n')
    try:
        daemon.start()
    except BaseException:
        broker.stop()
        raise
    return Table(table_id, root, broker, daemon)


class Board(Watcher):
    """What a venue board hears over the WebSockets listener, every message with the moment it arrived."""

    TOPICS = ("devetka/+/bridge", "devetka/+/state", "devetka/+/event", "devetka/+/availability")

    def __init__(self, venue: VenueBroker, topics: tuple[str, ...] = TOPICS) -> None:
        self.arrivals: list[tuple[float, str, bytes, bool]] = []
        super().__init__(venue, topics, transport="websockets")

    def _on_message(self, client, userdata, message) -> None:
        self.arrivals.append((time.monotonic(), message.topic, bytes(message.payload), bool(message.retain)))
        super()._on_message(client, userdata, message)

    def wait_for(self, topic: str, predicate, timeout: float = TIMEOUT, since: float = 0.0,
                 live: bool = False) -> tuple[float, bytes, bool]:
        """The first message on ``topic`` that arrived at or after ``since`` and satisfies ``predicate`` (on its
        JSON, or its text), a live one (not a retained copy) if ``live``: (arrival, payload, retained). An
        AssertionError after ``timeout``."""
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for arrived, name, payload, retained in self.arrivals[seen:]:
                seen += 1
                if (name == topic and arrived >= since and not (live and retained)
                        and predicate(_value(payload, name))):
                    return arrived, payload, retained
            assert time.monotonic() < deadline, f"nothing on {topic} satisfied the test within {timeout:g} s"
            time.sleep(0.005)

    def events(self, table_id: str) -> list[dict]:
        wanted = f"devetka/{table_id}/event"
        return [_value(payload, topic) for _, topic, payload, _ in self.arrivals if topic == wanted]


def _value(payload: bytes, topic: str):
    """A message's JSON (a table's state or event checked against the contract, tests/served.py), or its text."""
    try:
        value = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return payload.decode()
    kind = served_kind(topic)
    return value if kind is None or not isinstance(value, dict) else valid(kind, value)
