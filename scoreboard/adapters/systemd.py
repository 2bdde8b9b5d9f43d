"""systemd's notify protocol: ``READY=1`` once serving, ``WATCHDOG=1`` pings, ``STOPPING=1``; nothing without it."""

from __future__ import annotations

import asyncio
import os
import socket


def notify(message: bytes, environ: dict[str, str] | None = None) -> bool:
    """Tell systemd (``NOTIFY_SOCKET``, a datagram socket; ``@`` is the abstract namespace); False if unset."""
    address = (os.environ if environ is None else environ).get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        try:
            sock.sendto(message, address)
        except OSError:
            return False  # systemd gone or the socket wrong: refereeing goes on
    return True


def watchdog_interval(environ: dict[str, str] | None = None) -> float | None:
    """Seconds between ``WATCHDOG=1`` pings (half what systemd asks), or None when it asks for none.

    >>> watchdog_interval({"WATCHDOG_USEC": "4000000"}), watchdog_interval({})
    (2.0, None)
    >>> watchdog_interval({"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "0"}) is None  # for another process
    True
    """
    env = os.environ if environ is None else environ
    usec, pid = env.get("WATCHDOG_USEC"), env.get("WATCHDOG_PID")
    if not usec or not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid != str(os.getpid()):
        return None
    return int(usec) / 2e6


def under_journal(environ: dict[str, str] | None = None) -> bool:
    """Whether stderr goes to journald (``JOURNAL_STREAM`` set by systemd), which stamps each line itself."""
    return bool((os.environ if environ is None else environ).get("JOURNAL_STREAM"))


async def watchdog(interval: float) -> None:
    """Ping from the event loop itself: a loop stuck in a request stops the pings and systemd restarts us."""
    while True:
        notify(b"WATCHDOG=1")
        await asyncio.sleep(interval)
