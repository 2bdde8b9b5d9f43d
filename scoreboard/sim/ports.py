"""Free loopback ports for the brokers and nodes this machine runs for the tests, the benches and the demos.

A port found by binding to port 0 comes from the kernel's ephemeral range, the range every outgoing connection
takes its own port from too: between the probe and the moment a broker binds it, any connection on the machine
(a test's MQTT client, Chromium) may take it, and the broker fails with "address already in use" (it did, once, to
a NATS node's monitor port during a whole-suite run). So the ports are drawn below that range, where no
connection is given one, at random so that two processes rarely draw alike, each checked free by binding it, and
never the same port twice in one process.

>>> first, second = free_port(), free_port()
>>> first != second and all(FLOOR <= port < ephemeral_range()[0] for port in (first, second))
True
"""

from __future__ import annotations

import random
import socket
import threading
from pathlib import Path

HOST = "127.0.0.1"
#: The lowest port drawn: above the well-known and most registered services' ports.
FLOOR = 20000
_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_DEFAULT_EPHEMERAL = (32768, 60999)  # Linux's default, where the file cannot be read
_given: set[int] = set()
_lock = threading.Lock()
_draw = random.Random()


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range of ports for outgoing connections (``ip_local_port_range``)."""
    try:
        low, high = (int(part) for part in _RANGE_FILE.read_text().split())
    except (OSError, ValueError):
        return _DEFAULT_EPHEMERAL
    return low, high


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now and that no outgoing connection will be given."""
    ceiling = max(ephemeral_range()[0], FLOOR + 1000)
    with _lock:
        for _ in range(1000):
            port = _draw.randrange(FLOOR, ceiling)
            if port in _given:
                continue
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                try:
                    probe.bind((HOST, port))
                except OSError:
                    continue
            _given.add(port)
            return port
    raise OSError(f"no free port on {HOST} between {FLOOR} and {ceiling}")
