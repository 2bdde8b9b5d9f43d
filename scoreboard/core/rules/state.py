"""The values the nine-ball fold works on: frozen, so a state can be kept and shared.

A ``State`` is the match between inputs: its ``Table`` (everything a player sees
between shots), the shot in progress, and the last shot while a late foul, an
identification or (with a strike sensor) a slow ball may still change it.

``Table``, ``Shot`` and ``State`` are named tuples rather than frozen
dataclasses: every input makes new ones, and a tuple is built and copied with
changes several times faster, which is what lets replay fold 100,000 inputs a
second (bench/README.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from scoreboard.core.inputs import OBJECT_BALLS, BetweenShots, RuleOptions, ShotEvent
from scoreboard.core.messages import Message

FULL_RACK = OBJECT_BALLS


#: The rules this release referees by. A stored match keeps the version it began under and is folded under it
#: for good: a later change of any ruling checks ``Setup.rules_version`` and keeps the old verdict below its own
#: number (docs/architecture.md, "What a stored record means across versions").
#: 2 (issue 34): the shot clock's longer limit is for the first shot after a legal break only (TR20 as the
#: Norwegian federation's rule 10.3.15 gives it); under 1, after any break, a fouled one too.
RULES_VERSION = 2


class RuleError(ValueError):
    """An input that makes no sense at its point in the match; the state is left as it was.

    The message is for the log's reader; ``why``, where the rule gives one, is the sentence a player reads
    on a button that cannot be tapped now (``scoreboard.core.actions``). Both are messages
    (``scoreboard.core.messages``): ``str(error)`` is the English, ``render(error.message, catalog)`` another
    language.
    """

    def __init__(self, message: Message | str, why: Message | None = None) -> None:
        super().__init__(message)  # put into words when read: the served actions try many taps and read none
        self.message = message
        self.why = why


@dataclass(frozen=True, slots=True)
class Setup:
    """What a match was started with and never changes (``match_start``)."""

    players: tuple[str, str]
    race: tuple[int, int]
    first_breaker: int
    options: RuleOptions
    table: str | None = None
    rules_version: int = RULES_VERSION
    apa_skill: tuple[int, int] | None = None
    targets: tuple[int, int] | None = None
    """APA scoring (``rules/apa.py``): the points each player must reach; None for a race of racks."""


class Sheet(NamedTuple):
    """The APA score sheet as it stands (``rules/apa.py``): points, innings, dead balls, safeties, timeouts."""

    points: tuple[int, int] = (0, 0)
    innings: int = 0
    dead_balls: int = 0
    rack_dead: int = 0
    safeties: tuple[int, int] = (0, 0)
    timeouts: tuple[int, int] = (0, 0)


class Table(NamedTuple):
    """The match as it stands between shots.

    ``shooter`` is who is due at the table: while a push-out choice is pending,
    the player who chooses. ``shot_no`` counts the rack's finished shots, so 0
    means the break is still to come. ``sheet`` is the APA score sheet (None
    for a race of racks); ``behind_head_string`` says ball in hand is behind
    the head string (a scratch, ``ball_in_hand: "behind_head_string"``);
    ``break_choice`` that the shooter chooses after a failed break (``break_failure: "option"``);
    ``after_push_out`` that the turn due now is the shot after a push out, its choice made (the shot clock's
    longer limit there, where the event plays one: TR20); ``after_legal_break`` that it is the first shot after a
    legal break (the shot clock's longer limit, TR20; not after a fouled or failed break).
    """

    score: tuple[int, int]
    rack: int
    breaker: int
    shot_no: int
    on_table: tuple[int, ...]
    shooter: int | None
    ball_in_hand: bool
    push_out_allowed: bool
    push_out: bool
    awaiting_choice: bool
    fouls_in_row: tuple[int, int]
    match_winner: int | None = None
    sheet: Sheet | None = None
    behind_head_string: bool = False
    break_choice: bool = False
    after_push_out: bool = False
    after_legal_break: bool = False


class Shot(NamedTuple):
    """A shot as the table reported it: the table before it and its events in order.

    The events are the inputs that belong to the shot (first contact, cushions,
    pockets, balls off the table, called fouls, identifications); the verdict
    is always decided again from them, which is what lets a late input amend it.
    """

    before: Table
    events: tuple[ShotEvent, ...] = ()

    @property
    def shooter(self) -> int:
        assert self.before.shooter is not None  # a shot is begun only while the match is on
        return self.before.shooter

    @property
    def is_break(self) -> bool:
        return self.before.shot_no == 0

    @property
    def is_push_out(self) -> bool:
        return self.before.push_out


class Clock(NamedTuple):
    """The clock's record in a match: on or off, each player's extensions used in ``rack``, the turn extended.

    ``extended`` is the turn (rack, shot number, shooter) an extension was taken for: it lapses by itself
    when that turn is over, and ``used`` by itself when a new rack begins, so no other rule has to reset them.
    """

    on: bool
    rack: int
    used: tuple[int, int] = (0, 0)
    extended: tuple[int, int, int] | None = None


class State(NamedTuple):
    """The whole match after an input: fold inputs into it with ``evolve``.

    ``last`` is the last finished shot while a late input may still change it;
    ``since`` holds the inputs between shots that came after it (push out,
    choice, stalemate, concession), which only a slow ball with a strike sensor
    reaches across: it decides the shot again and applies them once more.
    ``clock`` is the shot clock's record (``rules/clock.py``), None until it is first turned on.
    """

    setup: Setup
    table: Table
    shot: Shot | None = None
    last: Shot | None = None
    since: tuple[BetweenShots, ...] = ()
    clock: Clock | None = None


class Verdict(NamedTuple):
    """The rules' decision on one shot (or on a foul between shots): a shot line of the spec.

    ``players``, ``calls`` (the fouls found) and ``after`` (the table the shot
    left) are what ``words`` needs to say the ruling; they are not in the line.
    """

    rack: int
    shot: int
    shooter: int
    is_break: bool
    push_out: bool
    pocketed: tuple[int, ...]
    scratch: bool
    off_table: tuple[int, ...]
    foul: bool
    rules: tuple[str, ...]
    respot_nine: bool
    on_table: tuple[int, ...]
    assumed: tuple[int, ...]
    next_shooter: int | None
    ball_in_hand: bool
    push_out_allowed: bool
    fouls_in_row: tuple[int, int]
    warning: bool
    rack_winner: int | None
    between_shots: bool = False
    players: tuple[str, str] = ("", "")
    calls: tuple[Call, ...] = ()
    after: Table | None = None
    points_scored: int | None = None
    rack_dead: int | None = None
    safety: bool = False
    extension_back: int | None = None
    """The player a late input gave an extension back (the turn it was taken in was never theirs, TR20)."""


class Call(NamedTuple):
    """A foul: the rule that makes it one and the reason in a player's words."""

    rule: str
    reason: Message


class RequirementCall(Call):
    """A break that failed its requirement (four balls to a rail, or the 3-point rule): with
    ``break_failure: "option"`` the incoming player's choice rather than a foul."""


class Step(NamedTuple):
    """What one input did: the new state, and the verdict of a shot it ended or amended."""

    state: State
    verdict: Verdict | None = None
    amends: bool = False


def other(player: int) -> int:
    return 1 - player


def first_rack(setup: Setup) -> Table:
    """Rack 1: the lag winner's choice breaks with cue ball in hand behind the head string (5.2, 5.3)."""
    return rack_table((0, 0), 1, setup.first_breaker)


def rack_table(score: tuple[int, int], number: int, breaker: int) -> Table:
    return Table(
        score=score, rack=number, breaker=breaker, shot_no=0, on_table=FULL_RACK,
        shooter=breaker, ball_in_hand=True, push_out_allowed=False, push_out=False,
        awaiting_choice=False, fouls_in_row=(0, 0),
    )
