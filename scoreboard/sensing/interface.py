"""What sensor sources report besides match-log inputs, and the shape every source has.

GPIO sensors (``hardware/``) and the microcontroller bridge (``firmware_bridge/``)
both turn physical events into match-log inputs; they also report their own
health (a line stuck, a link down, frames lost), which is a control message of
the daemon and never part of the match log. Both kinds of report go to one
``emit`` callable, from whatever thread the source runs in.

>>> gate = RackGate()
>>> gate.rack_mode = True
>>> from scoreboard.core.inputs import Pocket, Strike
>>> gate.admit(Pocket(None)), gate.admit(Strike()), gate.rack_mode
(False, True, False)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from scoreboard.core.inputs import Input, Pocket, Strike

HEALTH_STATUSES = ("ok", "fault", "online", "offline", "lost_frames", "restarted", "missed_pockets", "errors")


@dataclass(frozen=True, slots=True)
class Health:
    """A source's word on itself: ``subject`` is a line (``pocket:foot_left``, ``strike``) or ``link``.

    >>> Health("gpio", "pocket:foot_left", "fault", "line active for 5.0 s").to_json()["status"]
    'fault'
    """

    source: str
    subject: str
    status: str
    detail: str = ""
    count: int | None = None
    t: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "health", "source": self.source, "subject": self.subject,
                               "status": self.status}
        if self.detail:
            out["detail"] = self.detail
        if self.count is not None:
            out["count"] = self.count
        if self.t is not None:
            out["t"] = self.t
        return out


@dataclass(frozen=True, slots=True)
class Heard:
    """A way in's word on how far it has been heard: every input of ``source`` up to ``t`` (the daemon's
    monotonic clock) is handed in, and none earlier will come. The settle timer counts quiet only up to there.

    >>> Heard("sim", 12.5)
    Heard(source='sim', t=12.5)
    """

    source: str
    t: float


Report = Input | Health | Heard
Emit = Callable[[Report], None]


class Source(Protocol):
    """A sensor source: ``start`` it with an ``emit``; it reports until ``close``.

    A source that reads on a thread of its own may also have a ``name`` and ``fence()``: asked, it emits
    ``Heard(name, t)`` after the reports of its next look at its lines, ``t`` that look's time. The daemon asks
    before its settle timer ends a shot (``scoreboard.daemon.serve.settle_loop``): a daemon starved of the CPU
    wakes past the deadline, and the ball that dropped inside it may still be unread.
    """

    def start(self, emit: Emit) -> None: ...

    def set_rack_mode(self, on: bool) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class FencedSource(Source, Protocol):
    """A source that reads on a thread of its own: asked (``fence``), it emits ``Heard(name, t)`` after its next
    look at its lines."""

    name: str

    def fence(self) -> None: ...


class RackGate:
    """Rack mode: while players rack, pocket inputs are dropped; a strike ends the mode by itself."""

    def __init__(self) -> None:
        self.rack_mode = False

    def admit(self, item: Report) -> bool:
        """True if ``item`` should go on to the match."""
        if not self.rack_mode:
            return True
        if type(item) is Strike:
            self.rack_mode = False
            return True
        return type(item) is not Pocket
