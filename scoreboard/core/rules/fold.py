"""The pure fold of nine-ball: ``evolve(state, input) -> Step``.

Each input either returns a new ``Step`` or raises ``RuleError`` and leaves the
state as it was. A shot's verdict is always decided from the table before it
and its events, so a late foul, an identification or a slow ball (with a strike
sensor) amends the last shot by deciding it again.

>>> from scoreboard.core.inputs import MatchStart, Strike, FirstContact, Cushion, Settle
>>> state = start(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
>>> for item in [Strike(), FirstContact(1)] + [Cushion(ball) for ball in (2, 4, 6, 7)]:
...     state = evolve(state, item).state
>>> from scoreboard.core.rules.words import explain
>>> explain(evolve(state, Settle()).verdict)
'Legal break (5.4) by Ana. Ben to shoot. Ben may push out (5.5).'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from scoreboard.core.inputs import (
    Accept,
    BetweenShots,
    Concede,
    Cushion,
    Extension,
    FirstContact,
    Foul,
    Identify,
    Input,
    MatchStart,
    Miss,
    OffTable,
    Pass,
    Pocket,
    PushOut,
    Rerack,
    Safety,
    Settle,
    ShotClock,
    ShotEvent,
    Stalemate,
    Strike,
    Timeout,
    Undo,
    UndoShot,
)
from scoreboard.core.messages import msg
from scoreboard.core.rules import apa, break_choice, clock, facts, fouls, push_out, racks
from scoreboard.core.rules.decide import decide, foul_between_shots
from scoreboard.core.rules.fouls import foul_between
from scoreboard.core.rules.state import (
    RULES_VERSION,
    RuleError,
    Setup,
    Shot,
    State,
    Step,
    Table,
    first_rack,
    rack_table,
)

_step = tuple.__new__  # builds a Step without its Python-level __new__, on the path every sensor input takes


def start(item: MatchStart, rules_version: int = RULES_VERSION) -> State:
    """The state of a new match (5.2, 5.3), refereed under ``rules_version`` for good."""
    if not 1 <= rules_version <= RULES_VERSION:
        raise RuleError(msg("rules version {version} is not one this release knows (1 to {newest}): a newer release "
                            "stored this match", version=rules_version, newest=RULES_VERSION))
    skills = item.apa_skill if item.options.apa else None
    setup = Setup(players=item.players, race=item.race, first_breaker=item.breaker,
                  options=item.options, table=item.table, rules_version=rules_version,
                  apa_skill=skills, targets=apa.targets(skills) if skills is not None else None)
    table = first_rack(setup)
    if item.start_score is not None:  # a continued match: the racks won at the table it left
        table = rack_table(item.start_score, sum(item.start_score) + 1, item.breaker)
    if skills is not None:
        table = table._replace(sheet=apa.EMPTY_SHEET)
    return State(setup=setup, table=table, clock=clock.at_start(item.options))


def evolve(state: State, item: Input) -> Step:
    """Fold one input into the match, or raise ``RuleError`` saying why it makes no sense here."""
    handler = _HANDLERS.get(type(item))
    if handler is None:
        raise RuleError(msg("{kind} is not an input of the match log", kind=type(item).__name__))
    if state.table.match_winner is not None and type(item) is not Foul:
        raise _match_over(state)
    return handler(state, item)


def _match_over(state: State) -> RuleError:
    assert state.table.match_winner is not None  # asked only once the match is won
    winner = state.setup.players[state.table.match_winner]
    return RuleError(msg("the match is over ({name} won): only undo, or a late foul on the winning shot", name=winner),
                     msg("The match is over: {name} won.", name=winner))


def _finish(state: State) -> Step:
    """End the shot in progress (if any): its verdict, and the shot kept open for late inputs."""
    if state.shot is None:
        return Step(state)
    table, verdict = decide(state.setup, state.shot)
    return Step(State(state.setup, table, None, state.shot, (), state.clock), verdict)


def _begin(state: State) -> State:
    """A new shot: a pending push-out choice counts as accepted (the spec: a shot that begins accepts)."""
    table = state.table
    if table.awaiting_choice or table.break_choice:
        table = table._replace(awaiting_choice=False, break_choice=False)
    return State(state.setup, table, Shot(table), None, (), state.clock)


def _amend(state: State, item: ShotEvent) -> Step:
    """Add a late input to the last shot and decide it again."""
    last = state.last
    assert last is not None  # the callers amend only a last shot there is
    facts.check(last, item)
    if type(item) is Foul:
        _check_foul(state, last, item)
    shot = Shot(last.before, last.events + (item,))
    table, verdict = decide(state.setup, shot)
    amended = clock.after_amend(state, table)
    if amended is not state.clock:
        verdict = verdict._replace(extension_back=clock.whose_extension(state))
    return Step(State(state.setup, table, None, shot, (), amended), verdict, amends=True)


def _add(state: State, item: ShotEvent) -> Step:
    """Add an event to the shot in progress."""
    shot = state.shot
    assert shot is not None  # the callers add only to a shot in progress
    facts.check(shot, item)
    return _step(Step, (State(state.setup, state.table, Shot(shot.before, shot.events + (item,)), None, (),
                              state.clock), None, False))


def _slow_ball(state: State, item: FirstContact | Cushion | Pocket) -> Step:
    """With a strike sensor, a sensor input before the next strike belongs to the last shot (the spec).

    The shot is decided again and the inputs between shots that followed it
    are applied once more; if one of them no longer fits (the slow ball changed
    who is at the table), the slow ball is refused and the match stays as it was.
    """
    step = _amend(state, item)
    replayed = step.state
    for between in state.since:
        try:
            replayed = _HANDLERS[type(between)](replayed, between).state
        except RuleError as error:
            raise RuleError(msg("{kind} after the shot would leave the {between} that followed it wrong ({error}): "
                                "undo the {between} first", kind=item.TYPE, between=between.TYPE,
                                error=error.message)) from None
    return Step(replayed, step.verdict, amends=True)


def _sensor(state: State, item: FirstContact | Cushion | Pocket) -> Step:
    """A sensor input: part of the shot in progress, the start of a shot, or (strike sensor) a slow ball."""
    if state.shot is not None:
        return _add(state, item)
    if state.setup.options.strike_sensed:
        if state.last is None:
            raise RuleError(msg("{kind} with no shot to belong to: a strike sensor is fitted and no strike came",
                                kind=item.TYPE))
        return _slow_ball(state, item)
    begun = _begin(state)
    assert begun.shot is not None  # _begin begins one
    facts.check(begun.shot, item)
    return Step(begun._replace(shot=Shot(begun.shot.before, (item,))))


def _strike(state: State, item: Strike) -> Step:
    """A strike ends the shot in progress and begins the next, unless the shot it ended won the match."""
    finished = _finish(state)
    if finished.state.table.match_winner is not None:
        return finished
    return Step(_begin(finished.state), finished.verdict)


def _settle(state: State, item: Settle) -> Step:
    return _finish(state)


def _miss(state: State, item: Miss) -> Step:
    """A miss ends the shot in progress, or is a whole shot in which nothing was sensed."""
    if state.shot is None:
        return _finish(_begin(state))
    if any(type(event) is Pocket for event in state.shot.events):
        raise RuleError(msg("miss after a ball was pocketed in the same shot"),
                        msg("A ball was pocketed on this shot, so it was not a miss."))
    return _finish(state)


_Between = TypeVar("_Between", bound=BetweenShots)


def _between(change: Callable[[Setup, Table, _Between], Table]) -> Callable[[State, _Between], Step]:
    """Inputs between shots end the shot in progress first; a rejection then takes back both."""
    def handle(state: State, item: _Between) -> Step:
        finished = _finish(state)
        after = finished.state
        if after.table.match_winner is not None:
            raise _match_over(after)
        table = change(after.setup, after.table, item)
        if after.last is not None and after.setup.options.strike_sensed:
            return Step(State(after.setup, table, None, after.last, after.since + (item,), after.clock),
                        finished.verdict)
        return Step(State(after.setup, table, None, None, (), after.clock), finished.verdict)
    return handle


def _stalemate(setup: Setup, table: Table, item: Stalemate) -> Table:
    if table.shot_no == 0:
        raise RuleError(msg("stalemate before the break: the game starts with the break (5.15)"),
                        msg("The rack is not broken yet: the game starts with the break (5.15)."))
    after = racks.stalemate(table)
    return after if setup.targets is None else apa.rack_ended(table, after)


def _concede(setup: Setup, table: Table, item: Concede) -> Table:
    if item.scope == "match":
        return racks.concede_match(table, item.player)
    after = racks.win_rack(setup, table, 1 - item.player)
    return after if setup.targets is None else apa.rack_ended(table, after)


def _rerack(setup: Setup, table: Table, item: Rerack) -> Table:
    after = break_choice.rerack(table)
    return after if setup.targets is None else apa.rack_ended(table._replace(shot_no=0), after)


def _safety(state: State, item: Safety) -> Step:
    """A defensive shot: marks the shot in progress, or the last one, for the APA score sheet."""
    if state.setup.targets is None:
        raise RuleError(msg('safety only under APA scoring (rules.scoring "apa"): the score sheet counts them'),
                        msg("Safeties are counted only in APA matches."))
    shot = state.shot if state.shot is not None else state.last if not state.since else None
    if shot is None:
        raise RuleError(msg("safety with no shot to belong to"))
    if shot.is_break:
        raise RuleError(msg("the break is not a defensive shot"), msg("The break cannot be marked as a safety."))
    if any(type(event) is Safety for event in shot.events):
        raise RuleError(msg("this shot is already marked as a safety"), msg("This shot is already marked as a safety."))
    return _tap(state, item)


def _check_foul(state: State, shot: Shot, item: Foul) -> None:
    """A called foul must fit the shot it belongs to and name the player it is charged to."""
    if shot.is_push_out and item.reason in ("bad_hit", "no_rail"):
        raise RuleError(msg("{reason} cannot be called on a push out (5.6)", reason=item.reason),
                        msg("A push out need not hit the ball on or reach a rail (5.6)."))
    if item.reason == "illegal_break" and not shot.is_break:
        raise RuleError(msg("illegal_break only on the break (5.4)"),
                        msg("Only the break can be an illegal break (5.4)."))
    if (shot.is_break and item.reason in ("illegal_break", "no_rail")
            and state.setup.options.break_requirement == "three_point"
            and len(facts.read(shot).pocketed) >= fouls.THREE_POINT_WAIVED):
        raise RuleError(msg("{reason} cannot be called: the break pocketed two balls, so the 3-point rule is met",
                            reason=item.reason),
                        msg("Two balls were pocketed on the break: the 3-point rule is met."))
    _check_player(state, item, shot.shooter)


def _check_player(state: State, item: Foul, charged: int) -> None:
    if item.player is not None and item.player != charged:
        name = state.setup.players[charged]
        raise RuleError(msg("this foul is charged to {name} (player {charged}), not player {player}", name=name,
                            charged=charged, player=item.player))


def _foul(state: State, item: Foul) -> Step:
    """A foul belongs to the shot in progress, else to the last shot, else it is a foul between shots (R5)."""
    if state.shot is not None:
        _check_foul(state, state.shot, item)
        return _add(state, item)
    if state.last is not None and not state.since:
        return _amend(state, item)
    if state.table.match_winner is not None:
        raise _match_over(state)
    table = state.table
    assert table.shooter is not None  # the match is on, so someone is due at the table
    if table.shot_no == 0:
        raise RuleError(msg("no foul before the rack's break: the game starts with the break (5.15)"),
                        msg("No foul before the break: the game starts with the break (5.15)."))
    if item.reason not in ("moved_ball", "other"):
        raise RuleError(msg("a foul between shots is moved_ball or other, not {reason} (R5)", reason=item.reason),
                        msg("Between shots only a moved ball or another foul can be called (R5)."))
    _check_player(state, item, table.shooter)
    after, verdict = foul_between_shots(state.setup, table, foul_between(item.reason))
    return Step(State(state.setup, after, None, None, (), state.clock), verdict)


def _shot_clock(state: State, item: ShotClock) -> Step:
    """The clock turned on or off (any time, a shot in progress too), or run out: a standard foul (TR20) by the
    player due at the table, ruled as a foul between shots."""
    if item.on is not None:
        refused = clock.no_switch(state, item.on)
        if refused is not None:
            raise refused
        return Step(state._replace(clock=clock.turned(state.clock, item.on, state.table.rack)))
    refused = clock.no_expiry(state)
    if refused is not None:
        raise refused
    after, verdict = foul_between_shots(state.setup, state.table, clock.TIME_FOUL)
    return Step(State(state.setup, after, None, None, (), state.clock), verdict)


def _extension(state: State, item: Extension) -> Step:
    """The player due at the table takes his extension for this shot (TR20: one a rack)."""
    refused = clock.no_extension(state)
    if refused is not None:
        raise refused
    return Step(state._replace(clock=clock.with_extension(state)))


def _tap(state: State, item: Identify | OffTable | Safety) -> Step:
    """``identify`` and ``off_table`` belong to the shot in progress or to the last shot."""
    if state.shot is not None:
        return _add(state, item)
    if state.last is not None and not state.since:
        return _amend(state, item)
    raise RuleError(msg("{kind} with no shot to belong to", kind=item.TYPE))


def _second_match(state: State, item: MatchStart) -> Step:
    raise RuleError(msg("a second match_start: one match per log"))


def _undo(state: State, item: Undo | UndoShot) -> Step:
    raise RuleError(msg("{kind} needs the match's history: apply it to a Match, not to a state", kind=item.TYPE))


# Each handler takes the input of its key's type, which a dict's type cannot say: hence Any for the input.
_HANDLERS: dict[type[Input], Callable[[State, Any], Step]] = {
    Strike: _strike,
    FirstContact: _sensor,
    Cushion: _sensor,
    Pocket: _sensor,
    Settle: _settle,
    Miss: _miss,
    Foul: _foul,
    Identify: _tap,
    OffTable: _tap,
    PushOut: _between(lambda setup, table, item: push_out.announce(table, setup.options)),
    Accept: _between(lambda setup, table, item: push_out.accept(table)),
    Pass: _between(lambda setup, table, item: push_out.pass_back(table)),
    Stalemate: _between(_stalemate),
    Concede: _between(_concede),
    Rerack: _between(_rerack),
    Timeout: _between(lambda setup, table, item: apa.take_timeout(setup, table)),
    Safety: _safety,
    ShotClock: _shot_clock,
    Extension: _extension,
    MatchStart: _second_match,
    Undo: _undo,
    UndoShot: _undo,
}
