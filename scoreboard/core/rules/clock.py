"""The shot clock as the rules see it (WPA Tournament Regulation 20, docs/rules.md "The shot clock").

No time in here: the daemon owns the clock and writes what it saw as inputs (``shot_clock`` with ``expired``),
so a replay is the same anywhere. The rules say only whether the turn due now is timed, for how long
(``turn_limit``), who has an extension left, and whether a tap may be made: each as a small pure predicate
that returns the refusal, with the sentence a player reads, or None.

>>> from scoreboard.core.inputs import MatchStart, RuleOptions
>>> from scoreboard.core.rules.fold import start
>>> state = start(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0, options=RuleOptions(shot_clock=True)))
>>> turn_limit(state) is None, str(not_timed(state))
(True, 'the shot clock does not run for the break')
"""

from __future__ import annotations

from scoreboard.core.inputs import RuleOptions
from scoreboard.core.messages import msg
from scoreboard.core.rules.state import Call, Clock, RuleError, State, Table

#: The rule a time foul is ruled by in the shot line's ``rules``: WPA Tournament Regulation 20.
TIME_RULE = "TR20"
TIME_FOUL = Call(TIME_RULE, msg("the shot clock ran out"))


def at_start(options: RuleOptions) -> Clock | None:
    """A match played on the clock from its start (``rules.shot_clock``), or None: off until turned on."""
    return Clock(on=True, rack=1) if options.shot_clock else None


def turned(clock: Clock | None, on: bool, rack: int) -> Clock:
    """The clock after it is turned on or off; its extensions are kept for the rack (turning it off and on
    again gives none back)."""
    if clock is None:
        return Clock(on=on, rack=rack)
    return clock._replace(on=on)


def extensions_left(options: RuleOptions, clock: Clock | None, rack: int) -> tuple[int, int]:
    """Each player's extensions left in ``rack``: one a rack by default (TR20)."""
    full = options.shot_clock_extensions
    if clock is None or clock.rack != rack:
        return full, full
    return full - clock.used[0], full - clock.used[1]


def _turn(state: State) -> tuple[int, int, int]:
    table = state.table
    assert table.shooter is not None  # asked only while the match is on
    return table.rack, table.shot_no, table.shooter


def extended(state: State) -> bool:
    """The turn due now has its extension."""
    clock = state.clock
    return clock is not None and table_is_on(state) and clock.extended == _turn(state)


def table_is_on(state: State) -> bool:
    return state.table.match_winner is None and state.table.shooter is not None


def not_timed(state: State) -> RuleError | None:
    """Why the turn due now runs on no clock, or None when it does: the clock is on, the match on, no shot in
    progress, the rack broken (the clock starts when the balls stop, TR20) and no choice pending (it pauses)."""
    clock = state.clock
    table = state.table
    if clock is None or not clock.on:
        return RuleError(msg("the shot clock is off"), msg("The shot clock is off."))
    if not table_is_on(state):
        return RuleError(msg("the match is over"), msg("The match is over."))
    if state.shot is not None:
        return RuleError(msg("a shot is being played: the clock stopped when the cue ball was struck"),
                         msg("The shot is being played: the clock has stopped."))
    if table.shot_no == 0:
        return RuleError(msg("the shot clock does not run for the break"),
                         msg("The shot clock does not run for the break."))
    if table.awaiting_choice or table.break_choice:
        return RuleError(msg("the shot clock waits while the choice is made"),
                         msg("The clock waits while the choice is made."))
    return None


def after_break(state: State) -> bool:
    """The turn due now is the first shot after a legal break: its longer limit (TR20, at most 60 s). After a fouled
    or failed break it is an ordinary shot, as the Norwegian federation's rule 10.3.15 says; a match stored under
    rules version 1 keeps the longer limit after any break, as it was refereed."""
    if state.setup.rules_version < 2:
        return state.table.shot_no == 1
    return state.table.after_legal_break


