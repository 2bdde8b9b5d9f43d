"""APA 9-ball scoring: points against a target by skill level, the score sheet's innings, dead balls,
safeties and timeouts (docs/rules.md, "APA 9-ball", with the sources read).

The rulings on the table are the nine-ball ones (``decide``); this module only scores them: a ball
pocketed on a legal shot is worth 1 (the 9: 2) to its shooter; balls pocketed on a foul, and the balls
left when the 9 drops, are dead; the match ends the moment a player reaches his target, mid-rack too.

>>> [target(skill) for skill in range(1, 10)]
[14, 19, 25, 31, 38, 46, 55, 65, 75]
>>> from scoreboard.core.inputs import RuleOptions
>>> value(9), value(3), timeouts_per_rack(RuleOptions(), 3), timeouts_per_rack(RuleOptions(), 4)
(2, 1, 2, 1)
>>> timeouts_per_rack(RuleOptions(timeouts_skill_1_3=1), 3)
1
"""

from __future__ import annotations

from collections.abc import Iterable

from scoreboard.core.inputs import NINE, RuleOptions, Safety
from scoreboard.core.messages import msg, msg_n
from scoreboard.core.rules.state import RuleError, Setup, Sheet, Shot, Table, Verdict, other

#: Points a player of skill level 1 to 9 must reach to win the match (the APA's Equalizer chart).
TARGETS = (14, 19, 25, 31, 38, 46, 55, 65, 75)
EMPTY_SHEET = Sheet()


def target(skill: int) -> int:
    """The points skill level ``skill`` (1-9) must reach."""
    return TARGETS[skill - 1]


def targets(skills: tuple[int, int]) -> tuple[int, int]:
    return target(skills[0]), target(skills[1])


def value(ball: int) -> int:
    """Balls 1 to 8 are worth a point each, the 9 two: ten points a rack."""
    return 2 if ball == NINE else 1


def points_of(balls: Iterable[int]) -> int:
    return sum(2 if ball == NINE else 1 for ball in balls)


def timeouts_per_rack(options: RuleOptions, skill: int) -> int:
    """APA: skill levels 1 to 3 may take two timeouts a rack, 4 and up one ([S9]); a league sets its own
    (``rules.timeouts_skill_1_3``, ``rules.timeouts_skill_4_9``)."""
    return options.timeouts(skill)


def _add(pair: tuple[int, int], player: int, amount: int) -> tuple[int, int]:
    return (pair[0] + amount, pair[1]) if player == 0 else (pair[0], pair[1] + amount)


def score(setup: Setup, shot: Shot, verdict: Verdict, finished: Table | None) -> tuple[Table, Verdict]:
    """The shot (or foul between shots) on the score sheet, and the match over if its shooter reached his target.

    The winner's points are his target: the match ends the moment he reaches it ([S6]), so points a run or one
    shot makes past it are not scored (rules version 2, issue 34; a match stored under 1 keeps them).
    ``finished`` is the rack as it ended when the shot ended it (the 9 down, or a third foul).
    """
    targets_ = setup.targets
    assert targets_ is not None  # called for APA scoring only
    before = shot.before
    after = verdict.after
    assert after is not None  # the rules' verdicts say the table they leave
    sheet = before.sheet or EMPTY_SHEET
    shooter = verdict.shooter
    left = verdict.on_table
    gone = [ball for ball in before.on_table if ball not in left]
    legal = not verdict.foul and not verdict.push_out and not after.break_choice
    scored = points_of(gone) if legal else 0
    dead = 0 if legal else len(gone)
    rack_over = verdict.rack_winner is not None
    if rack_over:
        dead += len(left)  # the balls left when the 9 drops (or the rack is lost) score for no one
    needed = targets_[shooter] - sheet.points[shooter]
    won = scored >= needed
    if won and setup.rules_version >= 2:
        scored = needed  # the match ends at the target: what the shot made past it is not scored
    points = _add(sheet.points, shooter, scored)
    safety = any(type(event) is Safety for event in shot.events)
    safeties = _add(sheet.safeties, shooter, 1) if safety else sheet.safeties
    innings = sheet.innings + _inning(setup, shooter, None if won else after.shooter)
    rack_dead = sheet.rack_dead + dead
    marked = Sheet(points, innings, sheet.dead_balls + dead, rack_dead, safeties, sheet.timeouts)
    if won:
        ended = (finished or after)._replace(score=after.score)
        after = ended._replace(match_winner=shooter, shooter=None, ball_in_hand=False, push_out_allowed=False,
                               push_out=False, awaiting_choice=False, behind_head_string=False,
                               break_choice=False, sheet=marked)
    elif rack_over:
        after = after._replace(sheet=marked._replace(rack_dead=0, timeouts=(0, 0)))
    else:
        after = after._replace(sheet=marked)
    return after, verdict._replace(
        next_shooter=after.shooter, ball_in_hand=after.ball_in_hand, push_out_allowed=after.push_out_allowed,
        warning=verdict.warning and not won, after=after, points_scored=scored,
        rack_dead=rack_dead if rack_over or won else None, safety=safety,
    )


def _inning(setup: Setup, shooter: int, next_shooter: int | None) -> int:
    """1 when the shot ended the turn of the lag's loser (the player who did not break first): the APA score
    sheet marks an inning each time his turn ends, never when the match is won."""
    lag_loser = other(setup.first_breaker)
    return 1 if shooter == lag_loser and next_shooter is not None and next_shooter != lag_loser else 0


def rack_ended(before: Table, after: Table) -> Table:
    """A rack ended by a stalemate or a concession: the balls left on it are dead; the sheet goes on."""
    sheet = before.sheet or EMPTY_SHEET
    dead = len(before.on_table) if before.shot_no else 0
    return after._replace(sheet=sheet._replace(dead_balls=sheet.dead_balls + dead, rack_dead=0, timeouts=(0, 0)))


def take_timeout(setup: Setup, table: Table) -> Table:
    """The player due at the table takes one of his timeouts of this rack."""
    skills = setup.apa_skill
    if skills is None:
        raise RuleError(msg('timeout only under APA scoring (rules.scoring "apa")'),
                        msg("Timeouts are counted only in APA matches."))
    player = table.shooter
    assert player is not None  # inputs between shots are taken only while the match is on
    sheet = table.sheet or EMPTY_SHEET
    allowed = timeouts_per_rack(setup.options, skills[player])
    name = setup.players[player]
    if allowed == 0:
        raise RuleError(msg("{name} has no timeouts under these rules (skill level {skill}: "
                            "rules.timeouts_skill_{levels} is 0)", name=name, skill=skills[player],
                            levels="1_3" if skills[player] <= 3 else "4_9"),
                        msg("{name} has no timeout left in this rack.", name=name))
    if sheet.timeouts[player] >= allowed:
        raise RuleError(msg_n("{name} has taken the {n} timeout of this rack (skill level {skill})",
                              "{name} has taken the {n} timeouts of this rack (skill level {skill})", allowed,
                              name=name, skill=skills[player]),
                        msg("{name} has no timeout left in this rack.", name=name))
    return table._replace(sheet=sheet._replace(timeouts=_add(sheet.timeouts, player, 1)))


def timeouts_left(setup: Setup, table: Table) -> list[int]:
    """Each player's timeouts left in this rack (the state line, the touchscreen's button)."""
    skills = setup.apa_skill
    assert skills is not None  # asked for APA scoring only
    taken = (table.sheet or EMPTY_SHEET).timeouts
    return [timeouts_per_rack(setup.options, skills[player]) - taken[player] for player in (0, 1)]
