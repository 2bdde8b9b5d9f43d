"""The microcontroller as a sensor source for the daemon (``scoreboard.sensing.interface.Source``).

A thread runs ``SerialLink.step`` until ``close``; every input and report goes
to ``emit`` from that thread. Rack mode is kept in two places: the
microcontroller is told (``Arm``) so it does not count hands in the pockets,
and the host's ``RackGate`` drops pocket inputs already on their way. Both
leave rack mode by themselves at the next strike; each time the port opens
or the microcontroller restarts it is told the mode again.

>>> import queue
>>> source, reports = SerialSource("/nonexistent/devetka-mcu"), queue.Queue()
>>> source.start(reports.put)
>>> reports.get(timeout=30).detail
'waiting for /nonexistent/devetka-mcu to appear'
>>> source.set_rack_mode(True)
>>> source.close()
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable

from firmware_bridge.link import BAUDRATE, SerialLink
from firmware_bridge.protocol import Arm, Configure, Message
from scoreboard.sensing.interface import Emit, Health, Heard, RackGate


class SerialSource:
    """The pocket, cushion and strike sensors of a microcontroller on serial port ``path``, as one source."""

    def __init__(
        self,
        path: str,
        *,
        clock: Callable[[], float] = time.monotonic,
        baudrate: int = BAUDRATE,
        configure: Configure | None = None,
        link: SerialLink | None = None,
    ) -> None:
        self.gate = RackGate()
        self.link = link if link is not None else SerialLink(path, clock=clock, baudrate=baudrate,
                                                             configure=configure)
        self.link.greeting = self._greeting
        self.name = self.link.source
        self._stop = threading.Event()
        self._fence = threading.Event()
        self._thread: threading.Thread | None = None

    def _greeting(self) -> list[Message]:
        return [Arm(armed=not self.gate.rack_mode)]

    def start(self, emit: Emit) -> None:
        """Report to ``emit`` from a thread of its own until ``close``."""
        self._thread = threading.Thread(target=self._run, args=(emit,), name=f"serial {self.link.path}",
                                        daemon=True)
        self._thread.start()

    def fence(self) -> None:
        """Say, after the reports of the next read of the port, how far this source has been heard (``Heard``):
        the daemon's settle timer asks before it ends a shot, since a starved thread may not have read yet. A read
        waiting for bytes is cut short, so the word comes as soon as the thread runs."""
        self._fence.set()
        self.link.wake()

    def _run(self, emit: Emit) -> None:
        link, gate, stop = self.link, self.gate, self._stop
        try:
            while not stop.is_set():
                asked = self._fence.is_set()
                self._fence.clear()
                before = link.clock()  # the read below takes every byte that came before this
                for report in link.step(wait=not asked):
                    if gate.admit(report):
                        emit(report)
                    if type(report) is Health and report.status == "restarted":
                        link.send(Arm(armed=not gate.rack_mode))  # a restarted microcontroller starts armed
                if asked:
                    emit(Heard(self.name, before))
        finally:
            link.close()
            with contextlib.suppress(RuntimeError):  # the daemon's loop may be gone already
                emit(Heard(self.name, math.inf))     # nothing more from here: never hold a settle back

    def set_rack_mode(self, on: bool) -> None:
        """Rack mode on: pocket inputs are dropped (here and on the microcontroller) until off or a strike."""
        self.gate.rack_mode = on
        self.link.send(Arm(armed=not on))

    def close(self) -> None:
        """Stop the thread and close the port."""
        self._stop.set()
        self.link.wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
        else:
            self.link.close()
