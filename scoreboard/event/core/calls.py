"""Which match the director calls to which table, and what the call carries (docs/events.md, "Calls").

Pure: the director hands in the event, the tables it sees free and the time; these rules answer. The next ready
match (in the event's order: earlier rounds first) goes to the first free table in the venue's order (the event
file's ``tables``, else the tables' ids sorted). A match pinned to a table (``pins``) goes only there, and a free
table pinned for a ready match is kept for it. A table with a call standing is not free.

>>> from scoreboard.event.core.records import Created, Draw
>>> from scoreboard.event.core.fold import Event
>>> event = Event.fold([Created({"name": "N", "format": "single", "players": ["Ana", "Ben", "Cvita", "Dino"],
...                              "race": 3, "tables": ["t1", "t2", "tv"], "pins": {"W2-1": "tv"}}),
...                     Draw(("Ana", "Ben", "Cvita", "Dino"))])
>>> next_calls(event, free=["t2", "tv", "t1"])
[('W1-1', 't1'), ('W1-2', 't2')]
>>> call_id("5e1f0a", 1, "W1-1", 3)
'5e1f0a/1/W1-1/3'
>>> parse_call_id("5e1f0a/1/W1-1/3", "5e1f0a"), parse_call_id("c0ffee/1/W1-1/3", "5e1f0a")
((1, 'W1-1', 3), None)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scoreboard.event.core.fold import Event, MatchView
from scoreboard.event.core.where_next import where_next

#: How long a table has to answer a call before the director calls the match elsewhere (seconds).
ANSWER_WITHIN_S = 60.0


def call_id(store: str, event_id: int, match: str, n: int) -> str:
    """A call's id: the director's store (its lasting id), the event, the match and the number of its ``called``
    record, so the same call keeps its id across a restart of the director, and a new call (of the same match, or
    of another director's event) never has an old one's."""
    return f"{store}/{event_id}/{match}/{n}"


def parse_call_id(text: Any, store: str) -> tuple[int, str, int] | None:
    """(event, match, n) of one of ``store``'s call ids, or None for anything else."""
    if not isinstance(text, str):
        return None
    parts = text.split("/")
    if len(parts) != 4 or parts[0] != store or not parts[1].isdigit() or not parts[3].isdigit() or not parts[2]:
        return None
    return int(parts[1]), parts[2], int(parts[3])


def venue_order(event: Event, tables: Iterable[str]) -> list[str]:
    """The tables the event may use, in the venue's order."""
    seen = set(tables)
    if event.spec.tables:
        return [t for t in event.spec.tables if t in seen]
    return sorted(seen)


def next_calls(event: Event, free: Iterable[str]) -> list[tuple[str, str]]:
    """(match, table) for every call to make now: ready matches to free tables, pins kept."""
    pins = dict(event.spec.pins)
    busy = {v.table for v in event.matches() if v.status in ("called", "playing")}
    tables = [t for t in venue_order(event, free) if t not in busy]
    ready = [v.id for v in event.matches() if v.status == "ready"]
    kept = {pins[m] for m in ready if m in pins}
    calls = []
    for match in ready:
        pinned = pins.get(match)
        if pinned is not None:
            table = pinned if pinned in tables else None
        else:
            left = event.released.get(match, [])
            open_ = [t for t in tables if t not in kept]
            table = next((t for t in open_ if t not in left), next(iter(open_), None))
        if table is not None:
            tables.remove(table)
            calls.append((match, table))
    return calls


def expired(event: Event, now: float) -> list[MatchView]:
    """Called matches not begun whose call ran out unanswered by ``now`` (seconds since the epoch)."""
    return [v for v in event.matches()
            if v.status == "called" and v.expires is not None and v.expires <= now]


def call_of(event: Event, store: str, event_id: int, view: MatchView, start_on_strike: bool = False) -> dict[str, Any]:
    """The call as it goes to the table: its id, the ``match_start`` to begin (the table adds the profile's rules to
    its own sensors), the profile, its expiry, whether the break's strike begins it as Start does (the venue's
    choice), the event's name and where each player goes next (``where_next``: the table says it once the match is
    won)."""
    assert view.call is not None and view.players[0] is not None and view.players[1] is not None
    start: dict[str, Any] = {"type": "match_start", "v": 1, "players": list(view.players), "breaker": 0}
    if view.skills is not None:
        start["apa_skill"] = list(view.skills)
    elif view.race is not None:
        start["race"] = list(view.race)
    if view.continued is not None:
        start["start_score"], start["breaker"] = list(view.continued[0]), view.continued[1]
    call: dict[str, Any] = {
        "id": call_id(store, event_id, view.id, view.call), "event": event.spec.name, "match": view.id,
        "round": view.round, "side": view.side, "match_start": start, "profile": event.spec.profile,
        "expires": view.expires, "start_on_strike": start_on_strike}
    onward = where_next(event, view.id)
    if onward is not None:
        call["next"] = onward
    return call
