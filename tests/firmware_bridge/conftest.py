"""Real pseudo-terminals standing in for the microcontroller's serial port, and a clock the test moves."""

from __future__ import annotations

import os
import select
import time
import tty
from pathlib import Path

import pytest

from firmware_bridge.protocol import HOST_MESSAGES, Decoder, Frame

WAIT = 20.0  # seconds: generous, for a loaded two-core machine; a passing test never waits this long


class Clock:
    """The host's monotonic clock, moved by the test."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class FakeMcu:
    """The master side of a pseudo-terminal whose slave is reachable at ``path``: the test plays the MCU."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.decoder = Decoder(HOST_MESSAGES)
        self.received: list[Frame] = []
        temporary = path.with_name(path.name + ".new")
        os.symlink(os.ttyname(self.slave), temporary)
        os.replace(temporary, path)  # replugged: the same path, a new device

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def read_until(self, predicate, timeout: float = WAIT) -> list[Frame]:
        """Read the host's frames until ``predicate(all received so far)``; fail after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not predicate(self.received):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the host did not send that; received {self.received}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.2))
            if ready:
                self.received += self.decoder.feed(os.read(self.master, 4096))
        return self.received

    def unplug(self) -> None:
        """Close both sides: the host's next read fails, as when a USB device is pulled."""
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def plug(tmp_path):
    """``plug()`` connects a new fake MCU at the same path (first plug or replug); all are unplugged at the end."""
    made: list[FakeMcu] = []

    def plug_in() -> FakeMcu:
        mcu = FakeMcu(tmp_path / "ttyMCU")
        made.append(mcu)
        return mcu

    yield plug_in
    for mcu in made:
        mcu.unplug()
