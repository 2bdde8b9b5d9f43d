"""The serial port to the microcontroller, kept open by path through unplugs, restarts and silence.

pyserial does not notice an unplug by itself: an empty read after the port
said it was readable, or a ``SerialException``, means the device is gone.
``SerialLink`` then closes the port, says ``offline``, and opens the path
again as soon as it is back (a USB device comes back under the same
``/dev/serial/by-id/...`` name). A port that stays open but goes quiet (the
microcontroller sends a heartbeat at least every 250 ms) is ``offline`` after
``silence`` seconds. Each ``step`` does one bounded piece of work, so a thread
runs it in a loop (``firmware_bridge.source.SerialSource``) and a test calls
it directly, with its own clock.

>>> link = SerialLink("/nonexistent/devetka-mcu", retry=0.0)
>>> [report.detail for report in link.step()]
['waiting for /nonexistent/devetka-mcu to appear']
>>> link.step(), link.online
([], False)
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import serial

from firmware_bridge.protocol import Configure, Message, Ping, Receiver, encode
from scoreboard.sensing.interface import Health, Report

BAUDRATE = 115_200
SILENCE = 1.0  # seconds with no frame before the link is offline; heartbeats come every 0.25 s
RETRY = 0.2  # seconds between attempts to open a port that is not there
READ_TIMEOUT = 0.25  # the longest one step waits for bytes (a heartbeat's period); a fence or a stop cuts it short
PING_EVERY = 0.5  # while no frames come on an open port


def open_port(path: str, baudrate: int, read_timeout: float = READ_TIMEOUT) -> serial.Serial:
    """Open ``path`` for this process alone (``flock``), raw 8N1, reads waiting at most ``read_timeout``."""
    return serial.Serial(path, baudrate, timeout=read_timeout, write_timeout=0.5, exclusive=True)


def _waiting(port: serial.Serial) -> bytes:
    """Every byte on the line now, without waiting. A ``cancel_read`` left pending ends pyserial's next read empty
    (it drains its pipe first), so read again while bytes wait."""
    data = b""
    for _ in range(8):
        waiting = port.in_waiting
        if not waiting:
            break
        data += port.read(waiting)
    return data


class SerialLink:
    """One serial port path: bytes in to a ``Receiver``, messages out, ``online``/``offline``, reopened by itself.

    ``clock`` gives the host's monotonic time: the ``t`` of every input and
    report, and the silence watchdog. ``greeting`` gives the messages sent
    each time the port opens, after a ``Ping`` (the rack mode to restore).

    >>> link = SerialLink("/dev/serial/by-id/usb-devetka", clock=lambda: 12.5)
    >>> link.path, link.online, link.receiver.source
    ('/dev/serial/by-id/usb-devetka', False, 'serial')
    """

    def __init__(
        self,
        path: str,
        receiver: Receiver | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        baudrate: int = BAUDRATE,
        silence: float = SILENCE,
        retry: float = RETRY,
        read_timeout: float = READ_TIMEOUT,
        opener: Callable[[str, int, float], serial.Serial] = open_port,
        greeting: Callable[[], list[Message]] = list,
        configure: Configure | None = None,
    ) -> None:
        self.path = path
        self.receiver = receiver if receiver is not None else Receiver()
        self.source = self.receiver.source
        self.clock = clock
        self.baudrate = baudrate
        self.silence = silence
        self.retry = retry
        self.read_timeout = read_timeout
        self.opener = opener
        self.greeting = greeting
        self.configure = configure
        self.online = False
        self.port: serial.Serial | None = None
        self._lock = threading.Lock()  # the port, between the reading thread and senders
        self._cut = threading.Event()  # set to cut a wait for the port short (a fence, a stop); cleared as it does
        self._seq = 0
        self._retry_at = float("-inf")
        self._last_frame = 0.0
        self._last_ping = float("-inf")
        self._said: str | None = None  # the last offline reason reported, so a wait is told once

    # --- sending ------------------------------------------------------------------------------------

    def send(self, message: Message) -> bool:
        """Send one message to the microcontroller now; False if the port is not open or the write failed."""
        with self._lock:
            port = self.port
            if port is None:
                return False
            frame = encode(message, self._seq)
            self._seq = (self._seq + 1) & 0xFF
            try:
                port.write(frame)
            except (serial.SerialException, OSError):
                return False  # the reading side finds the unplug and reports it
            return True

    # --- the loop's one step --------------------------------------------------------------------------

    def step(self, wait: bool = True) -> list[Report]:
        """Open the port if it is closed and due, else read what came, waiting at most ``read_timeout`` for it
        (``wait=False``: only what is on the line already, as a fence needs)."""
        reports: list[Report] = []
        if self.port is None:
            self._open(reports, wait)
            return reports
        port = self.port
        try:
            data = port.read(port.in_waiting or 1) if wait else b""
            data += _waiting(port)
        except (serial.SerialException, OSError) as error:
            self._lost(f"unplugged ({error})", reports)
            return reports
        now = self.clock()
        if data:
            frames = self.receiver.decoder.frames
            found = self.receiver.feed(data, now)
            if self.receiver.decoder.frames != frames:
                self._last_frame = now
                if not self.online:
                    self.online = True
                    self._said = None
                    reports.append(Health(self.source, "link", "online", f"frames arriving on {self.path}", None, now))
            reports.extend(found)
        if now - self._last_frame >= self.silence:
            self.online = False
            self._offline(f"no frames for {self.silence:g} s on {self.path}", now, reports)
        if not self.online and now - self._last_ping >= PING_EVERY:
            self._last_ping = now
            self.send(Ping())
        return reports

    def _open(self, reports: list[Report], wait: bool) -> None:
        now = self.clock()
        if now < self._retry_at:
            if wait and self._cut.wait(min(self._retry_at - now, self.read_timeout)):
                self._cut.clear()
            return
        try:
            port = self.opener(self.path, self.baudrate, self.read_timeout)
        except (serial.SerialException, OSError, ValueError) as error:
            self._retry_at = now + self.retry
            if os.path.exists(self.path):
                self._offline(f"cannot open {self.path}: {error}", now, reports)
            else:
                self._offline(f"waiting for {self.path} to appear", now, reports)
            return
        with self._lock:
            self.port = port
            self._seq = 0
        self._last_frame = now
        self._last_ping = now
        for message in [Ping(), *self.greeting(), *([self.configure] if self.configure else [])]:
            self.send(message)

    def _lost(self, reason: str, reports: list[Report]) -> None:
        now = self.clock()
        self._close_port()
        reports.extend(self.receiver.link_lost(now))
        self._retry_at = now + self.retry
        self.online = False
        self._offline(reason, now, reports)

    def _offline(self, reason: str, now: float, reports: list[Report]) -> None:
        if reason != self._said:
            self._said = reason
            reports.append(Health(self.source, "link", "offline", reason, None, now))

    def _close_port(self) -> None:
        with self._lock:
            port, self.port = self.port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass

    def wake(self) -> None:
        """Cut short this step's wait for the port or for bytes, or the next step's if none waits now (to answer
        a fence, or to stop the loop)."""
        self._cut.set()
        port = self.port
        if port is not None:
            try:
                port.cancel_read()
            except (serial.SerialException, OSError, AttributeError):
                pass

    def close(self) -> None:
        """Close the port; a later ``step`` would open it again."""
        self._close_port()
        self.online = False
