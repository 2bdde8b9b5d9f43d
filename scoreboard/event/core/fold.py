"""The event: the fold of its log (docs/events.md). Each record is checked against the event so far and taken
whole or refused with a message; a refused record changes nothing.

>>> event = Event.fold([Created({"name": "Friday", "format": "single", "players": ["Ana", "Ben", "Cvita"],
...                              "race": 3}), Draw(("Ana", "Ben", "Cvita"))])
>>> [(m.id, m.players, m.status) for m in event.matches()]
[('W1-2', ('Ben', 'Cvita'), 'ready'), ('W2-1', ('Ana', None), 'waiting')]
>>> event.apply(Result("W1-2", (1, 3))), event.apply(Result("W2-1", (3, 2))), event.champion()
(True, True, 'Ana')
>>> event.apply(Result("W2-1", (3, 2)))
Traceback (most recent call last):
...
scoreboard.event.core.records.EventError: W2-1 has its result already (3-2): correct it with a reason
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from scoreboard.core.checks import ConfigError
from scoreboard.core.messages import msg
from scoreboard.event.core import bracket
from scoreboard.event.core.apa_team import match_points, may_put_up, target
from scoreboard.event.core.bracket import Bye, Feed, Loser, Place, Plan, PutUp, Seed, Winner
from scoreboard.event.core.records import (
    Called,
    Corrected,
    Created,
    Draw,
    EventError,
    Moved,
    PutUpRecord,
    Record,
    Released,
    Result,
    Started,
    score_of,
)
from scoreboard.event.core.spec import GROUP_NAMES, EventSpec, spec_of
from scoreboard.event.core.standings import Game, Row, standings

FOLD_VERSION = 1
"""The event rules this release folds by (``created.version``): a release that changes a format's meaning
raises it and keeps the old meaning for events created under a lower one."""

BYE = Bye()
Who = str | Bye | None
STATUSES = ("waiting", "bye", "ready", "called", "playing", "done")


@dataclass(frozen=True, slots=True)
class MatchView:
    """One match as the event stands: what ``devetka event status`` shows and ``export`` writes."""

    id: str
    round: str
    side: str
    players: tuple[str | None, str | None]
    race: tuple[int, int] | None
    skills: tuple[int, int] | None
    status: str
    table: str | None
    score: tuple[int, int] | None
    winner: int | None
    store: str | None
    match_id: int | None
    match_points: tuple[int, int] | None
    corrections: tuple[str, ...] = ()
    call: int | None = None
    """The number of the ``called`` record (its place in the log) while the match stands called or playing from it:
    with the event and the match it makes the call's id (``scoreboard.event.core.calls.call_id``)."""
    expires: float | None = None
    continued: tuple[tuple[int, int], int] | None = None
    """A moved match's racks won at the table it left, and who breaks next: it goes on from there."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "match": self.id, "round": self.round, "side": self.side, "players": list(self.players),
            "table": self.table, "score": _list(self.score),
            "winner": None if self.winner is None else self.players[self.winner],
            "store": self.store, "match_id": self.match_id, "status": self.status, "race": _list(self.race)}
        if self.skills is not None:
            out["skills"] = list(self.skills)
            out["match_points"] = _list(self.match_points)
        if self.corrections:
            out["corrections"] = list(self.corrections)
        if self.call is not None:
            out["call"] = self.call
            out["expires"] = self.expires
        if self.continued is not None:
            out["continued"] = {"score": list(self.continued[0]), "breaker": self.continued[1]}
        return out


def _list(pair: tuple[int, int] | None) -> list[int] | None:
    return None if pair is None else list(pair)


@dataclass
class _Played:
    score: tuple[int, int]
    winner: int
    store: str | None = None
    match_id: int | None = None
    corrections: list[str] = field(default_factory=list)


class Event:
    """An event folded from its records: the plan of its matches, the draw, results, calls and tables."""

    def __init__(self, created: Created) -> None:
        if created.version > FOLD_VERSION:
            raise EventError(msg("the event was created under event rules {v}: this release knows {ours} and "
                                 "before", v=created.version, ours=FOLD_VERSION))
        try:
            self.spec: EventSpec = spec_of(created.spec)
        except ConfigError as error:
            raise EventError(msg("the event file: {problem}", problem=error.message)) from None
        self.plans: dict[str, Plan] = {p.id: p for p in _plans(self.spec)}
        for match, _ in self.spec.pins:
            if match not in self.plans:
                raise EventError(msg("the event file: pins names no match {match} of this event", match=match))
        self.order: tuple[str, ...] | None = () if self.spec.format == "apa_team" else None
        self.seed: int | None = None
        self.put_up: tuple[list[str], list[str]] = ([], [])
        self.played: dict[str, _Played] = {}
        self.tables: dict[str, str] = {}
        self.started: set[str] = set()
        self.calls: dict[str, tuple[int, float | None]] = {}
        """The standing call of each called match: its record's number and when it expires."""
        self.continued: dict[str, tuple[tuple[int, int], int]] = {}
        self.released: dict[str, list[str]] = {}
        """The tables each match's calls were released from (refused, not now, expired), oldest first."""
        self.records = 1
        self._cache: dict[str, tuple[Who, Who]] = {}
        self._rows: dict[str, tuple[Row, ...]] = {}

    @classmethod
    def fold(cls, records: Iterable[Record]) -> Event:
        items = iter(records)
        first = next(items, None)
        if not isinstance(first, Created):
            raise EventError(msg("an event log begins with its created record"))
        event = cls(first)
        for record in items:
            event.apply(record)
        return event

    # -- taking a record

    def apply(self, record: Record) -> bool:
        """Check the record against the event and take it; False for a result already counted (the same table
        store and match id, the same score): it is not to be stored again. ``EventError`` says why not."""
        changed = self._take(record)
        if changed:
            self.records += 1
            self._cache.clear()
            self._rows.clear()
        return changed

    def _take(self, record: Record) -> bool:
        if isinstance(record, Created):
            raise EventError(msg("the event is created already"))
        if isinstance(record, Draw):
            self._check_draw(record)
            self.order, self.seed = record.order, record.seed
            return True
        if isinstance(record, PutUpRecord):
            if self.spec.format != "apa_team":
                raise EventError(msg("only an APA team night has players put up"))
            verdict = may_put_up(self.spec.teams[record.team], tuple(self.put_up[record.team]),
                                 len(self.put_up[1 - record.team]), record.player)
            if not verdict.ok and verdict.why is not None:
                raise EventError(verdict.why)
            self.put_up[record.team].append(record.player)
            return True
        if isinstance(record, Result):
            return self._take_result(record)
        if isinstance(record, Corrected):
            self._take_correction(record)
            return True
        view = self._playable(record.match)
        if isinstance(record, Released):
            if view.status != "called" or view.table != record.table:
                raise EventError(msg("{match} is not called to table {table}: no call to release", match=record.match,
                                     table=record.table))
            del self.tables[record.match]
            self.calls.pop(record.match, None)
            self.released.setdefault(record.match, []).append(record.table)
            return True
        if self.spec.tables and record.table not in self.spec.tables:
            raise EventError(msg("no table {table} in this event (its tables: {tables})", table=record.table,
                                 tables=", ".join(self.spec.tables)))
        if isinstance(record, Called):
            if view.status not in ("ready", "called"):
                raise EventError(msg("{match} is {status}: it cannot be called", match=record.match,
                                     status=view.status))
            if record.expires is not None and view.status != "ready":
                raise EventError(msg("{match} is called to table {table} already: release that call first",
                                     match=record.match, table=str(view.table)))
            self.calls[record.match] = (self.records, record.expires)
        elif isinstance(record, Started):
            if view.status not in ("ready", "called"):
                raise EventError(msg("{match} is {status}: it cannot start", match=record.match, status=view.status))
            self.started.add(record.match)
        elif isinstance(record, Moved):
            if record.table == view.table:
                raise EventError(msg("{match} is at table {table} already", match=record.match, table=record.table))
            if record.score is not None:
                self._check_continued(view, record.score)
                self.continued[record.match] = (record.score, record.breaker or 0)
            else:
                self.continued.pop(record.match, None)
            self.started.discard(record.match)  # called again: to go on at the new table once it starts there
            self.calls[record.match] = (self.records, None)
        self.tables[record.match] = record.table
        return True

    def _check_continued(self, view: MatchView, score: tuple[int, int]) -> None:
        if view.race is None:
            raise EventError(msg("{match} is scored in APA points: it cannot go on from a score of racks",
                                 match=view.id))
        if score[0] >= view.race[0] or score[1] >= view.race[1]:
            raise EventError(msg("{a}-{b} ends a race to {r0}-{r1}: record it as the result, not a move", a=score[0],
                                 b=score[1], r0=view.race[0], r1=view.race[1]))

    def _check_draw(self, record: Draw) -> None:
        if self.order is not None:
            raise EventError(msg("the event is drawn already") if self.spec.format != "apa_team" else
                             msg("an APA team night has no draw: the captains put up their players"))
        if sorted(record.order) != sorted(self.spec.players):
            raise EventError(msg("a draw places every player of the event once"))
        if self.spec.seeding == "given" and (record.order != self.spec.players or record.seed is not None):
            raise EventError(msg("this event is seeded in the given order: its draw is the players as listed"))
        if self.spec.seeding == "drawn" and record.seed is None:
            raise EventError(msg("this event's seeding is drawn: the draw records its seed"))

    def _playable(self, match: str) -> MatchView:
        view = self.match(match)
        if view is None:
            raise EventError(msg("no match {match} in this event", match=match))
        if view.status == "waiting":
            raise EventError(msg("{match} waits for its players", match=match))
        if view.status == "bye":
            raise EventError(msg("{match} is a bye: no match is played", match=match))
        return view

    def _take_result(self, record: Result) -> bool:
        score_of(record.score)
        view = self._playable(record.match)
        played = self.played.get(record.match)
        key = (record.store, record.match_id)
        if played is not None:
            if record.store is not None and (played.store, played.match_id) == key and played.score == record.score:
                return False
            raise EventError(msg("{match} has its result already ({a}-{b}): correct it with a reason",
                                 match=record.match, a=played.score[0], b=played.score[1]))
        if record.store is not None:
            for other, result in self.played.items():
                if (result.store, result.match_id) == key:
                    raise EventError(msg("table store {store} match {id} is the result of {other} already",
                                         store=record.store, id=str(record.match_id), other=other))
        self.played[record.match] = _Played(record.score, self._winner(view, record.score), record.store,
                                            record.match_id)
        return True

    def _take_correction(self, record: Corrected) -> None:
        score_of(record.score)
        view = self._playable(record.match)
        played = self.played.get(record.match)
        if played is None:
            raise EventError(msg("{match} has no result to correct", match=record.match))
        if not record.reason.strip():
            raise EventError(msg("a correction needs its reason"))
        if played.score == record.score:
            raise EventError(msg("{match}'s result is {a}-{b} already", match=record.match, a=record.score[0],
                                 b=record.score[1]))
        winner = self._winner(view, record.score)
        blocked = self._blocked_by(record.match, winner != played.winner)
        if blocked is not None:
            raise EventError(msg("{match} cannot be corrected: {later} has begun on its result", match=record.match,
                                 later=blocked))
        self.played[record.match] = _Played(record.score, winner, played.store, played.match_id,
                                            [*played.corrections, record.reason])

    def _blocked_by(self, match: str, winner_changes: bool) -> str | None:
        """The first match that depends on ``match``'s result and has begun (called, started or played)."""
        plan = self.plans[match]
        for later in self.plans.values():
            begun = later.id in self.played or later.id in self.started or later.id in self.tables
            if not begun:
                continue
            if plan.side == "group" and later.side == "playoff":
                return later.id
            if winner_changes and any(isinstance(f, Winner | Loser) and f.match == match for f in later.feeds):
                return later.id
        return None

    def _winner(self, view: MatchView, score: tuple[int, int]) -> int:
        """Which player the score makes the winner, checked against the race (or the APA targets)."""
        if view.skills is not None:
            targets = (target(view.skills[0]), target(view.skills[1]))
            reached = [score[i] >= targets[i] for i in (0, 1)]
            if reached.count(True) != 1:
                raise EventError(msg("APA points {a}-{b}: exactly one player reaches his target ({t0} and {t1})",
                                     a=score[0], b=score[1], t0=targets[0], t1=targets[1]))
            return reached.index(True)
        assert view.race is not None
        reached = [score[i] == view.race[i] for i in (0, 1)]
        if reached.count(True) != 1 or score[0] > view.race[0] or score[1] > view.race[1]:
            raise EventError(msg("{a}-{b} does not end a race to {r0}-{r1}: the winner has his race, the loser less",
                                 a=score[0], b=score[1], r0=view.race[0], r1=view.race[1]))
        return reached.index(True)

    # -- reading the event

    def who(self, feed: Feed) -> Who:
        """The player a feed names as the event stands: a name, ``BYE``, or None while it is not known."""
        if isinstance(feed, Seed):
            if self.order is None or feed.n > len(self.order):
                return None
            return self.order[feed.n - 1]
        if isinstance(feed, Bye):
            return BYE
        if isinstance(feed, Winner | Loser):
            outcome = self.outcome(feed.match)
            return outcome[0] if isinstance(feed, Winner) else outcome[1]
        if isinstance(feed, Place):
            if not self.group_done(feed.group):
                return None
            rows = self.standings(feed.group)
            return rows[feed.place - 1].name if rows else None
        picks = self.put_up[feed.team]
        return picks[feed.slot - 1] if len(picks) >= feed.slot else None

    def outcome(self, match: str) -> tuple[Who, Who]:
        """(winner, loser) of a match once known; a bye's winner is the player facing it, its loser ``BYE``."""
        if match in self._cache:
            return self._cache[match]
        plan = self.plans[match]
        a, b = (self.who(f) for f in plan.feeds)
        result: tuple[Who, Who] = (None, None)
        if isinstance(a, Bye) and isinstance(b, Bye):
            result = (BYE, BYE)
        elif isinstance(a, Bye) and b is not None:
            result = (b, BYE)
        elif isinstance(b, Bye) and a is not None:
            result = (a, BYE)
        elif a is not None and b is not None and match in self.played:
            w = self.played[match].winner
            result = (a, b) if w == 0 else (b, a)
        self._cache[match] = result
        return result

    def reset_needed(self) -> bool | None:
        """A true double's second final: needed once the losers' side's player wins the first (None: not yet known)."""
        if "GF-2" not in self.plans:
            return False
        played = self.played.get("GF-1")
        return None if played is None else played.winner == 1

    def match(self, match: str) -> MatchView | None:
        """One match as it stands; None for no such match (or a reset final not needed)."""
        plan = self.plans.get(match)
        if plan is None or (plan.reset and not self.reset_needed()):
            return None
        a, b = (self.who(f) for f in plan.feeds)
        names = (a if isinstance(a, str) else None, b if isinstance(b, str) else None)
        skills = race = None
        if self.spec.format == "apa_team":
            if names[0] is not None and names[1] is not None:
                skills = (self.spec.teams[0].skill_of(names[0]) or 1, self.spec.teams[1].skill_of(names[1]) or 1)
        elif self.spec.handicap is not None:
            if names[0] is not None and names[1] is not None:
                race = self.spec.handicap.race(names[0], names[1])
        else:
            r = self.spec.races.race(plan.round, plan.side, plan.final)
            race = (r, r)
        played = self.played.get(match)
        if isinstance(a, Bye) or isinstance(b, Bye):
            status = "bye"
        elif names[0] is None or names[1] is None:
            status = "waiting"
        elif played is not None:
            status = "done"
        elif match in self.started:
            status = "playing"
        elif match in self.tables:
            status = "called"
        else:
            status = "ready"
        points = None
        if played is not None and skills is not None:
            loser = 1 - played.winner
            split = match_points(skills[loser], played.score[loser])
            points = (split[0], split[1]) if played.winner == 0 else (split[1], split[0])
        call = self.calls.get(match) if status in ("called", "playing") else None
        return MatchView(plan.id, plan.round, plan.side, names, race, skills, status, self.tables.get(match),
                         played.score if played else None, played.winner if played else None,
                         played.store if played else None, played.match_id if played else None, points,
                         tuple(played.corrections) if played else (), call[0] if call else None,
                         call[1] if call else None, self.continued.get(match) if played is None else None)

    def matches(self) -> list[MatchView]:
        """Every match of the event in order, byes and an unneeded reset final left out."""
        views = (self.match(m) for m in self.plans)
        return [v for v in views if v is not None and v.status != "bye"]

    def group_members(self, group: str) -> tuple[str, ...]:
        g = GROUP_NAMES.index(group)
        members = bracket.groups_of(len(self.spec.players), self.spec.groups)[g]
        return tuple(self.order[n - 1] for n in members) if self.order else ()

    def group_done(self, group: str) -> bool:
        return all(p.id in self.played for p in self.plans.values() if p.side == "group" and p.round[0] == group)

    def standings(self, group: str) -> tuple[Row, ...]:
        """The group's standings as played so far (final once ``group_done``)."""
        if group not in self._rows:
            self._rows[group] = self._standings(group)
        return self._rows[group]

    def _standings(self, group: str) -> tuple[Row, ...]:
        members = self.group_members(group)
        games = []
        for plan in self.plans.values():
            if plan.side == "group" and plan.round[0] == group and plan.id in self.played:
                a, b = (self.who(f) for f in plan.feeds)
                assert isinstance(a, str) and isinstance(b, str)
                games.append(Game((a, b), self.played[plan.id].score, self.played[plan.id].winner))
        return standings(members, games) if members else ()

    def team_totals(self) -> tuple[int, int]:
        """An APA team night's match points so far, each team's (out of 100 once the five matches are played)."""
        totals = [0, 0]
        for view in self.matches():
            if view.match_points is not None:
                totals[0] += view.match_points[0]
                totals[1] += view.match_points[1]
        return totals[0], totals[1]

    def champion(self) -> str | None:
        """The event's winner once it is decided: a player, or under APA the team with more match points."""
        form = self.spec.format
        if form == "apa_team":
            if len(self.played) < len(self.plans):
                return None
            a, b = self.team_totals()
            return None if a == b else self.spec.teams[0 if a > b else 1].name
        if form == "double":
            played = self.played.get("GF-1")
            if played is None:
                return None
            if self.reset_needed():
                return _name(self.outcome("GF-2")[0])
            return _name(self.outcome("GF-1")[0])
        if form == "round_robin" and not any(p.side == "playoff" for p in self.plans.values()):
            return self.standings("A")[0].name if self.group_done("A") and self.order else None
        last = list(self.plans.values())[-1]
        return _name(self.outcome(last.id)[0])

    def to_json(self) -> dict[str, Any]:
        """The event as it stands: what ``devetka event status --json`` prints and the director will publish; each
        match adds ``from``, where each side comes from (``{"winner_of": "W1-2"}``, ``{"seed": 3}``, ...)."""
        out: dict[str, Any] = {"name": self.spec.name, "format": self.spec.format, "drawn": self.order is not None,
                               "order": list(self.order or ()), "seed": self.seed, "records": self.records,
                               "planned": len(self.plans),
                               "matches": [{**m.to_json(), "from": [_feed_json(f) for f in self.plans[m.id].feeds]}
                                           for m in self.matches()],
                               "winner": self.champion()}
        if self.spec.format == "round_robin":
            out["groups"] = {GROUP_NAMES[g]: [r.to_json() for r in self.standings(GROUP_NAMES[g])]
                             for g in range(self.spec.groups)}
        if self.spec.format == "apa_team":
            out["teams"] = [t.name for t in self.spec.teams]
            out["put_up"] = [list(p) for p in self.put_up]
            out["totals"] = list(self.team_totals())
        return out


