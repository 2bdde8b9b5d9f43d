"""The referee as every way in sees it: requests, sensor reports and the settle timer in, answers and states out.

The local API and MQTT are adapters around this one object and know nothing of each other: each hands
its request lines to ``request`` with the name of its way in, and subscribes to the states (``watch``)
and the stored inputs (``watch_stored``). Everything here runs on the daemon's event loop, one request at
a time, so the store sees one writer and every subscriber sees the changes in their order.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from scoreboard.contract import present
from scoreboard.contract.present import served
from scoreboard.contract.records import CODES, Code
from scoreboard.core.inputs import Input, Strike
from scoreboard.core.messages import Catalog, Message, msg, render
from scoreboard.core.rules import Step
from scoreboard.referee.referee import Referee
from scoreboard.referee.reply import Reply
from scoreboard.sensing.interface import Health, Heard, Report

#: A request longer than this is refused unread, on every way in (a line of the local API, an MQTT payload).
REQUEST_LIMIT = 1 << 20

#: What each way in may not send, and why (MQTT may not change the table's settings).
REFUSED: Mapping[str, Mapping[str, Message]] = {
    "mqtt": {"settings": msg("settings are changed on the table's touchscreen, behind its PIN, not over MQTT"),
             "pin": msg("the PIN is typed on the table's touchscreen, not sent over MQTT"),
             "restart": msg("the daemon is started again from the table's touchscreen, behind its PIN, not over MQTT")},
}

#: Wrong PINs the table takes within ``PIN_WINDOW_S``, over every connection together, before the requests that
#: carry a PIN are refused for ``PIN_LOCKOUT_S``.
PIN_TRIES = 5
PIN_WINDOW_S = 60.0
PIN_LOCKOUT_S = 60.0

Answer = Callable[[dict[str, Any]], None]
StateWatcher = Callable[[dict[str, Any]], None]
StoredWatcher = Callable[[int, Input, Step | None], None]

log = logging.getLogger("devetka.referee")


class Service:
    """A ``Referee`` served: parse, check the way in, apply, answer, then tell every watcher of the change."""

    def __init__(self, referee: Referee, clock: Callable[[], float] = time.monotonic) -> None:
        self.referee = referee
        self.clock = clock
        self._watchers: list[StateWatcher] = []
        self._wrong_pins: deque[float] = deque()
        self._locked_until: float | None = None
        self.woken: Callable[[], None] = lambda: None
        """Called whenever an input may have moved the settle deadline (the daemon's settle loop wakes)."""

    # --- what the adapters see ---------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The state message every client gets on connecting and after every change."""
        return dict(self.referee.state(), type="state")

    @property
    def match_id(self) -> int | None:
        return self.referee.match_id

    @property
    def words(self) -> Catalog:
        """The players' language now (the match's, else the table's): the catalog the words are served in."""
        return self.referee.words()

    @property
    def store_id(self) -> str | None:
        """The store's lasting id: with the match and the seq it names a state, and an event, for good."""
        return self.referee.store.id

    def refusal(self, request_id: Any, message: Message, code: Code = "invalid_input") -> dict[str, Any]:
        """The answer refusing a request: ``error`` in English (the API's words), ``words`` in the players', and
        its ``code`` (``CODES``)."""
        assert code in CODES, code
        return served(present.refusal(request_id, render(message), render(message, self.words), code))

    def watch(self, watcher: StateWatcher) -> None:
        self._watchers.append(watcher)

    def unwatch(self, watcher: StateWatcher) -> None:
        if watcher in self._watchers:
            self._watchers.remove(watcher)

    def watch_stored(self, watcher: StoredWatcher) -> None:
        self.referee.stored.append(watcher)

    def unwatch_stored(self, watcher: StoredWatcher) -> None:
        if watcher in self.referee.stored:
            self.referee.stored.remove(watcher)

    def _lockout(self) -> float:
        """Seconds the table still refuses a PIN for, after too many wrong ones (0: not refused)."""
        until = self._locked_until
        if until is None:
            return 0.0
        left = until - self.clock()
        if left <= 0:
            self._locked_until = None
            return 0.0
        return left

    def _count_wrong_pin(self) -> None:
        now = self.clock()
        tries = self._wrong_pins
        tries.append(now)
        while tries and tries[0] <= now - PIN_WINDOW_S:
            tries.popleft()
        if len(tries) >= PIN_TRIES:
            tries.clear()
            self._locked_until = now + PIN_LOCKOUT_S
            log.warning("%d wrong PINs within %g s: a PIN is refused for %g s", PIN_TRIES, PIN_WINDOW_S,
                        PIN_LOCKOUT_S)

    def request(self, line: bytes, answer: Answer, way_in: str) -> None:
        """A request line from ``way_in`` (``socket``, ``mqtt``): ``answer`` gets its answer, then every watcher
        the change. Wrong PINs count for the table, whichever connection sent them; while they lock it out, only
        a request that carries a PIN is refused, and the refereeing goes on."""
        if len(line) > REQUEST_LIMIT:
            answer(self.refusal(None, msg("a request longer than {limit} bytes is not read", limit=REQUEST_LIMIT)))
            return
        try:
            request = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            answer(self.refusal(None, msg("not valid JSON: {error}", error=str(error))))
            return
        if not isinstance(request, dict):
            kind = type(request).__name__
            answer(self.refusal(None, msg("a request must be a JSON object, not {kind}", kind=kind)))
            return
        request_id = request.pop("id", None)
        refused = REFUSED.get(way_in, {})
        command = request.get("cmd")
        if isinstance(command, str) and command in refused:
            answer(self.refusal(request_id, refused[command], "not_allowed"))
            return
        locked = self._lockout() if command == "pin" or "pin" in request else 0.0
        if locked:
            answer(self.refusal(request_id, msg("too many wrong PINs: a PIN is refused for {seconds} s more",
                                                seconds=max(1, round(locked))), "pin_locked"))
            return
        self.woken()
        try:
            reply = self.referee.handle(request)
        except Exception as error:  # a bug must cost one answer, not the daemon
            log.exception("internal error on a request")
            answer(self.refusal(request_id, msg("internal error: {error}", error=repr(error)), "internal_error"))
            return
        if reply.wrong_pin:
            self._count_wrong_pin()
        if reply.ok:
            answer({"id": request_id, "ok": True, "state": reply.state})
        else:
            answer(served(present.refusal(request_id, reply.error or "", reply.words, reply.code or "internal_error")))
        if reply.changed:
            self.changed()

    # --- what the daemon's own parts hand in ------------------------------------------------------------

    def report(self, report: Report) -> None:
        """A sensor source's report, already handed over to the event loop."""
        referee = self.referee
        if isinstance(report, Health):
            referee.health_report(report)
            self.changed()
            return
        if isinstance(report, Heard):
            referee.heard(report)
            self.woken()  # a settle held back for this way in may be due now
            return
        if isinstance(report, Strike) and referee.calls.strike_starts(referee):
            self.changed()  # the called match begun by its break (the venue said so): the strike is its break
        if referee.match is None:
            return  # no match to referee yet: the table is being set up
        self.woken()
        reply = referee.sensed(report)
        if not reply.ok:
            log.warning("sensor input %s not applied: %s", report.TYPE, reply.error)
        if reply.changed:
            self.changed(reply)

    def venue_link(self, up: bool) -> None:
        """The table's bridge to the venue up or down, as its notification says (the MQTT adapter reads it): an
        input of the daemon's own, no request any client may send. A called match's Start is refused while it is
        down (``scoreboard.referee.calls``), and the offered call's ``start`` says so."""
        if self.referee.calls.venue_link(up):
            self.changed()

    def director_heard(self, every_s: float) -> float:
        """The venue director's heartbeat, bridged in (the MQTT adapter reads it): a called match's Start is held once
        three beats are missed. The seconds until then: the adapter calls ``changed`` at that moment, so the screens
        see the offered call's ``start`` turn."""
        calls = self.referee.calls
        was_away = calls.venue_away()
        quiet = calls.director_heard(every_s)
        if was_away and not calls.venue_away() and calls.offer is not None:
            self.changed()
        return quiet

    def settle_if_due(self) -> None:
        """The settle timer's ``settle``, once the table is quiet: the turn passes with no one tapping."""
        reply = self.referee.settle_if_due()
        if reply is not None and not reply.ok:
            log.warning("the table was quiet but the settle was not applied: %s", reply.error)
        if reply is not None and reply.changed:
            self.changed(reply)

    def shot_clock_if_due(self) -> None:
        """At the shot clock's deadline: the time foul applied (a strike sensor) or proposed for a tap (none)."""
        reply = self.referee.shot_clock_if_due()
        if reply is not None and not reply.ok:
            log.warning("the shot clock ran out but the time foul was not applied: %s", reply.error)
        if reply is not None and reply.changed:
            self.changed(reply)

    def changed(self, reply: Reply | None = None) -> None:
        """Every watcher gets the state; an applied input's reply builds it (sensors and the settle timer, the hot
        path): its served actions are not tried on the fold a second time, nor at all with no one watching. A
        refusal that changed the state (the store's fault in its health) has none of its own: the state now."""
        if not self._watchers:
            return
        state = None if reply is None else reply.state
        message = self.state() if state is None else dict(state, type="state")
        for watcher in list(self._watchers):
            watcher(message)
