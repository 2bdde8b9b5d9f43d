"""The director calling the tables and taking their results (docs/events.md, "Calls").

The rules of who goes where are the event core's (``scoreboard.event.core.calls``); this is what the director does
with them: every record committed to the event store before its call or withdrawal is sent, so a director killed
at any point calls again, with the same id, only what its store says is called and not answered. What comes back
from a table is read from its answer on ``cmd/result`` and from its retained state: the call refused or declined
(released), its match begun (started), its match won (the result, keyed by the table's store id and match id,
counted once whatever arrives twice or late).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scoreboard.event.core import calls as rules
from scoreboard.event.core.fold import MatchView
from scoreboard.event.core.records import Called, EventError, Record, Released, Result, Started
from scoreboard.event.store import EventStoreError

if TYPE_CHECKING:
    from scoreboard.director.service import Director

log = logging.getLogger("devetka.director")

#: Sends a request to a table's ``cmd``: (table, request).
Send = Callable[[str, dict[str, Any]], None]


class Caller:
    """Calls for the event being played (the store's latest), through ``send``; ``director`` owns the store."""

    def __init__(self, director: Director, now: Callable[[], float], send: Send,
                 answer_within: float = rules.ANSWER_WITHIN_S, say: Callable[[str], None] = log.info,
                 start_on_strike: bool = False, hold_offered: float = 0.0) -> None:
        self.director = director
        self.store_id = str(director.store.id)
        self.now = now
        self.send = send
        self.answer_within = answer_within
        self.start_on_strike = start_on_strike
        """The venue's choice: the break's strike at a called table begins the match, as Start does."""
        self.say = say
        """Told a line per call made (``call: MATCH to TABLE``): ``devetka director`` prints it."""
        self.offered: set[str] = set()
        """Calls their table answered ``ok`` (offered to the players): these no longer run out."""
        self.silent: set[str] = set()
        """Tables that let a call run out unanswered: none is called again until it is heard from (a state or an
        answer), so a table gone quiet is not called over and over while its bridge still looks up."""
        self.sent: set[str] = set()
        """Calls sent since the director (or its link) started: each standing call goes out once, then again only
        after a reconnect."""
        self.withdrawing: dict[str, float] = {}
        """Calls withdrawn (run out, or stale at their table) -> when the withdrawal was sent."""
        self.hold_offered = hold_offered
        """How long a call offered to the players is kept after its table became unreachable: longer than the table
        takes to hold its Start (three of the director's heartbeats missed), so a table cut off by its network no
        longer starts it by the time its match is called elsewhere."""
        self.unreachable: dict[str, float] = {}
        """Offered calls whose table is unreachable -> when that was first seen."""
        self.since = now()
        """When the calls were last sent (at start, at every reconnect): none runs out before its tables could answer
        again."""

    def _take(self, event_id: int, record: Record) -> bool:
        try:
            return bool(self.director._take(event_id, record)["counted"])
        except (EventError, EventStoreError) as error:
            log.warning("not taken: %s (%s)", record, error)
            return False

    def tick(self) -> None:
        """Withdraw the calls that ran out or went stale, release those their table gave up, then call every ready
        match a free table can take."""
        event_id = self.director.store.latest()
        if event_id is None:
            return
        event = self.director.store.event(event_id)
        if event.spec.format != "apa_team" and event.order is None:
            return
        now = self.now()
        if now >= self.since + self.answer_within:
            for view in rules.expired(event, now):
                self._run_out(event_id, view, now)
        for table, state in list(self.director.served.items()):
            self._withdraw_stale(table, state.get("call"))
        event = self.director.store.event(event_id)
        free = [t for t in self.director.free_tables() if t not in self.silent]
        for match, table in rules.next_calls(event, free):
            if self._take(event_id, Called(match, table, now + self.answer_within)):
                self.say(f"call: {match} to {table}")
        self._send_new(event_id)

    def _run_out(self, event_id: int, view: MatchView, now: float) -> None:
        """A call unanswered at its expiry is withdrawn first, and released once its table says it is withdrawn (or
        refused), or at once when the table is unreachable, or after another ``answer_within`` of silence: a
        table that did answer, late, keeps the match it may have begun meanwhile."""
        assert view.table is not None and view.call is not None
        call = rules.call_id(self.store_id, event_id, view.id, view.call)
        reachable = self.director.reachable(view.table)
        if call in self.offered and reachable:
            self.unreachable.pop(call, None)
            return  # the players have it on the screen: it waits for them
        if call in self.offered and now < self.unreachable.setdefault(call, now) + self.hold_offered:
            return  # until the table, cut off, surely holds its Start
        sent = self.withdrawing.get(call)
        if sent is None:
            self.silent.add(view.table)
            self.withdrawing[call] = now
            self.send(view.table, _withdraw(call))
        if not reachable or (sent is not None and now >= sent + self.answer_within):
            self._take(event_id, Released(view.id, view.table, "expired"))

    def _withdraw_stale(self, table: str, call: Any) -> None:
        """A call of this director's offered at ``table`` that is no longer the match's call there (its result
        entered by hand, the match moved, a newer call made) is taken off that table's screen, once."""
        if not isinstance(call, dict) or call.get("status") != "offered":
            return
        named = rules.parse_call_id(call.get("id"), self.store_id)
        if named is None or call["id"] in self.withdrawing:
            return
        event_id, match, n = named
        view = self._view(event_id, match)
        if view is not None and view.status == "called" and view.call == n and view.table == table:
            return
        self.withdrawing[call["id"]] = self.now()
        self.send(table, _withdraw(call["id"]))

    def _send_new(self, event_id: int) -> None:
        """Every standing call not sent yet (a new call, or a match moved by ``event move``)."""
        event = self.director.store.event(event_id)
        for view in event.matches():
            if view.status == "called" and view.call is not None and view.table is not None:
                call = rules.call_of(event, self.store_id, event_id, view, self.start_on_strike)
                if call["id"] not in self.sent:
                    self.sent.add(call["id"])
                    self.send(view.table, {"id": call["id"], "cmd": "call", "call": call})

    def resend(self) -> None:
        """Send every standing call again, the same ids (after the director or its link starts again)."""
        self.since = self.now()
        self.sent.clear()
        event_id = self.director.store.latest()
        if event_id is None:
            return
        event = self.director.store.event(event_id)
        for view in event.matches():
            if view.status == "called" and view.call is not None and view.table is not None:
                call = rules.call_id(self.store_id, event_id, view.id, view.call)
                if call in self.withdrawing:
                    self.withdrawing[call] = self.since
                    self.send(view.table, _withdraw(call))
        self._send_new(event_id)

    def answered(self, table: str, answer: dict[str, Any]) -> None:
        """A table's answer on ``cmd/result``: a refused call is released, to be called elsewhere."""
        self.silent.discard(table)
        asked = answer.get("id")
        if isinstance(asked, str) and asked.startswith(WITHDRAW):
            if answer.get("ok") is True:
                self._release(table, asked.removeprefix(WITHDRAW), "expired")
            return  # refused ``in_play``: the match began there, as the table's state says (a ``started`` record)
        if answer.get("ok") is True and isinstance(asked, str):
            self.offered.add(asked)
        elif answer.get("ok") is False and isinstance(answer.get("code"), str):
            self._release(table, answer.get("id"), answer["code"])

    def table_state(self, table: str, state: dict[str, Any]) -> None:
        """A table's retained state: a call declined or refused, a called match begun, or won."""
        self.director.served[table] = state
        self.silent.discard(table)
        call = state.get("call")
        if isinstance(call, dict) and call.get("status") == "offered" and isinstance(call.get("id"), str):
            self.offered.add(call["id"])
        if isinstance(call, dict) and call.get("status") in ("declined", "refused", "withdrawn"):
            reason = "not_now" if call["status"] == "declined" else str(call.get("code") or call["status"])
            self._release(table, call.get("id"), reason)
        named = rules.parse_call_id(state.get("match_call"), self.store_id)
        if named is not None and state.get("match_winner") is None:
            self._started(table, *named)
        self._withdraw_stale(table, call)
        store = state.get("store")
        results = state.get("called_results")
        if isinstance(store, str) and isinstance(results, list):
            for result in results:
                if isinstance(result, dict):
                    self._result(table, store, result)

    def _started(self, table: str, event_id: int, match: str, n: int) -> None:
        """``table`` began call ``n`` of ``match``: the match is played there, even where that call ran out and the
        match was released or called elsewhere meanwhile (the other call withdrawn): players who pressed Start keep
        their match. Begun at two tables, the first seen keeps it; the other's result does not count."""
        view = self._view(event_id, match)
        if view is None or view.status not in ("ready", "called"):
            if view is not None and view.status == "playing" and view.table != table:
                log.warning("%s began %s, which is being played at %s: its result will not count", table, match,
                            view.table)
            return
        if view.status == "called" and view.table != table:
            assert view.table is not None and view.call is not None
            other = rules.call_id(self.store_id, event_id, view.id, view.call)
            if self._take(event_id, Released(match, view.table, "begun_elsewhere")):
                self.withdrawing[other] = self.now()
                self.send(view.table, _withdraw(other))
        if self._take(event_id, Started(match, table)) and (view.call != n or view.table != table):
            self.say(f"started: {match} at {table} (from its call {n}, answered late)")

    def _view(self, event_id: int, match: str) -> MatchView | None:
        try:
            return self.director.store.event(event_id).match(match)
        except EventStoreError:
            return None

    def _result(self, table: str, store: str, result: dict[str, Any]) -> None:
        """A called match won at ``table``: its result, once (the same store, match id and score count once)."""
        named = rules.parse_call_id(result.get("call"), self.store_id)
        if named is None:
            return
        event_id, match, n = named
        view = self._view(event_id, match)
        if view is None or view.status == "done":
            return  # counted already (a second result for it would be a correction, with a reason, by hand)
        if view.call != n and view.table != table and (view.status == "playing" or view.continued is not None):
            return  # the match went on elsewhere (moved, or begun at another table): that table's result counts
        score = result.get("points") if view.skills is not None else result.get("score")
        match_id, seq = result.get("match_id"), result.get("seq")
        if not isinstance(score, list) or len(score) != 2 or not isinstance(match_id, int):
            log.warning("table %s served a result the event cannot read: %s", table, result)
            return
        self._take(event_id, Result(match, (score[0], score[1]), store, match_id,
                                    seq if isinstance(seq, int) else None))

    def _release(self, table: str, call_id: Any, reason: str) -> None:
        named = rules.parse_call_id(call_id, self.store_id)
        if named is None:
            return
        event_id, match, n = named
        try:
            view = self.director.store.event(event_id).match(match)
        except EventStoreError:
            return
        if view is not None and view.status == "called" and view.call == n and view.table == table:
            self._take(event_id, Released(match, table, reason))


WITHDRAW = "withdraw:"
"""The id of a withdrawal's request: its answer on ``cmd/result`` says the call is off the table's screen."""


def _withdraw(call_id: str) -> dict[str, Any]:
    return {"id": f"{WITHDRAW}{call_id}", "cmd": "withdraw", "call": call_id}

