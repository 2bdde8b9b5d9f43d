"""What happened on one shot, read from its events, and whether a new event can belong to it.

Unidentified pocketed balls are resolved here, in the shooter's favour as the
spec says: each is taken as the lowest-numbered object ball left on the table,
never the 9 while another ball is left, until an ``identify`` names it.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

from scoreboard.core.inputs import CUE_BALL, NINE, Cushion, FirstContact, Foul, Identify, OffTable, Pocket, ShotEvent
from scoreboard.core.messages import msg
from scoreboard.core.rules.state import RuleError, Shot

NOT_SENSED = "not sensed"


class ShotFacts(NamedTuple):
    """The facts of a shot that the rules decide on."""

    first_contact: int | None | str
    rail_after_contact: bool
    balls_to_rail: int
    pocketed: tuple[int, ...]
    assumed: tuple[int, ...]
    unidentified: int
    cue_pocketed: bool
    off_table: tuple[int, ...]
    objects_off: tuple[int, ...]
    called: tuple[str, ...]

    @property
    def scratch(self) -> bool:
        return self.cue_pocketed or CUE_BALL in self.off_table


def read(shot: Shot) -> ShotFacts:
    """Fold a shot's events into its facts."""
    first_contact: int | None | str = NOT_SENSED
    rail_after_contact = False
    rail_balls: set[int] = set()
    unnamed_rails = 0
    slots: list[int | None] = []
    cue_pocketed = False
    off_table: tuple[int, ...] = ()
    called: tuple[str, ...] = ()
    event: Any  # a ShotEvent: mypy does not narrow it by ``kind is ...``, and type(event) in each test costs a call
    for event in shot.events:
        kind = type(event)
        if kind is Cushion:
            rail_after_contact = True
            ball = event.ball
            if ball is None:
                unnamed_rails += 1
            elif ball:
                rail_balls.add(ball)
        elif kind is Pocket:
            if event.ball == CUE_BALL:
                cue_pocketed = True
            else:
                slots.append(event.ball)
        elif kind is FirstContact:
            first_contact = event.ball
            rail_after_contact = False
        elif kind is Foul:
            called += (event.reason,)
        elif kind is OffTable:
            off_table += (event.ball,)
        elif kind is Identify:
            slots[slots.index(None)] = event.ball
    objects_off = tuple(ball for ball in off_table if ball) if off_table else ()
    if None in slots:
        pocketed, assumed = _resolve(shot.before.on_table, slots, objects_off)
    else:
        pocketed, assumed = cast("tuple[int, ...]", tuple(slots)), ()  # no None among them
    return ShotFacts(
        first_contact, rail_after_contact, len(rail_balls) + unnamed_rails, pocketed, assumed,
        slots.count(None), cue_pocketed, off_table, objects_off, called,
    )


def _resolve(
    on_table: tuple[int, ...], slots: list[int | None], objects_off: tuple[int, ...],
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Name every pocketed ball: sensed or identified ones as they are, the rest as assumed."""
    named = {ball for ball in slots if ball is not None}
    left = [ball for ball in on_table if ball not in named and ball not in objects_off]
    pocketed: list[int] = []
    assumed: list[int] = []
    for ball in slots:
        if ball is None:
            ball = left[0] if len(left) == 1 or left[0] != NINE else left[1]
            left.remove(ball)
            assumed.append(ball)
        pocketed.append(ball)
    return tuple(pocketed), tuple(assumed)


def _down(ball: int) -> RuleError:
    return RuleError(msg("ball {ball} is already down", ball=ball) if ball else msg("the cue ball is already down"))


def check(shot: Shot, event: ShotEvent) -> None:
    """Raise ``RuleError`` unless ``event`` can be one more event of ``shot``."""
    kind = type(event)  # mypy does not narrow event by kind: each branch asserts the kind (always true)
    if kind is FirstContact:
        assert isinstance(event, FirstContact)
        if any(type(e) is FirstContact for e in shot.events):
            raise RuleError(msg("a second first_contact in one shot"))
        if event.ball is not None:
            _check_on_table(shot, event.ball)
    elif kind is Cushion:
        assert isinstance(event, Cushion)
        if event.ball is not None:
            _check_on_table(shot, event.ball)
    elif kind is Pocket:
        assert isinstance(event, Pocket)
        if event.ball is None:
            _check_room(shot, extra_unidentified=1)
        else:
            _check_on_table(shot, event.ball)
            _check_room(shot, extra_named=event.ball)
    elif kind is OffTable:
        assert isinstance(event, OffTable)
        _check_on_table(shot, event.ball)
        _check_room(shot, extra_named=event.ball)
    elif kind is Identify:
        assert isinstance(event, Identify)
        facts = read(shot)
        if facts.unidentified == 0:
            raise RuleError(msg("identify with no unidentified ball in the shot it belongs to"))
        if event.ball not in shot.before.on_table or event.ball in facts.off_table or _named(shot, event.ball):
            raise _down(event.ball)


def _named(shot: Shot, ball: int) -> bool:
    """True if a pocket or identify of this shot already names ``ball``."""
    events: tuple[Any, ...] = shot.events  # ShotEvents: mypy does not narrow them by ``type(e) in (...)``
    return any(type(e) in (Pocket, Identify) and e.ball == ball for e in events)


def _check_on_table(shot: Shot, ball: int) -> None:
    """The ball must still be on the table: not down before the shot, not pocketed or off it since."""
    if ball and ball not in shot.before.on_table:
        raise _down(ball)
    event: Any  # a ShotEvent: mypy does not narrow it by ``kind is ...``, and type(event) in each test costs a call
    for event in shot.events:
        kind = type(event)
        if kind is Pocket or kind is Identify:
            if event.ball == ball:
                raise _down(ball)
        elif kind is OffTable and event.ball == ball:
            raise RuleError(msg("ball {ball} is already off the table", ball=ball)) if ball else _down(ball)


def _check_room(shot: Shot, extra_unidentified: int = 0, extra_named: int | None = None) -> None:
    """There must be a ball on the table for every ball said to have left it."""
    if extra_named == CUE_BALL:
        return
    events: tuple[Any, ...] = shot.events  # ShotEvents: mypy does not narrow them by ``type(e) in (...)``
    gone = sum(1 for e in events if type(e) in (Pocket, OffTable) and e.ball != CUE_BALL)
    if gone + 1 > len(shot.before.on_table):
        if extra_unidentified:
            raise RuleError(msg("a pocket with no object ball left on the table to have dropped"))
        raise RuleError(msg("ball {ball} is already down (taken for an unidentified ball)", ball=str(extra_named)))
