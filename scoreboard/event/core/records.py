"""The records of the event log (docs/events.md, "The event log"): typed, checked, written back as JSON.

Every record carries ``type`` and ``v`` (``RECORD_VERSION``); unknown fields are ignored, as in the match log. A
record of a type this release does not know, or of a later ``v``, is refused by name rather than folded under
rules it does not know.

>>> parse({"type": "result", "v": 1, "match": "W1-1", "score": [3, 1]})
Result(match='W1-1', score=(3, 1), store=None, match_id=None, seq=None)
>>> to_json(Moved("W1-1", "t2"))
{'type': 'moved', 'v': 1, 'match': 'W1-1', 'table': 't2'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoreboard.core.messages import Message, msg

RECORD_VERSION = 1
"""1: the first release of the event log."""
SCORE_MAX = 9999


class EventError(ValueError):
    """A record that cannot be taken: malformed, or refused by the event's rules; ``message`` says why in any
    language (``str(error)`` is the English)."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


@dataclass(frozen=True, slots=True)
class Created:
    """The event begins: its file as checked (``EventSpec.to_json``) and the fold version it is folded under."""

    spec: dict[str, Any]
    version: int = 1


@dataclass(frozen=True, slots=True)
class Draw:
    """The entrants in seed order; ``seed`` is the random seed they were drawn with (None: the given order). The
    order is what the fold reads, so a draw means the same under any later Python's random."""

    order: tuple[str, ...]
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class PutUpRecord:
    """An APA captain puts up a player for the team's next match."""

    team: int
    player: str


@dataclass(frozen=True, slots=True)
class Called:
    """The match is called to a table. ``expires`` (seconds since the epoch, the director's clock) is when a table
    that has not answered the call by then must refuse it; None for a call made by hand (``event move``)."""

    match: str
    table: str
    expires: float | None = None


@dataclass(frozen=True, slots=True)
class Released:
    """A call that ended without its match beginning: the table refused it (``reason`` is the table's code), the
    players said not now (``not_now``), no answer came before it expired (``expired``), or another table began the
    match from an earlier call (``begun_elsewhere``); the match is ready again."""

    match: str
    table: str
    reason: str


@dataclass(frozen=True, slots=True)
class Started:
    match: str
    table: str


@dataclass(frozen=True, slots=True)
class Moved:
    """The match goes on at another table (the one it was at failed, or the director wants the TV table).
    ``score`` and ``breaker``: the racks won and who was to break, as the first table last served them; the match
    is called to the new table to go on from there (a ``match_start`` with ``start_score``)."""

    match: str
    table: str
    score: tuple[int, int] | None = None
    breaker: int | None = None


@dataclass(frozen=True, slots=True)
class Result:
    """A match's end: racks won (or APA points) by each player. ``store`` and ``match_id`` name the table's stored
    match (None for a result entered by hand): a result with the same pair counts once."""

    match: str
    score: tuple[int, int]
    store: str | None = None
    match_id: int | None = None
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class Corrected:
    """A recorded result changed by hand, with the reason."""

    match: str
    score: tuple[int, int]
    reason: str


Record = Created | Draw | PutUpRecord | Called | Started | Moved | Result | Corrected | Released

TYPES: dict[str, type[Any]] = {"created": Created, "draw": Draw, "put_up": PutUpRecord, "called": Called,
                               "started": Started, "moved": Moved, "result": Result, "corrected": Corrected,
                               "released": Released}
_NAMES = {kind: name for name, kind in TYPES.items()}


def to_json(record: Record) -> dict[str, Any]:
    out: dict[str, Any] = {"type": _NAMES[type(record)], "v": RECORD_VERSION}
    for name in record.__slots__:
        value = getattr(record, name)
        if value is None:
            continue
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


def _bad(kind: str, field: str, expected: Message) -> EventError:
    return EventError(msg("{kind} record: {field} must be {expected}", kind=kind, field=field, expected=expected))