def after_push_out(state: State) -> bool:
    """The turn due now is the shot after a push out and the match gives it a longer limit
    (``rules.shot_clock_after_push_out_s``; unset, it is an ordinary turn)."""
    return state.table.after_push_out and state.setup.options.shot_clock_after_push_out_s is not None


def _base_limit(state: State) -> int:
    """The turn's limit before any extension: the longer one after the break or a push out, else the ordinary."""
    options = state.setup.options
    if after_break(state):
        return options.shot_clock_after_break_s
    push_out = options.shot_clock_after_push_out_s
    if push_out is not None and state.table.after_push_out:
        return push_out
    return options.shot_clock_s


def turn_limit(state: State) -> int | None:
    """The seconds the turn due now has on the clock (its extension included), or None when it is not timed."""
    if not_timed(state) is not None:
        return None
    limit = _base_limit(state)
    return limit + state.setup.options.shot_clock_extension_s if extended(state) else limit


def no_switch(state: State, on: bool) -> RuleError | None:
    """A clock already on cannot be turned on, nor one that is off turned off."""
    is_on = state.clock is not None and state.clock.on
    if on and is_on:
        return RuleError(msg("the shot clock is already on"), msg("The shot clock is already on."))
    if not on and not is_on:
        return RuleError(msg("the shot clock is already off"), msg("The shot clock is already off."))
    return None


def no_extension(state: State) -> RuleError | None:
    """Why the player due now may not take an extension: a turn not timed, the shot after the break or (with its
    longer limit set) after a push out (its limit is the longer one: 60 s at most, TR20), this turn extended
    already, or his extensions in the rack used."""
    refused = not_timed(state)
    if refused is not None:
        return refused
    if after_break(state):
        return RuleError(msg("no extension on the first shot after the break: its longer limit is all it gets (TR20)"),
                         msg("No extension on the first shot after the break."))
    if after_push_out(state):
        return RuleError(msg("no extension on the shot after a push out: its longer limit is all it gets (TR20)"),
                         msg("No extension on the shot after a push out."))
    if extended(state):
        return RuleError(msg("this shot has its extension already"), msg("This shot has its extension already."))
    rack, _, shooter = _turn(state)
    if extensions_left(state.setup.options, state.clock, rack)[shooter] <= 0:
        name = state.setup.players[shooter]
        return RuleError(msg("{name} has no extension left in this rack (TR20)", name=name),
                         msg("{name} has no extension left in this rack.", name=name))
    return None


def with_extension(state: State) -> Clock:
    """The clock after the player due now takes his extension."""
    clock = state.clock
    assert clock is not None  # no_extension refused it otherwise
    rack, shot_no, shooter = _turn(state)
    used = clock.used if clock.rack == rack else (0, 0)
    taken = (used[0] + 1, used[1]) if shooter == 0 else (used[0], used[1] + 1)
    return clock._replace(rack=rack, used=taken, extended=(rack, shot_no, shooter))


def after_amend(before: State, table: Table) -> Clock | None:
    """The clock once a late input (a foul called after the fact, a ball named) has decided the last shot again and
    left ``table``: an extension taken in the turn that followed it is given back if that turn is no longer the one
    due (another player is at the table, or the rack is over). The turn was never the player's, so neither was its
    extension; TR20 gives one a rack for the player's own turns."""
    clock = before.clock
    if clock is None or not extended(before):
        return clock
    if (table.rack, table.shot_no, table.shooter) == clock.extended:
        return clock
    used, shooter = clock.used, whose_extension(before)
    return clock._replace(used=(used[0] - 1, used[1]) if shooter == 0 else (used[0], used[1] - 1), extended=None)


def whose_extension(state: State) -> int:
    """The player whose turn due now has the extension (asked only when it has one)."""
    return _turn(state)[2]


def no_expiry(state: State) -> RuleError | None:
    """The clock can run out only on a turn it times."""
    return not_timed(state)
