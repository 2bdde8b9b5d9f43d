"""systemd's notify protocol (scoreboard/adapters/systemd.py), on real datagram sockets as systemd makes them."""

from __future__ import annotations

import asyncio
import os
import socket

import pytest

from scoreboard.adapters import systemd


@pytest.fixture
def listening(tmp_path):
    """A datagram socket bound where NOTIFY_SOCKET points, as systemd binds one for a Type=notify unit."""
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(5)
        yield sock, {"NOTIFY_SOCKET": str(path)}


def test_a_notice_reaches_the_socket_systemd_named(listening):
    sock, environ = listening
    assert systemd.notify(b"READY=1", environ) is True
    assert sock.recv(64) == b"READY=1"


def test_an_abstract_socket_name_starts_with_an_at_sign():
    name = f"devetka-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(5)
        assert systemd.notify(b"STOPPING=1", {"NOTIFY_SOCKET": "@" + name}) is True
        assert sock.recv(64) == b"STOPPING=1"


def test_without_systemd_nothing_is_sent_and_refereeing_goes_on(tmp_path):
    assert systemd.notify(b"READY=1", {}) is False
    assert systemd.notify(b"READY=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")}) is False  # systemd went away


def test_the_watchdog_pings_from_the_event_loop_until_it_is_stopped(listening, monkeypatch):
    sock, environ = listening
    monkeypatch.setenv("NOTIFY_SOCKET", environ["NOTIFY_SOCKET"])

    async def three_pings() -> None:
        pinging = asyncio.create_task(systemd.watchdog(0.01))
        loop = asyncio.get_running_loop()
        got = [await loop.run_in_executor(None, sock.recv, 64) for _ in range(3)]
        pinging.cancel()
        assert got == [b"WATCHDOG=1"] * 3

    asyncio.run(three_pings())


def test_the_watchdog_pings_at_half_what_systemd_asks_and_only_for_this_process():
    assert systemd.watchdog_interval({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}) == 5.0
    assert systemd.watchdog_interval({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"}) is None
    assert systemd.watchdog_interval({"WATCHDOG_USEC": "0"}) is None
    assert systemd.watchdog_interval({"WATCHDOG_USEC": "soon"}) is None


def test_under_journald_lines_go_unstamped():
    assert systemd.under_journal({"JOURNAL_STREAM": "8:12345"}) is True
    assert systemd.under_journal({}) is False