def _str(raw: dict[str, Any], kind: str, field: str) -> str:
    value = raw.get(field)
    if not isinstance(value, str) or not value.strip():
        raise _bad(kind, field, msg("a non-empty string"))
    return value


def _int(raw: dict[str, Any], kind: str, field: str, optional: bool = False) -> int | None:
    value = raw.get(field)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _bad(kind, field, msg("a whole number >= 0"))
    return value


def score_of(value: Any) -> tuple[int, int]:
    """A score pair: two whole numbers from 0 to 9999. Who won is the race's to say (under a handicap race the
    winner may have fewer racks than the loser, or as many)."""
    if (not isinstance(value, list | tuple) or len(value) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= SCORE_MAX for n in value)):
        raise EventError(msg("a score is two whole numbers from 0 to {most}, such as 7-5", most=SCORE_MAX))
    return value[0], value[1]


def parse(raw: Any) -> Record:
    """One stored (or sent) record, checked for shape; the event's rules are the fold's to apply."""
    if not isinstance(raw, dict):
        raise EventError(msg("a record is a JSON object"))
    kind = raw.get("type")
    if kind not in TYPES:
        raise EventError(msg("unknown record type {kind}", kind=repr(kind)))
    version = raw.get("v", RECORD_VERSION)
    if not isinstance(version, int) or version > RECORD_VERSION:
        raise EventError(msg("{kind} record of version {v}: this release reads version {ours} and before",
                             kind=kind, v=repr(version), ours=RECORD_VERSION))
    if kind == "created":
        spec = raw.get("spec")
        if not isinstance(spec, dict):
            raise _bad(kind, "spec", msg("the event file as a JSON object"))
        return Created(spec, _int(raw, kind, "version") or 1)
    if kind == "draw":
        order = raw.get("order")
        if not isinstance(order, list) or not all(isinstance(n, str) for n in order):
            raise _bad(kind, "order", msg("a list of names"))
        return Draw(tuple(order), _int(raw, kind, "seed", optional=True))
    if kind == "put_up":
        team = raw.get("team")
        if team not in (0, 1) or isinstance(team, bool):
            raise _bad(kind, "team", msg("0 or 1"))
        return PutUpRecord(team, _str(raw, kind, "player"))
    if kind == "called":
        expires = raw.get("expires")
        if expires is not None and (not isinstance(expires, int | float) or isinstance(expires, bool) or expires < 0):
            raise _bad(kind, "expires", msg("seconds since the epoch or null"))
        return Called(_str(raw, kind, "match"), _str(raw, kind, "table"),
                      None if expires is None else float(expires))
    if kind == "released":
        return Released(_str(raw, kind, "match"), _str(raw, kind, "table"), _str(raw, kind, "reason"))
    if kind == "moved":
        score = raw.get("score")
        breaker = raw.get("breaker")
        if breaker not in (None, 0, 1) or isinstance(breaker, bool):
            raise _bad(kind, "breaker", msg("0 or 1"))
        return Moved(_str(raw, kind, "match"), _str(raw, kind, "table"), None if score is None else score_of(score),
                     breaker)
    if kind in ("started", "moved"):
        cls = TYPES[kind]
        record: Record = cls(_str(raw, kind, "match"), _str(raw, kind, "table"))
        return record
    if kind == "result":
        store = raw.get("store")
        if store is not None and (not isinstance(store, str) or not store):
            raise _bad(kind, "store", msg("a table store's id or null"))
        match_id = _int(raw, kind, "match_id", optional=True)
        if (store is None) != (match_id is None):
            raise EventError(msg("result record: store and match_id come together, or neither"))
        return Result(_str(raw, kind, "match"), score_of(raw.get("score")), store, match_id,
                      _int(raw, kind, "seq", optional=True))
    return Corrected(_str(raw, kind, "match"), score_of(raw.get("score")), _str(raw, kind, "reason"))