def _feed_json(feed: Feed) -> dict[str, Any]:
    """Where a side of a match comes from, for a bracket to say before its player is known ("winner of W1-2")."""
    if isinstance(feed, Seed):
        return {"seed": feed.n}
    if isinstance(feed, Winner):
        return {"winner_of": feed.match}
    if isinstance(feed, Loser):
        return {"loser_of": feed.match}
    if isinstance(feed, Place):
        return {"group": feed.group, "place": feed.place}
    if isinstance(feed, PutUp):
        return {"team": feed.team, "match": feed.slot}
    return {"bye": True}


def _name(who: Who) -> str | None:
    return who if isinstance(who, str) else None


def _plans(spec: EventSpec) -> tuple[Plan, ...]:
    n = len(spec.players)
    if spec.format == "single":
        return bracket.single(n)
    if spec.format == "double":
        return bracket.double(n, spec.final == "true_double")
    if spec.format == "round_robin":
        return bracket.round_robin(n, spec.groups, spec.advance)
    return bracket.team_night()


def drawn_order(players: tuple[str, ...], seed: int) -> tuple[str, ...]:
    """The players shuffled by ``seed``: the same seed gives the same order (the draw records both)."""
    order = list(players)
    random.Random(seed).shuffle(order)
    return tuple(order)


__all__ = ["BYE", "Event", "FOLD_VERSION", "MatchView", "PutUp", "drawn_order"]
