"""Free loopback ports for the brokers and nodes this machine runs for the tests, the benches and the demos.

A port found by binding to port 0 comes from the kernel's ephemeral range, the range every outgoing connection
takes its own port from too: between the probe and the moment a broker binds it, any connection on the machine
(a test's MQTT client, Chromium) may take it, and the broker fails with "address already in use" (it did, once, to
a NATS node's monitor port during a whole-suite run). So the ports are drawn below that range, where no
connection is given one, at random so that two processes rarely draw alike, each checked free by binding it, and
never the same port twice in one process.

Rarely is not never: between one process's probe and its broker's bind, another process of a parallel test run may
draw the same port (a venue broker's WebSockets listener lost one so). ``DEVETKA_PORT_SLICE=N/W`` (the suite sets it
per pytest-xdist worker, and every process a worker starts inherits it) draws from the N-th of W equal slices of the
range only, so no two workers ever draw alike.

>>> first, second = free_port(), free_port()
>>> first != second and all(FLOOR <= port < ephemeral_range()[0] for port in (first, second))
True
"""

from __future__ import annotations

import os
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


def drawn_from(slice_text: str | None, low: int, high: int) -> tuple[int, int]:
    """The ports ``[low, high)`` a process draws from: all of them, or its slice (``"N/W"``, the N-th of W, from 0).

    >>> drawn_from(None, 20000, 32768), drawn_from("0/8", 20000, 32768), drawn_from("7/8", 20000, 32768)
    ((20000, 32768), (20000, 21596), (31172, 32768))
    >>> drawn_from("8/8", 20000, 32768)
    Traceback (most recent call last):
    ...
    ValueError: DEVETKA_PORT_SLICE must be N/W with 0 <= N < W, got '8/8'
    """
    if not slice_text:
        return low, high
    try:
        index, count = (int(part) for part in slice_text.split("/"))
    except ValueError:
        index, count = -1, 0
    if not 0 <= index < count:
        raise ValueError(f"DEVETKA_PORT_SLICE must be N/W with 0 <= N < W, got {slice_text!r}")
    width = (high - low) // count
    return low + index * width, (high if index == count - 1 else low + (index + 1) * width)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now and that no outgoing connection will be given."""
    floor, ceiling = drawn_from(os.environ.get("DEVETKA_PORT_SLICE"), FLOOR,
                                max(ephemeral_range()[0], FLOOR + 1000))
    with _lock:
        if len(_given) > (ceiling - floor) * 3 // 4:  # a long run's process: its oldest ports are long closed
            _given.clear()
        for _ in range(1000):
            port = _draw.randrange(floor, ceiling)
            if port in _given:
                continue
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                try:
                    probe.bind((HOST, port))
                except OSError:
                    continue
            _given.add(port)
            return port
    raise OSError(f"no free port on {HOST} between {floor} and {ceiling}")
