"""A venue NATS cluster on this machine: N ``nats-server`` nodes on free loopback ports, each its config rendered by
``scoreboard/venue/nats.py`` (the text ``deploy/install.sh --venue-server --engine nats`` installs), each its own
JetStream store in a temporary folder. For the tests, the benchmarks and ``devetka venue-demo``.

``start`` returns once every node takes MQTT connections and grants a QoS 1 subscription: on a fresh cluster the
first MQTT clients wait for JetStream to elect its leaders and make the MQTT streams (a few seconds).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from scoreboard.sim.children import die_with_parent
from scoreboard.sim.ports import free_port
from scoreboard.venue import nats

_PLACES = ("/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server")
START_TIMEOUT = 60.0  # generous: a loaded two-core machine, and JetStream's first elections
HOST = "127.0.0.1"


class ClusterError(RuntimeError):
    """nats-server is missing, or a node did not start or get ready; the message says which, with its log."""


def nats_server_binary() -> str | None:
    """Debian's ``nats-server``, or None when it is not installed."""
    return shutil.which("nats-server") or next((p for p in _PLACES if os.access(p, os.X_OK)), None)


@dataclass
class Node:
    """One node: its number, its ports (kept across a restart), its folder, and its process while it runs."""

    number: int
    folder: Path
    mqtt_port: int = field(default_factory=free_port)
    websocket_port: int = field(default_factory=free_port)
    cluster_port: int = field(default_factory=free_port)
    client_port: int = field(default_factory=free_port)
    monitor_port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def mqtt(self) -> tuple[str, int]:
        return HOST, self.mqtt_port

    @property
    def ws_url(self) -> str:
        return f"ws://{HOST}:{self.websocket_port}/mqtt"

    @property
    def log(self) -> str:
        path = self.folder / "nats.log"
        return path.read_text(errors="replace") if path.exists() else ""


class NatsCluster:
    """``NatsCluster(tables={"t1": "pw"})``: three nodes (``size``), started by ``with`` or ``start``."""

    def __init__(self, tables: dict[str, str], size: int = 3, route_secret: str = "devetka-test-route",
                 director_password: str | None = None) -> None:
        self.binary = nats_server_binary()
        if self.binary is None:
            raise ClusterError("nats-server is not installed (Debian: apt-get install nats-server)")
        self.tables = dict(tables)
        self.director_password = director_password
        self.route_secret = route_secret
        self._folder = tempfile.TemporaryDirectory(prefix="devetka-nats-")
        self.folder = Path(self._folder.name)
        self.nodes = []
        for number in range(1, size + 1):
            folder = self.folder / f"node{number}"
            folder.mkdir()
            self.nodes.append(Node(number, folder))

    def __enter__(self) -> NatsCluster:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def mqtt_addresses(self) -> list[tuple[str, int]]:
        return [node.mqtt for node in self.nodes]

    @property
    def ws_urls(self) -> list[str]:
        return [node.ws_url for node in self.nodes]

    def config(self, node: Node) -> str:
        """The node's config: the installed text with this machine's loopback address, ports and folders."""
        return nats.render_node(node.number, [(HOST, other.cluster_port) for other in self.nodes], self.tables,
                                self.route_secret, bind=HOST, mqtt_port=node.mqtt_port,
                                websocket_port=node.websocket_port, cluster_port=node.cluster_port,
                                client_port=node.client_port, monitor_port=node.monitor_port,
                                store_dir=str(node.folder / "jetstream"), director_password=self.director_password)

    def start(self) -> None:
        """Start every node that is not running and wait until each is ready."""
        for node in self.nodes:
            if node.process is None:
                self.start_node(node.number, wait=False)
        for node in self.nodes:
            self.wait_ready(node.number)

    def start_node(self, number: int, wait: bool = True) -> Node:
        """Start (or restart, on the same ports and store) node ``number``."""
        node = self.nodes[number - 1]
        path = node.folder / "nats.conf"
        path.write_text(self.config(node))
        with open(node.folder / "nats.log", "ab") as log:
            node.process = subprocess.Popen([self.binary, "-c", str(path)], stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=log, start_new_session=True, preexec_fn=die_with_parent)
        if wait:
            self.wait_ready(number)
        return node

    def kill(self, number: int) -> None:
        """SIGKILL node ``number``: a machine's power pulled (its peers see its routes close)."""
        node = self.nodes[number - 1]
        process, node.process = node.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=START_TIMEOUT)

    def stop(self, number: int) -> None:
        node = self.nodes[number - 1]
        process, node.process = node.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=START_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def wait_ready(self, number: int, timeout: float = START_TIMEOUT) -> None:
        """Return once node ``number`` lets an anonymous reader in and grants it a QoS 1 subscription."""
        node = self.nodes[number - 1]
        deadline = time.monotonic() + timeout
        why = "no answer"
        while time.monotonic() < deadline:
            if node.process is None or node.process.poll() is not None:
                raise ClusterError(f"nats-server node {number} exited:\n{node.log[-4000:]}")
            why = probe(node.mqtt, timeout=min(5.0, max(0.5, deadline - time.monotonic())))
            if why is None:
                return
            time.sleep(0.2)
        raise ClusterError(f"node {number} not ready within {timeout:g} s ({why}):\n{node.log[-4000:]}")

    def close(self) -> None:
        """Stop every node and remove the folder."""
        for node in self.nodes:
            self.stop(node.number)
        self._folder.cleanup()


def probe(address: tuple[str, int], timeout: float = 5.0) -> str | None:
    """None when an anonymous MQTT client connects to ``address`` and is granted a QoS 1 subscription, else why not."""
    done = threading.Event()
    result: list[str | None] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)

    def on_connect(client, userdata, flags, reason, properties) -> None:
        if reason.is_failure:
            result.append(f"connect: {reason}")
            done.set()
        else:
            client.subscribe("devetka/probe/none", qos=1)

    def on_subscribe(client, userdata, mid, reasons, properties) -> None:
        result.append(None if reasons and not reasons[0].is_failure else f"subscribe: {reasons}")
        done.set()

    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_disconnect = lambda *args: (result.append("disconnected"), done.set())
    try:
        client.connect(*address, keepalive=10)
    except OSError as error:
        return f"connect: {error}"
    client.loop_start()
    try:
        if not done.wait(timeout):
            return "timed out"
        return result[0]
    finally:
        client.disconnect()
        client.loop_stop()
