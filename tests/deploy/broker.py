"""The shipped Mosquitto config, run for real: the staged ``/etc/mosquitto`` files of ``install.sh --root``, with
only the listener ports (free ones here) and the file paths (the staging root) rewritten, and MQTT clients that
log in as the installer's users."""

from __future__ import annotations

import ctypes
import os
import queue
import re
import shutil
import socket
import subprocess
import time
from itertools import count
from pathlib import Path

import paho.mqtt.client as mqtt

from scoreboard.sim.ports import free_port

TIMEOUT = 30.0  # generous: a loaded two-core machine
_ids = count()  # one client id per connection: a second client with the same id pushes the first off


def test_config(root: Path, table_port: int, venue_port: int, tls_port: int | None = None,
                replacements: dict[str, dict[str, str]] | None = None) -> str:
    """The staged conf.d files, in the order Debian's ``include_dir`` reads them, with ports and paths moved.

    devetka.conf is as shipped but for its two listeners' ports; a file named in ``replacements`` has those
    replaced (the venue bridge's keepalive, say); any other, a TLS file of the owner's (docs/deploy.md), has its
    ``listener 8883`` moved to ``tls_port``. Every ``/etc/mosquitto/`` path points into the staging root.
    """
    parts = []
    for path in sorted((root / "etc/mosquitto/conf.d").glob("*.conf")):
        text = path.read_text()
        if path.name == "devetka.conf":
            replaced = {"listener 1883 127.0.0.1": f"listener {table_port} 127.0.0.1",
                        "listener 1884\n": f"listener {venue_port}\n"}
        elif path.name in (replacements or {}):
            replaced = replacements[path.name]
        else:
            replaced = {"listener 8883\n": f"listener {tls_port}\n"}
        for shipped, here in replaced.items():
            assert shipped in text, f"{path.name} no longer has {shipped!r}"
            text = text.replace(shipped, here)
        parts.append(text.replace("/etc/mosquitto/", f"{root}/etc/mosquitto/"))
    # Test-only: log to stderr; as root, stay root (the pytest folder is root-only, and the files are staged
    # 0600 for mosquitto), which Mosquitto 2 drops to otherwise.
    text = "\n".join(parts) + "\nlog_dest stderr\n"
    if os.geteuid() == 0:
        text += "user root\n"
    return text


class ShippedBroker:
    """``mosquitto -c`` on the test config of the staged root; ``table_port`` is 127.0.0.1, ``venue_port`` the LAN's.

    ``start`` again after ``kill`` or ``stop`` runs it on the same ports, as a restarted broker would.
    """

    def __init__(self, root: Path, folder: Path, tls: bool = False,
                 replacements: dict[str, dict[str, str]] | None = None) -> None:
        self.table_port, self.venue_port = free_port(), free_port()
        self.tls_port = free_port() if tls else None
        self.config = folder / "mosquitto.conf"
        self.config.write_text(test_config(root, self.table_port, self.venue_port, self.tls_port, replacements))
        self.log = folder / "mosquitto.log"
        self.ports = [port for port in (self.table_port, self.venue_port, self.tls_port) if port is not None]
        self.start()

    def start(self) -> None:
        """Run it and return once every one of ``ports`` takes a connection (its log appended to)."""
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([binary, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + TIMEOUT
        for port in self.ports:
            while True:
                assert self.process.poll() is None, f"mosquitto exited: {self.log.read_text()}"
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, f"mosquitto did not listen on {port}: {self.log.read_text()}"
                    time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL, as a crash: no goodbye to its clients, nothing saved."""
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Peer:
    """One MQTT client (paho v2): ``connect`` returns the broker's answer; messages wait in ``received``."""

    def __init__(self, name: str, transport: str = "tcp", client_id: str | None = None) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or f"test-{name}-{next(_ids)}",
                                  protocol=mqtt.MQTTv311, transport=transport)
        self.connected: queue.Queue = queue.Queue()
        self.subscribed: queue.Queue = queue.Queue()
        self.received: queue.Queue = queue.Queue()
        self.client.on_connect = lambda client, userdata, flags, reason, properties: self.connected.put(reason)
        self.client.on_subscribe = lambda client, userdata, mid, reasons, properties: self.subscribed.put(reasons)
        self.client.on_message = lambda client, userdata, message: self.received.put(
            (message.topic, bytes(message.payload).decode(), message.retain))

    def connect(self, port: int, username: str | None = None, password: str | None = None,
                ca_file: str | None = None) -> mqtt.ReasonCode:
        """Log in (over TLS, checking the broker's certificate, when ``ca_file`` is given)."""
        if ca_file is not None:
            self.client.tls_set(ca_certs=ca_file)
        if username is not None:
            self.client.username_pw_set(username, password)
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()
        try:
            return self.connected.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"no answer from the broker on port {port}") from None

    def subscribe(self, topic: str) -> None:
        self.client.subscribe(topic, qos=1)
        reasons = self.subscribed.get(timeout=TIMEOUT)
        assert not reasons[0].is_failure, reasons

    def publish(self, topic: str, payload: str, retain: bool = False) -> None:
        """QoS 1, so it returns once the broker has taken it (and, if the ACL denies it, dropped it)."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(timeout=TIMEOUT)
        assert info.is_published(), f"the broker did not acknowledge {topic}"

    def next(self) -> tuple[str, str, bool]:
        try:
            return self.received.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError("no message arrived") from None

    def live(self) -> tuple[str, str]:
        """The next message published while subscribed (retained replays of what came before skipped)."""
        while True:
            topic, payload, retained = self.next()
            if not retained:
                return topic, payload

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def refused(reason: mqtt.ReasonCode) -> bool:
    """The broker's "no": not authorised, or a bad user name or password."""
    wording = re.compile(r"not authori[sz]ed|bad user name or password", re.I)
    return reason.is_failure and wording.search(str(reason)) is not None


_PIDFD_GETFD = 438  # the syscall's number on every Linux architecture (5.6 on)


def nagle_off(broker_pid: int, peer: Peer) -> bool:
    """Whether the broker's end of ``peer``'s connection has TCP_NODELAY: its own socket, found by the connection's
    two ports in /proc/net/tcp, duplicated into this process with pidfd_getfd and asked."""
    ends = (peer.client.socket().getpeername()[1], peer.client.socket().getsockname()[1])  # broker's, client's
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if (int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16)) == ends:
            inode = fields[9]
    assert inode is not None, f"no broker-side socket for the connection {ends}"
    fds = Path(f"/proc/{broker_pid}/fd")
    fd = next(int(entry.name) for entry in fds.iterdir() if os.readlink(entry) == f"socket:[{inode}]")
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(broker_pid)
    try:
        duplicate = libc.syscall(_PIDFD_GETFD, pidfd, fd, 0)
        assert duplicate >= 0, f"pidfd_getfd: {os.strerror(ctypes.get_errno())}"
    finally:
        os.close(pidfd)
    with socket.socket(fileno=duplicate) as sock:
        return bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
