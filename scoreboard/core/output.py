"""The output lines of ``devetka replay`` (docs/match-log.md): shot, error and state objects."""

from __future__ import annotations

from typing import Any

from scoreboard.core.rules import State, Verdict, clock
from scoreboard.core.rules.apa import EMPTY_SHEET, timeouts_left
from scoreboard.core.rules.clock import TIME_RULE
from scoreboard.core.rules.three_fouls import warning


def shot_line(verdict: Verdict) -> dict[str, Any]:
    """A shot line; a foul between shots carries ``between_shots`` and no sensor fields.

    The fields of the later rule options are added only where they say something (ball in hand behind the
    head string, the choice after a failed break, APA points), so a match under the first release's rules
    gives the very lines it always gave.
    """
    line: dict[str, Any] = {
        "type": "shot", "rack": verdict.rack, "shot": verdict.shot, "shooter": verdict.shooter,
        "break": verdict.is_break, "push_out": verdict.push_out,
    }
    if verdict.between_shots:
        line["between_shots"] = True
    line["pocketed"] = list(verdict.pocketed)
    if not verdict.between_shots:
        line["scratch"] = verdict.scratch
        line["off_table"] = list(verdict.off_table)
    line["foul"] = verdict.foul
    line["rules"] = list(verdict.rules)
    line["respot_nine"] = verdict.respot_nine
    line["on_table"] = list(verdict.on_table)
    if not verdict.between_shots:
        line["assumed"] = list(verdict.assumed)
    line.update(
        next_shooter=verdict.next_shooter, ball_in_hand=verdict.ball_in_hand,
        push_out_allowed=verdict.push_out_allowed, fouls_in_row=list(verdict.fouls_in_row),
        warning=verdict.warning, rack_winner=verdict.rack_winner,
    )
    after = verdict.after
    if after is not None and (after.behind_head_string or after.break_choice):
        if after.behind_head_string:
            line["behind_head_string"] = True
        if after.break_choice:
            line["break_choice"] = True
    if any(call.rule == TIME_RULE for call in verdict.calls):
        line["time_foul"] = True
    if verdict.points_scored is not None:
        line["points_scored"] = verdict.points_scored
        line["safety"] = verdict.safety
        if verdict.rack_dead is not None:
            line["dead_balls"] = verdict.rack_dead
    return line


def error_line(position: int, message: str) -> dict[str, Any]:
    return {"type": "error", "line": position, "error": message}


def state_line(state: State | None) -> dict[str, Any]:
    """The state line; with no match started (no valid ``match_start``) its fields are empty."""
    if state is None:
        return {
            "type": "state", "players": None, "race": None, "score": [0, 0], "rack": 0, "breaker": None,
            "match_winner": None, "on_table": [], "shooter": None, "ball_in_hand": False,
            "push_out_allowed": False, "push_out": False, "awaiting_choice": False,
            "fouls_in_row": [0, 0], "warning": False,
        }
    table = state.table
    setup = state.setup
    return {
        "type": "state", "players": list(setup.players), "race": list(setup.race),
        "score": list(table.score), "rack": table.rack, "breaker": table.breaker,
        "match_winner": table.match_winner, "on_table": list(table.on_table),
        "shooter": table.shooter, "ball_in_hand": table.ball_in_hand,
        "push_out_allowed": table.push_out_allowed, "push_out": table.push_out,
        "awaiting_choice": table.awaiting_choice, "fouls_in_row": list(table.fouls_in_row),
        "warning": warning(setup.options, table.fouls_in_row, table.shooter),
        **_state_extras(state),
    }


def _state_extras(state: State) -> dict[str, Any]:
    """The fields of the later rule options, where they are set: ball in hand behind the head string, the choice
    after a failed break, the APA score sheet (points against targets; ``race`` is then not used: null)."""
    setup, table = state.setup, state.table
    options = setup.options
    extras: dict[str, Any] = {}
    if options.ball_in_hand == "behind_head_string":
        extras["behind_head_string"] = table.behind_head_string
    if options.break_failure == "option":
        extras["break_choice"] = table.break_choice
    if setup.targets is not None and setup.apa_skill is not None:
        sheet = table.sheet or EMPTY_SHEET
        extras.update(
            race=None, apa_skill=list(setup.apa_skill), points=list(sheet.points), targets=list(setup.targets),
            innings=sheet.innings, dead_balls=sheet.dead_balls, rack_dead_balls=sheet.rack_dead,
            safeties=list(sheet.safeties), timeouts_left=timeouts_left(setup, table),
        )
    if state.clock is not None or options.shot_clock:
        extras["shot_clock"] = shot_clock(state)
    if options.profile is not None:
        extras["profile"] = options.profile
    return extras


def shot_clock(state: State) -> dict[str, Any]:
    """The shot clock as the rules see it: on or off, the seconds of the turn due now (null when it is not timed:
    the break, a shot being played, a choice pending), the warning, each player's extensions left in the rack,
    and whether this turn has its extension. When it runs out is the daemon's to say (its clock)."""
    options = state.setup.options
    on = state.clock is not None and state.clock.on
    return {
        "on": on, "limit": clock.turn_limit(state), "warning": options.shot_clock_warning_s,
        "extension": options.shot_clock_extension_s,
        "extensions_left": list(clock.extensions_left(options, state.clock, state.table.rack)),
        "extended": clock.extended(state),
    }
