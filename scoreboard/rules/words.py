"""The rulings in words a player understands at the table: one line per verdict."""

from __future__ import annotations

from scoreboard.rules.fouls import Call, balls
from scoreboard.rules.state import Setup, Table


def _score(table: Table) -> str:
    return f"{table.score[0]}-{table.score[1]}"


def _rack_result(setup: Setup, table: Table, winner: int) -> str:
    """What winning the rack means: the next break, or the match."""
    name = setup.players[winner]
    if table.match_winner is not None:
        return f" {name} wins the match {_score(table)}."
    return f" Score {_score(table)}; {setup.players[table.breaker]} breaks rack {table.rack}."


def _next(setup: Setup, after: Table, warning: bool) -> str:
    """Who is at the table next, and what they may do."""
    name = setup.players[after.shooter]
    if after.awaiting_choice:
        text = f" {name} chooses: shoot from here, or pass it back (5.6)."
    elif after.ball_in_hand:
        text = f" {name} has ball in hand."
    else:
        text = ""
    if after.push_out_allowed:
        text += f" {name} may push out (5.5)."
    if warning:
        text += f" {name} is on two fouls: a third loses the rack (5.13)."
    return text


def shot(setup: Setup, shooter: int, is_break: bool, is_push_out: bool, calls: list[Call],
         pocketed: tuple[int, ...], assumed: tuple[int, ...], respot: bool, rack_winner: int | None,
         after: Table, warning: bool) -> str:
    """One line on a shot's verdict, e.g. 'Foul 5.8: the 3 was hit before the 1. Ben has ball in hand.'."""
    name = setup.players[shooter]
    objects = [ball for ball in pocketed if ball != 9]
    if calls:
        rules = ", ".join(dict.fromkeys(call.rule for call in calls))
        text = f"Foul {rules}: " + "; ".join(call.reason for call in calls) + "."
        if rack_winner is not None:
            text += f" Third foul in a row: {name} loses the rack (5.13)."
    elif is_push_out:
        text = f"Push out (5.6) by {name}" + (f"; {balls(pocketed)} stay down" if objects else "") + "."
    elif rack_winner is not None:
        where = " on the break" if is_break else ""
        text = f"{name} pocketed the 9{where} and wins the rack (5.15)."
    elif is_break:
        text = f"Legal break (5.4) by {name}" + (f": {balls(pocketed)} down, {name} shoots again." if pocketed else ".")
    elif pocketed:
        text = f"{name} pocketed {balls(pocketed)} and shoots again."
    else:
        text = f"{name} missed (5.1)."
    if respot:
        text += " Respot the 9 on the foot spot."
    if assumed:
        text += f" The unnamed ball was taken as {balls(assumed)}: tap the ball if it was another."
    if rack_winner is not None:
        return text + _rack_result(setup, after, rack_winner)
    if not calls and not is_push_out and after.shooter != shooter:
        text += f" {setup.players[after.shooter]} to shoot."
    return text + _next(setup, after, warning)


def between_shots(setup: Setup, player: int, call: Call, rack_winner: int | None, after: Table,
                  warning: bool) -> str:
    """A foul between shots (R5): 'Foul 5.12 between shots: Ben moved a ball. Ana has ball in hand.'."""
    text = f"Foul {call.rule} between shots by {setup.players[player]}: {call.reason}."
    if rack_winner is not None:
        text += f" Third foul in a row: {setup.players[player]} loses the rack (5.13)."
        return text + _rack_result(setup, after, rack_winner)
    return text + _next(setup, after, warning)


def foul_between(reason: str) -> Call:
    return Call("5.12", "a ball was moved") if reason == "moved_ball" else Call("5.7", "a foul was called")
