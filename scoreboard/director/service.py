"""What the director answers: one request (a JSON object) in, one answer out, every change through the event store.

The same requests come over the director's Unix socket (``scoreboard.director.server``) and, with ``--store``,
from ``devetka event`` in its own process when no director runs; either way this is the one code path. An
answer is ``{"ok": true, "event": ID, "state": {...}, ...}`` or ``{"ok": false, "error": "...", "message":
{...}}``: the error in English and as a served message, for the asker to say in its own language.

>>> import tempfile
>>> from scoreboard.event.store import EventStore
>>> director = Director(EventStore.open(tempfile.mkdtemp() + "/d.sqlite3", now=lambda: "2026-12-01T20:00:00+00:00"))
>>> director.handle({"cmd": "new", "spec": {"name": "N", "format": "single", "players": ["Ana", "Ben"]}})["event"]
1
>>> director.handle({"cmd": "result", "match": "W1-1", "score": [7, 2]})["error"]
'W1-1 waits for its players'
>>> director.close()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scoreboard.core.checks import ConfigError
from scoreboard.core.messages import Message, msg, to_json
from scoreboard.event.core.fold import Event, drawn_order
from scoreboard.event.core.records import Draw, EventError, Record, parse
from scoreboard.event.export import csv_lines, json_lines
from scoreboard.event.store import EventStore, EventStoreError

COMMANDS = ("new", "draw", "put_up", "result", "move", "status", "export", "events", "tables")

Changed = Callable[[int, dict[str, Any]], None]


def refusal(message: Message | str) -> dict[str, Any]:
    return {"ok": False, "error": str(message), "message": to_json(message) if isinstance(message, Message)
            else message}


class Director:
    """The event store's one writer, and what each request does to it."""

    def __init__(self, store: EventStore, *, seed: Callable[[], int] | None = None) -> None:
        self.store = store
        self._seed = seed
        self._watchers: list[Changed] = []
        self.tables: dict[str, dict[str, Any]] = {}
        """What the venue's tables say of themselves: ``{"online": bool, "in_play": bool}`` by table id."""
        self.served: dict[str, dict[str, Any]] = {}
        """Each table's last state as the venue broker carried it (retained: read again after a restart), so a match
        moved off a table goes on from the score it last served."""

    def watch(self, changed: Changed) -> None:
        """Call ``changed(event_id, state)`` after each committed change (the MQTT link publishes it)."""
        self._watchers.append(changed)

    def handle(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict):
            return refusal(msg("a request is a JSON object"))
        cmd = request.get("cmd")
        if cmd not in COMMANDS:
            return refusal(msg("unknown command {cmd} (the director knows {commands})", cmd=repr(cmd),
                               commands=", ".join(COMMANDS)))
        try:
            answer = getattr(self, f"_{cmd}")(request)
        except (EventError, EventStoreError, ConfigError) as error:
            return refusal(error.message)
        except (KeyError, TypeError, ValueError) as error:
            return refusal(msg("a bad {cmd} request: {error}", cmd=str(cmd), error=str(error)))
        return {"ok": True, **answer}

    def table_seen(self, table: str, *, online: bool | None = None, in_play: bool | None = None,
                   bridged: bool | None = None) -> None:
        """A table's retained availability or state, or its bridge's word (``devetka/<table>/bridge``: the venue
        broker says 0 when a table's bridge went silent, its power pulled, while its own availability, kept on
        its own broker, still says online), as the venue broker carries them."""
        seen = self.tables.setdefault(table, {"online": False, "in_play": False})
        if online is not None:
            seen["online"] = online
        if in_play is not None:
            seen["in_play"] = in_play
        if bridged is not None:
            seen["bridged"] = bridged

    def reachable(self, table: str) -> bool:
        seen = self.tables.get(table)
        return seen is not None and seen["online"] and seen.get("bridged", True)

    def free_tables(self) -> list[str]:
        """Tables online with no match in play, by id."""
        return sorted(t for t, seen in self.tables.items() if self.reachable(t) and not seen["in_play"])

    # -- the commands

    def _event_id(self, request: dict[str, Any]) -> int:
        event = request.get("event")
        if event is not None:
            if not isinstance(event, int) or isinstance(event, bool):
                raise EventError(msg("event must be an event's id (a whole number)"))
            return event
        latest = self.store.latest()
        if latest is None:
            raise EventStoreError(msg("no event in the store {path} yet: devetka event new FILE",
                                      path=str(self.store.path)))
        return latest

    def _state(self, event_id: int) -> dict[str, Any]:
        return {"event": event_id, "state": self.store.event(event_id).to_json()}

    def _take(self, event_id: int, record: Record) -> dict[str, Any]:
        counted = self.store.take(event_id, record)
        answer = {**self._state(event_id), "counted": counted}
        if counted:
            for changed in self._watchers:
                changed(event_id, answer["state"])
        return answer

    def _new(self, request: dict[str, Any]) -> dict[str, Any]:
        spec = request.get("spec")
        if not isinstance(spec, dict):
            raise EventError(msg("new needs the event file as spec (a JSON object)"))
        event_id = self.store.create(spec)
        answer = self._state(event_id)
        for changed in self._watchers:
            changed(event_id, answer["state"])
        return answer

    def _draw(self, request: dict[str, Any]) -> dict[str, Any]:
        event_id = self._event_id(request)
        spec = self.store.event(event_id).spec
        if spec.seeding == "drawn":
            seed = request.get("seed")
            if seed is None:
                if self._seed is None:
                    raise EventError(msg("a drawn seeding needs its seed"))
                seed = self._seed()
            if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
                raise EventError(msg("a seed is a whole number >= 0"))
            return self._take(event_id, Draw(drawn_order(spec.players, seed), seed))
        return self._take(event_id, Draw(spec.players))

    def _put_up(self, request: dict[str, Any]) -> dict[str, Any]:
        event_id = self._event_id(request)
        teams = [t.name for t in self.store.event(event_id).spec.teams]
        team, player = request.get("team"), request.get("player")
        if team not in teams:
            raise EventError(msg("no team {team} tonight (the teams: {teams})", team=str(team),
                                 teams=", ".join(teams)))
        return self._take(event_id, parse({"type": "put_up", "team": teams.index(team), "player": player}))

    def _result(self, request: dict[str, Any]) -> dict[str, Any]:
        event_id = self._event_id(request)
        match, reason = str(request.get("match")), request.get("reason")
        score = request.get("score")
        if not isinstance(score, list) or len(score) != 2:
            raise EventError(msg("a score is two whole numbers from 0 to {most}, such as 7-5", most=9999))
        view = self.store.event(event_id).match(match)
        if reason is not None and view is not None and view.score is not None:
            record = parse({"type": "corrected", "match": match, "score": score, "reason": reason})
        else:
            record = parse({"type": "result", "match": match, "score": score, "store": request.get("store"),
                            "match_id": request.get("match_id"), "seq": request.get("seq")})
        return {**self._take(event_id, record), "match": match}

    def _move(self, request: dict[str, Any]) -> dict[str, Any]:
        event_id = self._event_id(request)
        match = str(request.get("match"))
        view = self.store.event(event_id).match(match)
        kind = "moved" if view is not None and view.table else "called"
        raw: dict[str, Any] = {"type": kind, "match": match, "table": request.get("table")}
        if kind == "moved" and view is not None and view.table is not None:
            raw.update(self._served_score(view.table, match))
        return {**self._take(event_id, parse(raw)), "match": match}

    def _served_score(self, table: str, match: str) -> dict[str, Any]:
        """The racks won and who breaks next, as ``table`` last served the match (nothing when it served another
        match, or none): the move goes on from there."""
        state = self.served.get(table) or {}
        call = state.get("match_call")
        if not isinstance(call, str) or call.split("/")[:1] != [str(self.store.id)] or call.split("/")[2:3] != [match]:
            return {}
        if state.get("match_winner") is not None or not isinstance(state.get("score"), list):
            return {}
        if state.get("points") is not None:
            return {}  # APA points: the match starts again (a points score cannot be carried yet)
        return {"score": state["score"], "breaker": state.get("breaker") or 0}

    def _status(self, request: dict[str, Any]) -> dict[str, Any]:
        answer = self._state(self._event_id(request))
        answer["tables"] = {"seen": self.tables, "free": self.free_tables()}
        for match in answer["state"]["matches"]:
            if match["status"] == "playing" and match["table"]:
                served = self._served_score(match["table"], match["match"])
                if served:
                    match["served"] = served  # what a move would go on from
            if match["status"] in ("called", "playing") and match["table"] in self.tables \
                    and not self.reachable(match["table"]):
                match["in_doubt"] = True  # its table is offline: its score is the one it last served
        return answer

    def _export(self, request: dict[str, Any]) -> dict[str, Any]:
        event_id = self._event_id(request)
        event: Event = self.store.event(event_id)
        return {"event": event_id, "lines": csv_lines(event) if request.get("csv") else json_lines(event)}

    def _events(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"events": [{"event": i, "name": n, "created": c} for i, n, c in self.store.events()]}

    def _tables(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"tables": {"seen": self.tables, "free": self.free_tables()}}

    def close(self) -> None:
        self.store.close()
