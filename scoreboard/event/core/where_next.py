"""Where each player of a match goes next, on a win and on a loss (docs/events.md, "Where next").

Pure: read from the event's plan as it stands when the match is called, so the call can carry it to the table and
the table can say it on the match's summary ("Next for you: winners' round 3 against Cvita") without knowing any
bracket. A destination is one of:

- ``{"match", "round", "side", "against"}``: a match, ``against`` the other side as far as it is known:
  ``{"player": NAME}``, ``{"winner_of": MATCH, "players": [A, B]}`` (or ``loser_of``; ``players`` once both are
  known), ``{"group": G, "place": N}``, or ``{}``;
- ``{"out": true}``: out of the event; ``{"won": true}``: the event's winner;
- ``{"standings": G}``: no group match left: the group's standings decide.

A bye ahead is passed through: the player is sent on to the match after it.

>>> from scoreboard.event.core.records import Created, Draw, Result
>>> event = Event.fold([Created({"name": "N", "format": "single", "players": ["Ana", "Ben", "Cvita"],
...                              "race": 3}), Draw(("Ana", "Ben", "Cvita"))])
>>> where_next(event, "W1-2")[0]
{'win': {'match': 'W2-1', 'round': 'W2', 'side': 'winners', 'against': {'player': 'Ana'}}, 'lose': {'out': True}}
>>> where_next(event, "W2-1") is None, event.apply(Result("W1-2", (3, 1))), where_next(event, "W2-1")[1]
(True, True, {'win': {'won': True}, 'lose': {'out': True}})
"""

from __future__ import annotations

from typing import Any

from scoreboard.event.core.bracket import Bye, Feed, Loser, Place, Plan, Winner
from scoreboard.event.core.fold import Event

OUT: dict[str, Any] = {"out": True}
WON: dict[str, Any] = {"won": True}


def where_next(event: Event, match: str) -> list[dict[str, Any]] | None:
    """For each player of ``match`` in its order, ``{"win": WHERE, "lose": WHERE}``; None where the format has no
    next match to say (an APA team night: each player plays once) or the match's players are not known."""
    plan = event.plans.get(match)
    view = event.match(match)
    if plan is None or view is None or plan.side == "team":
        return None
    a, b = view.players
    if a is None or b is None:
        return None
    if plan.side == "group":
        return [{"win": where, "lose": where} for where in (_in_group(event, plan, name) for name in (a, b))]
    if plan.id == "GF-1" and "GF-2" in event.plans:
        reset = event.plans["GF-2"]
        return [{"win": WON, "lose": _match(reset, {"player": b})}, {"win": _match(reset, {"player": a}), "lose": OUT}]
    onward = {"win": _after(event, Winner(match)), "lose": _after(event, Loser(match))}
    return [onward, dict(onward)]


def _after(event: Event, feed: Winner | Loser) -> dict[str, Any]:
    """Where the match's winner (or loser) plays next: the match this feed fills, past any bye."""
    for plan in event.plans.values():
        if plan.reset or feed not in plan.feeds:
            continue
        other = plan.feeds[1 - plan.feeds.index(feed)]
        if isinstance(event.who(other), Bye):
            return _after(event, Winner(plan.id))
        return _match(plan, _against(event, other))
    return OUT if isinstance(feed, Loser) else WON


def _match(plan: Plan, against: dict[str, Any]) -> dict[str, Any]:
    return {"match": plan.id, "round": plan.round, "side": plan.side, "against": against}


def _against(event: Event, feed: Feed) -> dict[str, Any]:
    who = event.who(feed)
    if isinstance(who, str):
        return {"player": who}
    if isinstance(feed, Winner | Loser):
        out: dict[str, Any] = {"winner_of" if isinstance(feed, Winner) else "loser_of": feed.match}
        view = event.match(feed.match)
        if view is not None and view.players[0] is not None and view.players[1] is not None:
            out["players"] = list(view.players)
        return out
    if isinstance(feed, Place):
        return {"group": feed.group, "place": feed.place}
    return {}


def _in_group(event: Event, plan: Plan, name: str) -> dict[str, Any]:
    """The player's next group match not played yet (the plan's order: round by round), whatever this one's result;
    none left: the group's standings decide."""
    group = plan.round[0]
    for later in event.plans.values():
        if later.side != "group" or later.round[0] != group or later.id == plan.id or later.id in event.played:
            continue
        players = [event.who(f) for f in later.feeds]
        if name in players:
            other = players[1 - players.index(name)]
            return _match(later, {"player": other} if isinstance(other, str) else {})
    return {"standings": group}
