"""The rulings in words a player understands at the table: one line per verdict.

Words are made when they are read (``explain(verdict)``), not when a shot is
decided, so folding a long log does not pay for sentences nobody reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from scoreboard.core.inputs import (
    Accept,
    BetweenShots,
    Concede,
    Extension,
    Pass,
    PushOut,
    Rerack,
    ShotClock,
    Stalemate,
    Timeout,
)
from scoreboard.core.rules.clock import TIME_RULE
from scoreboard.core.rules.state import Table, Verdict, other

NOTED = (PushOut, Accept, Pass, Stalemate, Concede, Rerack, Timeout, ShotClock, Extension)


def balls(numbers: Iterable[int]) -> str:
    """'the 3', 'the 3 and 5', 'the 2, 3 and 5'."""
    names = [str(n) for n in numbers]
    if len(names) == 1:
        return f"the {names[0]}"
    return f"the {', '.join(names[:-1])} and {names[-1]}"


def _score(table: Table) -> str:
    return f"{table.score[0]}-{table.score[1]}"


def _rack_result(players: tuple[str, str], table: Table, winner: int) -> str:
    """What winning the rack means: the next break, or the match."""
    if table.match_winner is not None:
        return f" {players[winner]} wins the match {_score(table)}."
    return f" Score {_score(table)}; {players[table.breaker]} breaks rack {table.rack}."


def _next(players: tuple[str, str], after: Table, warning: bool) -> str:
    """Who is at the table next, and what they may do."""
    assert after.shooter is not None  # the rack goes on: someone is at the table
    name = players[after.shooter]
    if after.awaiting_choice:
        text = f" {name} chooses: shoot from here, or pass it back (5.6)."
    elif after.break_choice:
        text = f" {name} chooses: take the table as it lies, or have it re-racked and break."
    elif after.ball_in_hand and after.behind_head_string:
        text = f" {name} has ball in hand behind the head string."
    elif after.ball_in_hand:
        text = f" {name} has ball in hand."
    else:
        text = ""
    if after.push_out_allowed:
        text += f" {name} may push out (5.5)."
    if warning:
        text += f" {name} is on two fouls: a third loses the rack (5.13)."
    return text


def explain(verdict: Verdict) -> str:
    """One line on a verdict, e.g. 'Foul 5.8: the 3 was hit before the 1. Ben has ball in hand.'."""
    if verdict.between_shots:
        return _between_shots(verdict)
    players, calls, after = verdict.players, verdict.calls, verdict.after
    assert after is not None  # the rules' verdicts say the table they leave
    name = players[verdict.shooter]
    pocketed = verdict.pocketed
    if calls and after.break_choice:
        text = f"Failed break {calls[0].rule}: {calls[0].reason}."
    elif calls:
        rules = ", ".join(dict.fromkeys(call.rule for call in calls))
        text = f"Foul {rules}: " + "; ".join(call.reason for call in calls) + "."
        if verdict.rack_winner is not None:
            text += f" Third foul in a row: {name} loses the rack (5.13)."
    elif verdict.push_out:
        down = [ball for ball in pocketed if ball != 9]
        stay = f"; {balls(down)} {'stays' if len(down) == 1 else 'stay'} down" if down else ""
        text = f"Push out (5.6) by {name}{stay}."
    elif verdict.rack_winner is not None:
        where = " on the break" if verdict.is_break else ""
        text = f"{name} pocketed the 9{where} and wins the rack (5.15)."
    elif verdict.is_break:
        again = f", {name} shoots again." if after.match_winner is None else "."
        text = f"Legal break (5.4) by {name}" + (f": {balls(pocketed)} down{again}" if pocketed else ".")
    elif pocketed:
        text = f"{name} pocketed {balls(pocketed)}" + (" and shoots again." if after.match_winner is None else ".")
    else:
        text = f"{name} missed (5.1)."
    if verdict.respot_nine:
        text += " Respot the 9 on the foot spot."
    if verdict.points_scored is not None:
        text += _points(players, verdict)
        if after.match_winner is not None and verdict.rack_winner is None:
            return text + f" {name} reaches the target and wins the match."
    if verdict.assumed:
        if len(verdict.assumed) == 1:
            text += f" The unnamed ball was taken as {balls(verdict.assumed)}: tap the ball if it was another."
        else:
            text += f" The unnamed balls were taken as {balls(verdict.assumed)}: tap the balls if they were others."
    if verdict.rack_winner is not None:
        return text + _rack_result(players, after, verdict.rack_winner)
    if not calls and not verdict.push_out and after.shooter != verdict.shooter:
        assert after.shooter is not None  # the rack goes on: someone is at the table
        text += f" {players[after.shooter]} to shoot."
    return text + _next(players, after, verdict.warning)


def _points(players: tuple[str, str], verdict: Verdict) -> str:
    """APA scoring: what the shot scored and the points each player has (rules/apa.py)."""
    after = verdict.after
    assert after is not None and after.sheet is not None  # APA verdicts carry the score sheet
    scored = verdict.points_scored or 0
    text = " Safety." if verdict.safety else ""
    if scored:
        points = after.sheet.points
        text += f" {players[verdict.shooter]} scores {scored}: {players[0]} {points[0]}, {players[1]} {points[1]}."
    if verdict.rack_dead:
        text += f" Dead balls this rack: {verdict.rack_dead}."
    return text


def _between_shots(verdict: Verdict) -> str:
    """A foul between shots (R5): 'Foul 5.12 between shots by Ben: a ball was moved. Ana has ball in hand.'."""
    players, after = verdict.players, verdict.after
    assert after is not None  # the rules' verdicts say the table they leave
    name = players[verdict.shooter]
    call = verdict.calls[0]
    if call.rule == TIME_RULE:
        text = f"Time foul ({call.rule}) by {name}: {call.reason}."
    else:
        text = f"Foul {call.rule} between shots by {name}: {call.reason}."
    if verdict.rack_winner is not None:
        text += f" Third foul in a row: {name} loses the rack (5.13)."
        return text + _rack_result(players, after, verdict.rack_winner)
    return text + _next(players, after, verdict.warning)


def note(players: tuple[str, str], item: BetweenShots | ShotClock | Extension, after: Table,
         before: Table | None = None) -> str | None:
    """An input between shots in words: a push out, the choice after it (or after a failed break), a stalemate,
    a concession, a re-rack, a timeout, the shot clock turned on or off, an extension. None for the clock run
    out: its shot line says it."""
    kind = type(item)
    if isinstance(item, ShotClock):
        if item.on is None:
            return None
        return "The shot clock is on (TR20)." if item.on else "The shot clock is off."
    if kind is Extension:
        assert after.shooter is not None  # an extension is taken only while the match is on
        return f"{players[after.shooter]} takes an extension on the shot clock (TR20)."
    if kind is Accept and before is not None and before.break_choice:
        assert after.shooter is not None
        return f"{players[after.shooter]} takes the table as it lies after the failed break."
    if kind is PushOut:
        assert after.shooter is not None  # a push out, and the choice after it, leave someone at the table
        return f"{players[after.shooter]} announces a push out (5.6)."
    if kind is Accept:
        assert after.shooter is not None
        return f"{players[after.shooter]} takes the shot after the push out (5.6)."
    if kind is Pass:
        assert after.shooter is not None
        return f"{players[other(after.shooter)]} passes the shot back; {players[after.shooter]} must shoot (5.6, R3)."
    if kind is Stalemate:
        return f"Stalemate (5.14): the rack is replayed; {players[after.breaker]} breaks rack {after.rack}."
    if kind is Rerack:
        return f"The balls are racked again; {players[after.breaker]} breaks rack {after.rack}."
    if kind is Timeout:
        assert after.shooter is not None
        return f"{players[after.shooter]} takes a timeout."
    item = cast(Concede, item)  # the one kind left (mypy does not narrow item by kind)
    scope = "match" if item.scope == "match" else "rack"
    text = f"{players[item.player]} concedes the {scope} (R9)."
    if after.match_winner is not None:
        return text + f" {players[after.match_winner]} wins the match {_score(after)}."
    return text + _rack_result(players, after, other(item.player))


def shot_in_brief(verdict: Verdict, in_progress: bool = False) -> str:
    """A shot named in a few words, for what ``undo_shot`` takes back: 'Ben's shot, the 3 pocketed, foul 5.8'.

    A shot still in progress is not ruled yet, so no foul is named for it.
    """
    kind = "break" if verdict.is_break else "push out" if verdict.push_out else "shot"
    parts = [f"{verdict.players[verdict.shooter]}'s {kind}" + (" in progress" if in_progress else "")]
    if verdict.pocketed:
        parts.append(f"{balls(verdict.pocketed)} pocketed")
    if verdict.foul and not in_progress:
        rules = dict.fromkeys(call.rule for call in verdict.calls) or dict.fromkeys(verdict.rules)
        parts.append("foul " + ", ".join(rules))
    return ", ".join(parts)
