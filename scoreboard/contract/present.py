"""The one presenter: every served record is built here, from the rules core's values and the daemon's.

The referee hands over its own fields by name (``state``); the core's state line, rulings and inputs are put into
records here, so MQTT's verdict events and the state's ``last_verdict`` are one shape. ``served`` turns a record
into the JSON-ready object the adapters send: they only serialise it.

>>> from scoreboard.core.inputs import MatchStart
>>> from scoreboard.core.match import Match
>>> match = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
>>> served(refusal(7, "wrong PIN", "pogrešan PIN", "pin_wrong"))
{'id': 7, 'ok': False, 'error': 'wrong PIN', 'words': 'pogrešan PIN', 'code': 'pin_wrong'}
"""

from __future__ import annotations

from typing import Any

import msgspec

from scoreboard.contract.records import CONTRACT, Code, Event, InputEvent, Record, Refusal, Ruling, State, VerdictEvent
from scoreboard.core.facts import facts
from scoreboard.core.inputs import Input, to_json
from scoreboard.core.match import Conceded
from scoreboard.core.messages import ENGLISH, Catalog, render
from scoreboard.core.messages import to_json as message_json
from scoreboard.core.output import shot_line, state_line
from scoreboard.core.rules import Step, Verdict
from scoreboard.core.rules.state import State as Fold
from scoreboard.core.rules.words import cites
from scoreboard.core.rules.words import ruling as said


def state(fold: Fold | None, *, last: Verdict | None = None, conceded: Conceded | None = None,
          words: Catalog = ENGLISH, clock: dict[str, Any] | None = None, **daemon: Any) -> State:
    """The state record: the fold's state line (``fold`` None: no match), its rule facts (``last``: its last
    ruling; ``conceded``: the concession that ended the last rack, if no shot was ruled since; in ``words``) and
    the daemon's fields, by name; the daemon's part of the shot clock (``clock``: when the turn runs out) beside
    the rules' part, where it is on.

    Every field is checked against the record here: a field it does not declare, or a value of the wrong type,
    raises rather than being served.
    """
    line = state_line(fold)
    if clock is not None and "shot_clock" in line:
        line["shot_clock"] = {**line["shot_clock"], **clock}
    served = facts(fold, last, conceded)
    now = served["ruling_now"]
    if now is not None:
        served["ruling_now"] = {"words": render(now, words), "message": message_json(now)}
    given = served["conceded"]
    if given is not None:
        served["conceded"] = dict(given, words=render(given["message"], words), message=message_json(given["message"]))
    return msgspec.convert({**line, "contract": CONTRACT, **served, **daemon}, State)


def ruling(verdict: Verdict, words: Catalog) -> Ruling:
    """A ruling: its shot line, its words in the players' language, as messages, and the rules they cite."""
    message = said(verdict)
    return msgspec.convert(dict(shot_line(verdict), words=render(message, words), message=message_json(message),
                                cites=list(cites(verdict, message))), Ruling)


def events(store: str | None, match_id: int | None, seq: int, item: Input, step: Step | None,
           words: Catalog) -> list[Event]:
    """The events of one stored input: the input, then the ruling it gave, if any."""
    out: list[Event] = [InputEvent(store=store, match_id=match_id, seq=seq, input=to_json(item))]
    if step is not None and step.verdict is not None:
        out.append(VerdictEvent(store=store, match_id=match_id, seq=seq, amends=step.amends,
                                verdict=ruling(step.verdict, words)))
    return out


def refusal(request_id: Any, error: str, words: str | None, code: Code) -> Refusal:
    """A refused request's answer."""
    return Refusal(id=request_id, ok=False, error=error, words=words, code=code)


def served(record: Record) -> dict[str, Any]:
    """A record as the JSON object sent (a field ``UNSET`` left out)."""
    out: dict[str, Any] = msgspec.to_builtins(record)
    return out
