"""What the players may tap now, and why not: each tap tried on the fold, nothing kept.

The touchscreen, the demo and the venue board draw their buttons from these, so a button can never
disagree with the referee: a tap the fold would refuse is served as ``{"ok": false, "why": ...}``,
with the sentence a player reads (the rule's own where it gives one, ``RuleError.why``), in the language of the
catalog passed in (English by default).

>>> from scoreboard.core.inputs import MatchStart
>>> from scoreboard.core.match import Match
>>> served = actions(Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0)))
>>> served["push_out"]
{'ok': False, 'why': 'A push out may be announced only on the first shot after the break (5.6).'}
>>> served["concede"]["0"]["rack"], served["identify"]["3"]["ok"]
({'ok': True}, False)
"""

from __future__ import annotations

from typing import Any

from scoreboard.core.inputs import (
    CONCEDE_SCOPES,
    FOUL_REASONS,
    Accept,
    Concede,
    Extension,
    Foul,
    Identify,
    Input,
    Miss,
    OffTable,
    Pass,
    PushOut,
    Rerack,
    Safety,
    Settle,
    ShotClock,
    Stalemate,
    Timeout,
    Undo,
    UndoShot,
)
from scoreboard.core.match import Match
from scoreboard.core.messages import ENGLISH, Catalog, Message, msg, render

#: The plain taps, and the sentence shown when the rule that refuses one gives none of its own.
TAPS: dict[str, tuple[Input, Message]] = {
    "push_out": (PushOut(), msg("A push out cannot be announced now.")),
    "accept": (Accept(), msg("There is no push out to answer (5.6).")),
    "pass": (Pass(), msg("There is no push out to answer (5.6).")),
    "undo": (Undo(), msg("Nothing to take back yet.")),
    "undo_shot": (UndoShot(), msg("No shot to take back yet.")),
    "miss": (Miss(), msg("The shot cannot be ended as a miss now.")),
    "stalemate": (Stalemate(), msg("A stalemate cannot be called now (5.14).")),
    "safety": (Safety(), msg("This shot cannot be marked as a safety now.")),
    "timeout": (Timeout(), msg("A timeout cannot be taken now.")),
    "rerack": (Rerack(), msg("A re-rack may be asked for only after a failed break.")),
    "extension": (Extension(), msg("No extension can be taken now.")),
    "time_foul": (ShotClock(expired=True), msg("The shot clock is not running.")),
}
#: The shot clock turned on and off (TR20): a player's or the venue's demand.
CLOCK_SWITCHES = {"on": True, "off": False}

Action = dict[str, Any]

NO_SHOT_ON = msg("No shot is in progress: there is nothing to end.")


def _tried(match: Match, item: Input, otherwise: Message, catalog: Catalog) -> Action:
    error = match.trial(item)
    if error is None:
        return {"ok": True}
    return {"ok": False, "why": render(error.why or otherwise, catalog)}


def refused(why: Message, catalog: Catalog = ENGLISH) -> dict[str, Any]:
    """Every tap refused for one reason: no match is being played."""
    no: Action = {"ok": False, "why": render(why, catalog)}
    return {**{name: no for name in TAPS}, "settle": no, "foul": {reason: no for reason in FOUL_REASONS},
            "shot_clock": {name: no for name in CLOCK_SWITCHES},
            "concede": {str(player): {scope: no for scope in CONCEDE_SCOPES} for player in (0, 1)},
            "identify": {str(ball): no for ball in range(1, 10)}, "off_table": {str(ball): no for ball in range(0, 10)}}


def actions(match: Match, catalog: Catalog = ENGLISH) -> dict[str, Any]:
    """Every tap the touchscreen offers, tried on ``match``: ``{"ok": true}`` or ``{"ok": false, "why": ...}``,
    the why in the catalog's language."""
    served: dict[str, Any] = {name: _tried(match, item, why, catalog) for name, (item, why) in TAPS.items()}
    # The fold ignores a settle with no shot on; as a tap ("Shot over") it is offered only while one is.
    served["settle"] = (_tried(match, Settle(), NO_SHOT_ON, catalog) if match.state.shot is not None
                        else {"ok": False, "why": render(NO_SHOT_ON, catalog)})
    cannot_call = msg("This foul cannot be called now.")
    served["foul"] = {reason: _tried(match, Foul(reason), cannot_call, catalog) for reason in FOUL_REASONS}
    cannot_switch = msg("The shot clock cannot be switched now.")
    served["shot_clock"] = {name: _tried(match, ShotClock(on=on), cannot_switch, catalog)
                            for name, on in CLOCK_SWITCHES.items()}
    nothing = msg("Nothing to concede now.")
    served["concede"] = {str(player): {scope: _tried(match, Concede(player, scope), nothing, catalog)
                                       for scope in CONCEDE_SCOPES}
                         for player in (0, 1)}
    unnamed = msg("No pocketed ball is waiting to be named.")
    served["identify"] = {str(ball): _tried(match, Identify(ball), unnamed, catalog) for ball in range(1, 10)}
    cannot_off = msg("That ball cannot be called off the table now.")
    served["off_table"] = {str(ball): _tried(match, OffTable(ball), cannot_off, catalog) for ball in range(0, 10)}
    return served
